import NIOCore
import NIOHTTP1

/// HTTP/2 (negotiated by ALPN on the HTTPS listener): each stream runs the same `StubRequestHandler` as an
/// HTTP/1.1 connection, behind NIO's HTTP/2-to-HTTP/1 codec, and this handler turns the HTTP/1.1 bytes the stub
/// handler writes (`ResponseWire`) into the response parts an HTTP/2 stream sends: the head (without the
/// fields HTTP/2 forbids: `Connection`, `Keep-Alive`, `Transfer-Encoding`, `Upgrade`), the body as it comes
/// (chunks unwrapped), the end. What is not an HTTP/1.1 response (a fault's random bytes) resets the stream.
final class HTTP1WireToStreamParts: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        /// Waiting for a response head (after a `100 Continue`, the final one).
        case head
        /// `Content-Length` bytes still to come.
        case body(remaining: Int)
        /// A chunk's size line.
        case chunkSize
        /// A chunk's bytes still to come, then its CRLF.
        case chunk(remaining: Int)
        case chunkEnd
        /// The last chunk's empty trailer line.
        case trailer
        /// A body that ends with the stream (the stub handler closes it).
        case untilClose
        /// The response is complete.
        case done
        /// The bytes were not a response: the stream was reset.
        case broken
    }

    /// Fields an HTTP/2 message must not carry (RFC 9113, section 8.2.2).
    static let connectionFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade",
    ]

    private var state = State.head
    private var pending = ByteBuffer()
    private var isHeadRequest = false
    /// The promises of writes whose bytes are not parts yet: kept by the next part written.
    private var waiting: [EventLoopPromise<Void>] = []
    /// The last part written: a write whose bytes made no part of their own (an empty one, a chunk's CRLF) is
    /// done when it is.
    private var lastWrite: EventLoopFuture<Void>?
    /// The largest response head taken (a stub's headers can be long; HTTP/1.1 serves them too).
    static let headLimit = 1 << 20

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            isHeadRequest = head.method == .HEAD
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var bytes = unwrapOutboundIn(data)
        if pending.readableBytes == 0 {
            // Taken as it is: its body bytes become DATA frames as slices of it, with no copy. (Appending every
            // write to one buffer kept a whole body in memory per stream: 64 MiB bodies to a few slow HTTP/2
            // clients took gigabytes.)
            pending = bytes
        } else {
            pending.writeBuffer(&bytes)
        }
        if let promise { waiting.append(promise) }
        translate(context: context)
        if pending.readableBytes == 0 {
            // Let go of the storage the frames sliced.
            pending = ByteBuffer()
        }
        switch state {
        case .broken:
            failWaiting()
        case .done:
            // Nothing more will be sent (bytes after a complete response are dropped): done once it is.
            for promise in waiting { context.eventLoop.makeSucceededVoidFuture().cascade(to: promise) }
            waiting.removeAll()
        default:
            if pending.readableBytes == 0, !waiting.isEmpty {
                // Every byte is taken, and none is waiting for a part to come.
                for promise in waiting {
                    if let lastWrite { lastWrite.cascade(to: promise) } else { promise.succeed() }
                }
                waiting.removeAll()
            }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        failWaiting()
    }

    private func failWaiting() {
        for promise in waiting { promise.fail(ChannelError.ioOnClosedChannel) }
        waiting.removeAll()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if case .untilClose = state {
            // The body ended with the connection: on a stream, with the stream's end.
            state = .done
            emit(.end(nil), context: context)
            context.flush()
        }
        context.close(mode: mode, promise: promise)
    }

    private func emit(_ part: HTTPServerResponsePart, context: ChannelHandlerContext) {
        let promise = context.eventLoop.makePromise(of: Void.self)
        context.write(wrapOutboundOut(part), promise: promise)
        for waiter in waiting { promise.futureResult.cascade(to: waiter) }
        waiting.removeAll()
        lastWrite = promise.futureResult
    }

    /// Turns as much of the pending bytes into parts as they hold.
    private func translate(context: ChannelHandlerContext) {
        while pending.readableBytes > 0 {
            switch state {
            case .head:
                guard let head = takeHead() else {
                    if pending.readableBytes > Self.headLimit || !looksLikeResponse() { return reset(context: context) }
                    return
                }
                guard let (status, headers, framing) = head else { return reset(context: context) }
                emit(.head(HTTPResponseHead(version: .http2, status: status, headers: headers)), context: context)
                switch framing {
                case .informational: state = .head
                case .empty:
                    emit(.end(nil), context: context)
                    state = .done
                case .length(let length): state = .body(remaining: length)
                case .chunked: state = .chunkSize
                case .untilClose: state = .untilClose
                }
            case .body(let remaining):
                let count = min(remaining, pending.readableBytes)
                if let slice = pending.readSlice(length: count) { emit(.body(.byteBuffer(slice)), context: context) }
                if remaining == count {
                    emit(.end(nil), context: context)
                    state = .done
                } else {
                    state = .body(remaining: remaining - count)
                }
            case .chunkSize:
                guard let line = takeLine() else { return }
                let size = line.split(separator: ";").first.flatMap {
                    Int($0.trimmingCharacters(in: .whitespaces), radix: 16)
                }
                guard let size, size >= 0 else { return reset(context: context) }
                state = size == 0 ? .trailer : .chunk(remaining: size)
            case .chunk(let remaining):
                let count = min(remaining, pending.readableBytes)
                if let slice = pending.readSlice(length: count) { emit(.body(.byteBuffer(slice)), context: context) }
                state = remaining == count ? .chunkEnd : .chunk(remaining: remaining - count)
            case .chunkEnd:
                guard let line = takeLine() else { return }
                guard line.isEmpty else { return reset(context: context) }
                state = .chunkSize
            case .trailer:
                guard let line = takeLine() else { return }
                if line.isEmpty {
                    emit(.end(nil), context: context)
                    state = .done
                }
            case .untilClose:
                if let slice = pending.readSlice(length: pending.readableBytes) {
                    emit(.body(.byteBuffer(slice)), context: context)
                }
            case .done, .broken:
                pending.clear()
                return
            }
        }
    }

    private enum Framing {
        case informational, empty, length(Int), chunked, untilClose
    }

    /// The response head at the start of the pending bytes: `nil` while it is incomplete; `.some(nil)` when the
    /// bytes are not one.
    private func takeHead() -> (HTTPResponseStatus, HTTPHeaders, Framing)?? {
        let view = pending.readableBytesView
        guard let end = view.firstRange(of: [13, 10, 13, 10]) else { return nil }
        let text = String(decoding: view[view.startIndex..<end.lowerBound], as: UTF8.self)
        pending.moveReaderIndex(forwardBy: end.upperBound - view.startIndex)
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let code = Int(statusLine[1]) else {
            return .some(nil)
        }
        let status = HTTPResponseStatus(
            statusCode: code, reasonPhrase: statusLine.count > 2 ? String(statusLine[2]) : "")
        var headers = HTTPHeaders()
        var length: Int?
        var chunked = false
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return .some(nil) }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let lowered = name.lowercased()
            if lowered == "content-length" {
                guard let value = Int(value), value >= 0 else { return .some(nil) }
                length = value
            }
            if lowered == "transfer-encoding" { chunked = value.lowercased().contains("chunked") }
            if !Self.connectionFields.contains(lowered) { headers.add(name: name, value: value) }
        }
        // HTTP/2 has no 101 (RFC 9113, section 8.6): no stub answers with one, and it cannot go on a stream.
        if code == 101 { return .some(nil) }
        if code < 200 { return .some((status, headers, .informational)) }
        if isHeadRequest || code == 204 || code == 304 { return .some((status, headers, .empty)) }
        // As RFC 9112, section 6.3: chunked wins over a length.
        if chunked { return .some((status, headers, .chunked)) }
        if let length { return .some((status, headers, length == 0 ? .empty : .length(length))) }
        return .some((status, headers, .untilClose))
    }

    /// A CRLF-ended line at the start of the pending bytes (without its CRLF), or `nil` while incomplete.
    private func takeLine() -> String? {
        let view = pending.readableBytesView
        guard let end = view.firstRange(of: [13, 10]) else { return nil }
        let line = String(decoding: view[view.startIndex..<end.lowerBound], as: UTF8.self)
        pending.moveReaderIndex(forwardBy: end.upperBound - view.startIndex)
        return line
    }

    /// Whether the pending bytes can still become a status line.
    private func looksLikeResponse() -> Bool {
        let prefix = Array(pending.readableBytesView.prefix(7))
        return Array("HTTP/1.".utf8).starts(with: prefix) || prefix.starts(with: Array("HTTP/1.".utf8))
    }

    /// What is not a response resets the stream, as a broken connection would end an HTTP/1.1 exchange.
    private func reset(context: ChannelHandlerContext) {
        state = .broken
        pending.clear()
        failWaiting()
        context.close(promise: nil)
    }
}
