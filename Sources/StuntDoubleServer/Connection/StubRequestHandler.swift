import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StuntDouble

/// One connection's requests, one at a time (the pipelining handler before it holds back the next request
/// until a response ends): reads a request and its body within the limits, asks the stubber, and plays the
/// decision on the socket.
final class StubRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let core: ServerCore

    private enum State {
        /// Between requests.
        case idle
        /// Reading a request's body.
        case receiving(head: HTTPRequestHead, body: ByteBuffer)
        /// A response went out before the request's body ended (413): the rest of the body is read and dropped,
        /// then the connection closes.
        case rejecting
        /// Playing a response.
        case responding
        /// The last response is ending; the connection closes when it has.
        case finishing
        /// Closing.
        case closed
    }

    private var state = State.idle
    private var playback: Playback?
    private var idleTimer: Scheduled<Void>?
    /// When the connection last became idle (or had a request start): one timer checks it, instead of a timer
    /// per request.
    private var idleSince = NIODeadline.now()
    private var lingerTimer: Scheduled<Void>?
    /// Close once the response in progress ends (the server is stopping).
    private var closeAfterResponse = false

    init(core: ServerCore) {
        self.core = core
    }

    // MARK: - Connection events

    func channelActive(context: ChannelHandlerContext) {
        armIdleTimer(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        lingerTimer?.cancel()
        if let playback {
            playback.cancel()
            finish(playback, error: ConnectionClosed())
        }
        playback = nil
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
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard case .idle = state else { return }
            receive(head, context: context)
        case .body(let part):
            switch state {
            case .receiving(let head, var body):
                state = .idle  // no copy of the body while it grows
                if body.readableBytes + part.readableBytes > core.configuration.maximumRequestBodySize {
                    reject(head, context: context)
                    return
                }
                var part = part
                body.writeBuffer(&part)
                state = .receiving(head: head, body: body)
            default:
                break
            }
        case .end:
            switch state {
            case .receiving(let head, let body):
                state = .responding
                respond(to: head, body: body, context: context)
            case .rejecting:
                close(context: context)
            default:
                break
            }
        }
    }

    private func receive(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let limit = core.configuration.maximumRequestBodySize
        let declared = head.headers.first(name: "content-length").flatMap { Int($0) }
        let expectsContinue = head.headers[canonicalForm: "expect"].contains { $0.lowercased() == "100-continue" }
        if let declared, declared > limit {
            if expectsContinue {
                // The client waits for 100 Continue before sending the body: it never sends it.
                state = .rejecting
                sendTooLarge(head, declared: declared, context: context, thenClose: true)
            } else {
                reject(head, context: context)
            }
            return
        }
        if expectsContinue {
            context.writeAndFlush(
                wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
        }
        state = .receiving(head: head, body: context.channel.allocator.buffer(capacity: min(declared ?? 0, 1 << 20)))
    }

    /// Answers 413 and reads the rest of the body (dropping it) before closing, so that the client reads the
    /// answer rather than a reset connection; at most a few seconds.
    private func reject(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        state = .rejecting
        let declared = head.headers.first(name: "content-length").flatMap { Int($0) }
        sendTooLarge(head, declared: declared, context: context, thenClose: false)
        lingerTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(3)) { [self] in
            close(context: context)
        }
    }

    private func sendTooLarge(_ head: HTTPRequestHead, declared: Int?, context: ChannelHandlerContext, thenClose: Bool)
    {
        let limit = core.configuration.maximumRequestBodySize
        let size = declared.map { "\($0) bytes" } ?? "more than \(limit) bytes"
        let text =
            "The request body (\(size)) is larger than this server accepts (\(limit) bytes). Send a smaller "
            + "body, or raise HTTPStubServer.Configuration.maximumRequestBodySize.\n"
        core.logger.info("\(head.method.rawValue) \(head.uri) → 413 body too large (\(size))")
        writeSimple(status: .payloadTooLarge, text: text, version: head.version, close: true, context: context)
        if thenClose {
            context.channel.eventLoop.assumeIsolated().execute { [self] in close(context: context) }
        }
    }

    // MARK: - Answering

    private func respond(to head: HTTPRequestHead, body: ByteBuffer, context: ChannelHandlerContext) {
        if let admin = core.admin.withLockedValue({ $0 }), Self.isAdminTarget(head.uri) {
            respondAdmin(admin, head: head, body: body, context: context)
            return
        }
        let receivedAt = NIODeadline.now()
        let received = ContinuousClock.now
        let request: HTTPIncomingRequest
        do {
            request = try IncomingRequestBuilder.make(
                head, body: body, authority: core.authority.withLockedValue { $0 })
        } catch {
            let text =
                "The request target \(head.uri) cannot be read as a URL: \(error). Send an origin-form target "
                + "such as /path?query.\n"
            core.logger.info("\(head.method.rawValue) \(head.uri) → 400 \(error)")
            writeSimple(status: .badRequest, text: text, version: head.version, close: true, context: context)
            close(context: context)
            return
        }
        let (decision, entry) = core.stubber.decide(request, via: .server, received: received)
        if core.admin.withLockedValue({ $0 != nil }), let address = context.channel.remoteAddress?.ipAddress {
            core.recordClient(address, entry: entry)
        }
        if core.logger.logLevel <= .debug {
            let headers = request.headers.map { "\($0.name): \($0.value)" }.joined(separator: "; ")
            core.logger.debug(
                "#\(entry) \(request.method) \(request.url.absoluteString) headers: \(headers); body: \(request.body?.count ?? 0) bytes"
            )
            if case .unmatched(let report) = decision {
                core.logger.debug("#\(entry) \(report.description)")
            }
        }
        let playback = Playback(
            requestHead: head, request: request, entry: entry, receivedAt: receivedAt, received: received)
        if let plan = decision.plan, let stubProxy = plan.proxy {
            // A proxying stub: forwarded once its delay has passed.
            self.playback = playback
            let delay = plan.responseDeadline + core.globalDelay.withLockedValue { $0 }
            let (seconds, attoseconds) = delay.components
            let start = receivedAt + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            playback.timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: start) { [self] in
                proxy(
                    head, body: body, request: request, via: stubProxy, playback: playback, recording: nil,
                    context: context)
            }
            return
        }
        if decision.plan == nil, let serverWide = core.proxy?.serverWide {
            // Unmatched or let through, with an upstream: forwarded (and recorded, when a recording let it through).
            var recording: HTTPRecording?
            if case .passThrough(.recording(let attached)) = decision { recording = attached }
            self.playback = playback
            proxy(
                head, body: body, request: request, via: serverWide, playback: playback, recording: recording,
                context: context)
            return
        }
        switch decision {
        case .stub(let plan):
            playback.prepare(plan, core: core)
        case .unmatched(let report):
            playback.prepareText(
                status: .notFound,
                text: "Request was not matched\n=======================\n\n\(report.description)\n",
                outcome: "unmatched")
        case .passThrough(let reason):
            let why =
                switch reason {
                case .ignored(let rule): "\(rule) lets it through to the network"
                case .optIn: "the stubber is in opt-in mode and no stub matches it"
                case .recording(let recording): "the stubber records it (\(recording))"
                }
            playback.prepareText(
                status: .badGateway,
                text: "The request is not stubbed: \(why). This server has no upstream to pass it to: stub the "
                    + "request, remove the ignore rule, or give the server an upstream (--proxy URL).\n",
                outcome: "not stubbed (no upstream)")
        }
        self.playback = playback
        advance(context: context)
    }

    /// Forwards a request to the upstream and streams the answer to the client as it arrives; a recording
    /// keeps the exchange when it ends.
    private func proxy(
        _ head: HTTPRequestHead, body: ByteBuffer, request: HTTPIncomingRequest, via stubProxy: HTTPStubProxy,
        playback: Playback, recording: HTTPRecording?, context: ChannelHandlerContext
    ) {
        guard let proxy = core.proxy, self.playback === playback else { return }
        let target = UpstreamProxy.target(for: head, via: stubProxy)
        playback.prepareProxied(outcome: recording == nil ? "proxied to \(target)" : "recorded from \(target)")
        let bound = NIOLoopBound((handler: self, context: context, playback: playback), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        // The recording keeps the exchange whatever becomes of the client's connection (it may have all it
        // needs, and close, before the upstream's end arrives).
        let received = NIOLockedValueBox((status: 0, headers: [(name: String, value: String)](), body: Data()))
        proxy.forward(
            head, body: body, to: target, adding: stubProxy.additionalHeaders, identityEncoding: recording != nil
        ) { event in
            if let recording {
                switch event {
                case .head(let status, let headers):
                    received.withLockedValue {
                        $0.status = Int(status.code)
                        $0.headers = headers.map { (name: $0.name, value: $0.value) }
                    }
                case .body(let part):
                    received.withLockedValue { $0.body.append(contentsOf: part.readableBytesView) }
                case .end:
                    let exchange = received.withLockedValue { $0 }
                    recording.add(request, status: exchange.status, headers: exchange.headers, body: exchange.body)
                case .failed(let error):
                    recording.addFailure(request, reason: "\(error)")
                }
            }
            eventLoop.execute {
                let (handler, context, playback) = bound.value
                handler.upstream(event, playback: playback, request: request, context: context)
            }
        }
    }

    private func upstream(
        _ event: UpstreamEvent, playback: Playback, request: HTTPIncomingRequest, context: ChannelHandlerContext
    ) {
        guard !playback.isFinished, self.playback === playback else { return }
        switch event {
        case .head(let status, let headers):
            playback.receiveUpstreamHead(status: status, headers: headers)
        case .body(let part):
            playback.receiveUpstreamBody(part)
        case .end:
            playback.upstreamEnded()
        case .failed(let error):
            if playback.headWritten {
                // The client has part of the answer: it sees the connection end early, as the upstream's did.
                finish(playback, error: error)
                self.playback = nil
                close(context: context)
                return
            }
            playback.prepareText(
                status: .badGateway,
                text: "The upstream did not answer \(request.method) \(request.url.path): \(error).\n",
                outcome: "upstream failed")
        }
        advance(context: context)
    }

    /// Whether a request target is the admin API's: `/__admin` or under it.
    static func isAdminTarget(_ target: String) -> Bool {
        target == "/__admin" || target.hasPrefix("/__admin/") || target.hasPrefix("/__admin?")
    }

    /// Answers an admin API request: off the event loop (saving and resetting touch files), then back on it.
    private func respondAdmin(
        _ admin: AdminAPI, head: HTTPRequestHead, body: ByteBuffer, context: ChannelHandlerContext
    ) {
        var path = String(head.uri.dropFirst("/__admin".count))
        var query: [String: String] = [:]
        if let mark = path.firstIndex(of: "?") {
            for item in URLComponents(string: "http://x/" + path[mark...])?.queryItems ?? [] {
                query[item.name] = item.value ?? ""
            }
            path = String(path[..<mark])
        }
        var headers = StuntDouble.HTTPHeaders()
        for (name, value) in head.headers {
            headers.add(name: .init(rawValue: name), value: value)
        }
        let request = AdminRequest(
            method: head.method.rawValue, path: path.removingPercentEncoding ?? path, query: query, headers: headers,
            body: Data(body.readableBytesView))
        let answered = context.eventLoop.makePromise(of: AdminResponse.self)
        answered.completeWithTask { await admin.handle(request) }
        answered.futureResult.assumeIsolated().whenSuccess { [self] response in
            guard case .responding = state else { return }
            let incoming = try? HTTPIncomingRequest(method: .get, url: URL(string: "http://admin/")!)
            let playback = Playback(
                requestHead: head, request: incoming!, entry: 0, receivedAt: .now(), received: .now)
            playback.isFinished = true  // not in the journal: WireMock does not journal admin calls
            playback.prepareRaw(
                status: HTTPResponseStatus(statusCode: response.status), contentType: response.contentType,
                body: response.body, headers: response.headers, outcome: "admin")
            core.logger.info("\(head.method.rawValue) \(head.uri) → \(response.status) admin")
            self.playback = playback
            advance(context: context)
        }
    }

    /// Writes whatever of the response is due, then waits for the next deadline or for the socket to take
    /// more (backpressure): never more than one chunk ahead of what the socket accepts.
    private func advance(context: ChannelHandlerContext) {
        guard let playback else { return }
        let now = NIODeadline.now()
        if case .failure(let error, let deadline) = playback.kind {
            if now < deadline {
                playback.timer = schedule(at: deadline, context: context)
                return
            }
            // What a client sees of a network error: the connection ends without a response.
            finish(playback, error: error)
            self.playback = nil
            close(context: context)
            return
        }
        if case .fault(let fault, let error, let deadline) = playback.kind {
            if now < deadline {
                playback.timer = schedule(at: deadline, context: context)
                return
            }
            finish(playback, error: error)
            self.playback = nil
            commit(fault, context: context)
            return
        }
        if !playback.headWritten {
            guard playback.headReady else { return }  // a proxied response: when the upstream answers
            if now < playback.headDeadline {
                playback.timer = schedule(at: playback.headDeadline, context: context)
                return
            }
            context.write(wrapOutboundOut(.head(playback.responseHead)), promise: nil)
            playback.headWritten = true
        }
        while playback.nextChunk < playback.chunks.count {
            let chunk = playback.chunks[playback.nextChunk]
            if now < chunk.deadline {
                context.flush()
                playback.timer = schedule(at: chunk.deadline, context: context)
                return
            }
            if !context.channel.isWritable {
                context.flush()
                playback.isWaitingForWritability = true
                return
            }
            let buffer = context.channel.allocator.buffer(bytes: playback.body[chunk.range])
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            playback.bytesWritten += chunk.range.count
            playback.nextChunk += 1
        }
        if !playback.bodyComplete {
            // A proxied body: more when the upstream sends it.
            context.flush()
            return
        }
        // The next pipelined request may arrive while `.end` is written: be ready for it first.
        self.playback = nil
        let staysOpen = playback.keepAlive && !closeAfterResponse
        state = staysOpen ? .idle : .finishing
        // Idle from now: an idle timer due this instant (armed while the response was in progress) must not
        // close the connection under the response's last bytes.
        idleSince = .now()
        let ended = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: ended)
        ended.futureResult.assumeIsolated().whenComplete { [self] result in
            switch result {
            case .success:
                finish(playback, error: nil)
                if !staysOpen {
                    close(context: context)
                } else if case .idle = state {
                    idleSince = .now()
                }
            case .failure(let error):
                finish(playback, error: error)
                close(context: context)
            }
        }
    }

    /// Breaks the connection as a faulty server would (WireMock's faults): bytes go straight to the socket,
    /// past the HTTP encoder.
    private func commit(_ fault: HTTPStubFault, context: ChannelHandlerContext) {
        state = .finishing
        switch fault {
        case .connectionResetByPeer:
            // SO_LINGER with a zero timeout: close() sends a reset instead of a FIN.
            guard let provider = context.channel as? any SocketOptionProvider else {
                close(context: context)
                return
            }
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { [self] _ in
                close(context: context)
            }
        case .malformedResponseChunk, .randomDataThenClose:
            var bytes = ByteBuffer()
            if fault == .malformedResponseChunk {
                bytes.writeString("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            }
            bytes.writeBytes(Self.garbage)
            guard let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
            else {
                close(context: context)
                return
            }
            encoder.writeAndFlush(NIOAny(bytes)).assumeIsolated().whenComplete { [self] _ in
                close(context: context)
            }
        default:
            close(context: context)
        }
    }

    /// What a faulty server sends instead of a response: 1,024 bytes that are neither HTTP nor a chunk, the
    /// same every time (a linear congruential sequence), so that tests behave the same on every run.
    static let garbage: [UInt8] = {
        var state: UInt32 = 0x5EED
        return (0..<1024).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24) | 0x80
        }
    }()

    private func schedule(at deadline: NIODeadline, context: ChannelHandlerContext) -> Scheduled<Void> {
        context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            advance(context: context)
        }
    }

    /// Records the end of a response in the journal and the log.
    private func finish(_ playback: Playback, error: (any Error)?) {
        guard !playback.isFinished else { return }
        playback.isFinished = true
        let duration = ContinuousClock.now - playback.received
        core.stubber.complete(
            playback.entry, after: duration, error: error, statusCode: playback.statusCode,
            bodyByteCount: playback.bytesWritten)
        guard core.logger.logLevel <= .info else { return }
        let tenths = (duration.components.seconds * 10_000 + duration.components.attoseconds / 100_000_000_000_000)
        let milliseconds = "\(tenths / 10).\(tenths % 10)"
        let status = playback.statusCode.map(String.init) ?? "no response"
        var line = "\(playback.requestHead.method.rawValue) \(playback.requestHead.uri) → \(status) "
        line += "\(playback.outcome) \(milliseconds) ms"
        if let error { line += " (\(error))" }
        core.logger.info("\(line)")
    }

    // MARK: - Helpers

    private func writeSimple(
        status: HTTPResponseStatus, text: String, version: HTTPVersion, close: Bool, context: ChannelHandlerContext
    ) {
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(text.utf8.count))
        if close { headers.add(name: "Connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: text)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// Closes the connection once it has been idle (no request in progress) for the idle timeout: a timer
    /// that looks again when it would have been due.
    private func armIdleTimer(context: ChannelHandlerContext) {
        let timeout = core.configuration.idleTimeout
        let amount = TimeAmount.nanoseconds(
            timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: idleSince + amount) { [self] in
            guard case .idle = state else {
                // A request is in progress: look again a whole timeout after it ends at the earliest.
                idleSince = .now()
                armIdleTimer(context: context)
                return
            }
            if NIODeadline.now() >= idleSince + amount {
                core.logger.debug("closing a connection idle for \(timeout)")
                close(context: context)
            } else {
                armIdleTimer(context: context)
            }
        }
    }

    private func close(context: ChannelHandlerContext) {
        if case .closed = state { return }
        state = .closed
        idleTimer?.cancel()
        lingerTimer?.cancel()
        context.close(promise: nil)
    }
}

/// The error a journal entry records when the client closed the connection before its response ended.
struct ConnectionClosed: Error, CustomStringConvertible {
    var description: String { "the client closed the connection before the response ended" }
}
