import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StuntDouble

/// One connection's requests, one at a time: reads a request and its body within the limits, asks the
/// stubber, and plays the decision on the socket as bytes (`ResponseWire`). A request that arrives while a
/// response is being played (pipelining) waits for it to end, and the socket is read no further meanwhile.
///
/// Reading is here; choosing the answer (a stub's plan, or the server's own error) is in
/// `StubRequestHandler+Answering.swift`, the admin API's turn in `+Admin.swift` (its endpoints in `Admin/`),
/// forwarding to an upstream in `+Proxying.swift`, and writing a response in `+Writing.swift`.
///
/// The admin API is a responder this handler calls, not a channel handler of its own ahead of it: responses
/// to pipelined requests must leave in the order the requests came, so one handler keeps that order for all
/// three kinds of answer.
final class StubRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let core: ServerCore
    /// Whether the connection is the HTTPS listener's (requests are `https://` URLs).
    let isSecure: Bool

    enum State {
        /// Between requests.
        case idle
        /// Reading a request's body.
        case receiving(HTTPRequestHead)
        /// A response went out before the request's body ended (413, 400, 501): the rest of the body is read
        /// and dropped for a few seconds, then the connection closes.
        case rejecting
        /// Playing a response.
        case responding
        /// The last response is ending; the connection closes when it has.
        case finishing
        /// Closing.
        case closed
    }

    var state = State.idle
    var playback: Playback?
    /// Parts of requests that arrived while a response was being played, in order.
    private var pending = CircularBuffer<HTTPServerRequestPart>()
    /// Whether a read was asked for while requests were waiting (it is made once they have been answered).
    private var readHeld = false
    /// Whether waiting requests are being taken, one after another.
    private var takingPending = false
    /// The body of the request being read: the first part as it arrived (no copy), then one buffer that the
    /// rest is appended to, reserved from the declared length (so a large upload is copied once, not once per
    /// part).
    private var body: ByteBuffer?
    /// The request's `Content-Length`, when it gave one within the limit.
    private var declaredLength: Int?
    private var idleTimer: Scheduled<Void>?
    /// When the connection last became idle (or had a request start): one timer checks it, instead of a timer
    /// per request.
    var idleSince = NIODeadline.now()
    /// When the request being read last received body bytes: a body that stalls for the idle timeout ends
    /// the connection (with 408), so that a client cannot hold a connection's memory by sending nothing.
    private var lastBodyActivity = NIODeadline.now()
    var lingerTimer: Scheduled<Void>?
    /// Close once the response in progress ends (the server is stopping).
    var closeAfterResponse = false
    /// The client's address, once asked for (it is the same for every request of the connection).
    private var address: String??

    /// The client's IP address, for the admin API's journal.
    func clientAddress(_ context: ChannelHandlerContext) -> String? {
        if let address { return address }
        let found = context.channel.remoteAddress?.ipAddress
        address = .some(found)
        return found
    }

    init(core: ServerCore, isSecure: Bool = false) {
        self.core = core
        self.isSecure = isSecure
    }

    // MARK: - Connection events

    func channelActive(context: ChannelHandlerContext) {
        armIdleTimer(at: idleSince + idleTimeout, context: context)
        context.fireChannelActive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // After TLS and ALPN the connection is active already: no channelActive comes.
        if context.channel.isActive, idleTimer == nil {
            armIdleTimer(at: idleSince + idleTimeout, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        lingerTimer?.cancel()
        if let playback {
            playback.cancel()
            finish(playback, error: ConnectionClosed())
        }
        playback = nil
        body = nil
        state = .closed
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        lingerTimer?.cancel()
        playback?.cancel()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            if case .idle = state {
                close(context: context)
            } else {
                closeAfterResponse = true
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let playback, playback.isWaitingForWritability {
            playback.isWaitingForWritability = false
            advance(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    /// A request that does not parse gets `431` when its head is too large, `400` otherwise, with a line
    /// saying what was wrong (unless a response is being written), and its connection closes. Other
    /// connections never notice.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            core.logger.debug("connection error: \(error)")
            close(context: context)
            return
        }
        let status: HTTPResponseStatus
        let text: String
        if case .headerOverflow = parserError {
            status = .requestHeaderFieldsTooLarge
            text = "The request's header fields are too large for this server. Send fewer or shorter headers.\n"
        } else {
            status = .badRequest
            text = "The request is not valid HTTP/1.1 (\(parserError)).\n"
        }
        core.logger.info("malformed request → \(status.code): \(parserError)")
        if playback == nil || playback?.headWritten == false {
            playback?.cancel()
            playback = nil
            writeSimple(status: status, text: text, version: .http1_1, close: true, context: context)
        }
        close(context: context)
    }

    // MARK: - Reading a request

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch state {
        case .responding:
            pending.append(part)
        case .finishing, .closed:
            break
        case .idle, .receiving, .rejecting:
            if pending.isEmpty {
                take(part, context: context)
            } else {
                pending.append(part)
            }
        }
    }

    /// Holds the socket's reads while requests wait for a response to end: a client that pipelines faster than
    /// it is answered is held back by TCP, not by the server's memory.
    func read(context: ChannelHandlerContext) {
        if pending.isEmpty {
            context.read()
        } else {
            readHeld = true
        }
    }

    /// Takes the requests that waited while a response was played, until one of them is being answered; then
    /// reads the socket again if it was held.
    func readPending(context: ChannelHandlerContext) {
        guard !takingPending else { return }
        takingPending = true
        defer { takingPending = false }
        while !pending.isEmpty {
            switch state {
            case .idle, .receiving, .rejecting:
                take(pending.removeFirst(), context: context)
            case .responding:
                return
            case .finishing, .closed:
                pending.removeAll()
            }
        }
        if readHeld {
            readHeld = false
            context.read()
        }
    }

    private func take(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            guard case .idle = state else { return }
            receive(head, context: context)
        case .body(var part):
            guard case .receiving(let head) = state else { return }
            lastBodyActivity = .now()
            let limit = core.configuration.maximumRequestBodySize
            let received = body?.readableBytes ?? 0
            if received + part.readableBytes > limit {
                body = nil
                refuse(head, status: .payloadTooLarge, text: tooLargeText(declared: nil), context: context)
                return
            }
            if body == nil {
                body = part
            } else {
                if let declaredLength, body!.capacity < declaredLength {
                    // Once, for the whole declared body: the parts that follow are appended without moving.
                    body!.reserveCapacity(declaredLength)
                }
                body!.writeBuffer(&part)
            }
        case .end:
            switch state {
            case .receiving(let head):
                state = .responding
                let received = body ?? ByteBuffer()
                body = nil
                respond(to: head, body: received, context: context)
            case .rejecting:
                close(context: context)
            default:
                break
            }
        }
    }

    private func receive(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let facts = HeadFacts(head)
        if let (status, text) = problem(with: head, facts) {
            refuse(head, status: status, text: text, context: context)
            return
        }
        let limit = core.configuration.maximumRequestBodySize
        if let declared = facts.contentLength, declared > limit {
            refuse(
                head, status: .payloadTooLarge, text: tooLargeText(declared: declared), context: context,
                // A client waiting for 100 Continue never sends the body: nothing to read before closing.
                closeAtOnce: facts.expectsContinue)
            return
        }
        if facts.expectsContinue, head.version.minor >= 1 {
            context.writeAndFlush(wrapOutboundOut(ResponseWire.continueHead), promise: nil)
        }
        declaredLength = facts.contentLength
        body = nil
        lastBodyActivity = .now()
        state = .receiving(head)
    }

    /// Why a request head is refused before its body is read (RFC 9112), or `nil`.
    private func problem(with head: HTTPRequestHead, _ facts: HeadFacts) -> (HTTPResponseStatus, String)? {
        let limit = core.configuration.maximumHeaderSize
        if facts.size > limit {
            return (
                .requestHeaderFieldsTooLarge,
                "The request's head (\(facts.size) bytes, \(head.headers.count) header fields) is larger than this "
                    + "server accepts (\(limit) bytes). Send fewer or shorter headers, or raise maximumHeaderSize.\n"
            )
        }
        if head.method == .CONNECT {
            return (
                .notImplemented,
                "CONNECT is not supported: this is a stub server, not a tunnelling proxy. Send requests to it "
                    + "directly (origin-form, such as GET /path), or use --proxy URL to forward to an upstream.\n"
            )
        }
        if head.version.major == 1, head.version.minor >= 1 {
            if facts.hostCount == 0 {
                return (.badRequest, "An HTTP/1.1 request must have a Host header (RFC 9112, section 3.2).\n")
            }
            if facts.hostCount > 1 {
                return (
                    .badRequest, "The request has \(facts.hostCount) Host headers; send one (RFC 9112, section 3.2).\n"
                )
            }
        }
        if let unknown = facts.unknownTransferCoding {
            let shown = String(unknown.unicodeScalars.filter { (0x20..<0x7F).contains($0.value) }.prefix(40))
            return (
                .notImplemented,
                "The transfer coding \"\(shown)\" is not supported; send the body with Content-Length, or with "
                    + "Transfer-Encoding: chunked alone (RFC 9112, section 6.1).\n"
            )
        }
        return nil
    }

    private func tooLargeText(declared: Int?) -> String {
        let limit = core.configuration.maximumRequestBodySize
        let size = declared.map { "\($0) bytes" } ?? "more than \(limit) bytes"
        return "The request body (\(size)) is larger than this server accepts (\(limit) bytes). Send a smaller "
            + "body, or raise HTTPStubServer.Configuration.maximumRequestBodySize (--max-body-size).\n"
    }

    /// Answers a request that cannot be served with an error, and closes the connection: at once, or once
    /// the rest of the body has been read and dropped (at most a few seconds), so that the client reads the
    /// answer rather than a reset connection.
    private func refuse(
        _ head: HTTPRequestHead, status: HTTPResponseStatus, text: String, context: ChannelHandlerContext,
        closeAtOnce: Bool = false
    ) {
        state = .rejecting
        body = nil
        core.logger.info("\(head.method.rawValue) \(core.loggedTarget(head.uri)) → \(status.code) refused")
        writeSimple(
            status: status, text: text, version: head.version, close: true, sendsText: head.method != .HEAD,
            context: context)
        if closeAtOnce {
            context.channel.eventLoop.assumeIsolated().execute { [self] in close(context: context) }
        } else {
            lingerTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(3)) { [self] in
                close(context: context)
            }
        }
    }

    // MARK: - Timeouts

    private var idleTimeout: TimeAmount {
        let timeout = core.configuration.idleTimeout
        return .nanoseconds(timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
    }

    /// Closes the connection once it has been idle (no request in progress) for the idle timeout, or once the
    /// body of the request being read has stalled for as long: a timer that looks again when it would have
    /// been due.
    private func armIdleTimer(at deadline: NIODeadline, context: ChannelHandlerContext) {
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            let now = NIODeadline.now()
            switch state {
            case .idle:
                if now >= idleSince + idleTimeout {
                    core.logger.debug("closing a connection idle for \(core.configuration.idleTimeout)")
                    close(context: context)
                } else {
                    armIdleTimer(at: idleSince + idleTimeout, context: context)
                }
            case .receiving(let head):
                if now >= lastBodyActivity + idleTimeout {
                    refuse(
                        head, status: .requestTimeout,
                        text: "The request's body stalled: no bytes arrived for \(core.configuration.idleTimeout) "
                            + "(the server's idle timeout), so the server stops waiting. Send the whole body "
                            + "promptly.\n", context: context, closeAtOnce: true)
                } else {
                    armIdleTimer(at: lastBodyActivity + idleTimeout, context: context)
                }
            case .closed:
                return
            default:
                // A response is in progress: look again a whole timeout after it ends at the earliest.
                idleSince = now
                armIdleTimer(at: idleSince + idleTimeout, context: context)
            }
        }
    }

    func close(context: ChannelHandlerContext) {
        if case .closed = state { return }
        state = .closed
        body = nil
        idleTimer?.cancel()
        lingerTimer?.cancel()
        context.close(promise: nil)
    }
}

