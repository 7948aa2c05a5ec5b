import Logging
import NIOCore
import NIOHTTP1

/// Answers a request that does not parse: `431` when its head is too large, `400` otherwise, with a line
/// saying what was wrong, then lets the decoder close the connection. Other connections never notice.
final class ProtocolErrorResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let logger: Logger
    /// A response has started and not ended: no error response can be sent then.
    private var responseInProgress = false

    init(logger: Logger) {
        self.logger = logger
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
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
        logger.info("malformed request → \(status.code): \(parserError)")
        if !responseInProgress {
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: String(text.utf8.count))
            headers.add(name: "Connection", value: "close")
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                promise: nil)
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: text)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        // The decoder closes the connection after this returns.
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code < 200: break
        case .head: responseInProgress = true
        case .body: break
        case .end: responseInProgress = false
        }
        context.write(data, promise: promise)
    }
}