/// What the server must know of a request's head before it reads the body, gathered in one pass over its fields
/// (looking fields up by name, one name at a time, cost more than the rest of reading a request).
struct HeadFacts {
    /// The head as sent: the request line, each field with its `: ` and CRLF, the empty line.
    private(set) var size: Int
    private(set) var hostCount = 0
    /// The first `Content-Length`, when it is a number.
    private(set) var contentLength: Int?
    private(set) var expectsContinue = false
    /// A transfer coding other than `chunked`, which the server cannot decode.
    private(set) var unknownTransferCoding: String?

    init(_ head: HTTPRequestHead) {
        size = head.method.rawValue.utf8.count + head.uri.utf8.count + 12
        for (name, value) in head.headers {
            size += name.utf8.count + value.utf8.count + 4
            switch name.utf8.count {
            case 4 where Self.name(name, is: "host"):
                hostCount += 1
            case 6 where Self.name(name, is: "expect"):
                expectsContinue = expectsContinue || Self.name(value, is: "100-continue")
            case 14 where Self.name(name, is: "content-length"):
                if contentLength == nil { contentLength = Int(value) }
            case 17 where Self.name(name, is: "transfer-encoding"):
                for coding in value.split(separator: ",") {
                    let trimmed = coding.trimmingCharacters(in: .whitespaces)
                    if unknownTransferCoding == nil, !Self.name(trimmed, is: "chunked") {
                        unknownTransferCoding = trimmed.lowercased()
                    }
                }
            default:
                break
            }
        }
    }

    /// Whether a text is a lower-case ASCII word, ignoring case.
    static func name(_ text: some StringProtocol, is lowercased: String) -> Bool {
        text.utf8.count == lowercased.utf8.count
            && zip(text.utf8, lowercased.utf8).allSatisfy { ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }
    }
}

/// The error a journal entry records when the client closed the connection before its response ended.
struct ConnectionClosed: Error, CustomStringConvertible {
    var description: String { "the client closed the connection before the response ended" }
}
