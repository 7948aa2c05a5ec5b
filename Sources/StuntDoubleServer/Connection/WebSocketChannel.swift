import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import StuntDouble

/// The server's WebSocket upgrade (RFC 6455): a `GET` with `Upgrade: websocket` on any path becomes a channel that
/// the stubber's message stubs (``HTTPMessageStub``) answer, as WireMock accepts upgrades on any path.
enum WebSocketUpgrade {
    /// Whether a request head asks for a WebSocket.
    static func isRequested(by head: HTTPRequestHead) -> Bool {
        // Asked of every request head: the usual one (no Upgrade) is told apart with one look and no array.
        guard head.method == .GET, let upgrade = head.headers.first(name: "upgrade") else { return false }
        return upgrade.lowercased().contains("websocket")
            && head.headers["connection"].contains { $0.lowercased().contains("upgrade") }
            && !(head.headers.first(name: "sec-websocket-key") ?? "").isEmpty
            && head.headers.first(name: "sec-websocket-version") == "13"
    }

    /// An upgrade the server takes: the request stubs see (`ws://`, `wss://`), the accept key, and the stubber.
    struct Accepted {
        let request: HTTPIncomingRequest
        let accept: String
        let stubber: HTTPStubber
        let logger: Logger
        let limits: HTTPStubServer.Configuration.WebSocketLimits
    }

    /// The upgrade a valid request asks for, or `nil` for one that is not valid (it is answered as HTTP).
    static func accept(_ head: HTTPRequestHead, core: ServerCore, isSecure: Bool) -> Accepted? {
        guard let key = head.headers.first(name: "sec-websocket-key"),
            let request = try? IncomingRequestBuilder.make(
                head, body: ByteBuffer(), declaresBody: false,
                authority: (isSecure ? core.httpsAuthority : core.authority).withLockedValue { $0 },
                scheme: isSecure ? "wss" : "ws")
        else { return nil }
        let digest = sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)
        return Accepted(
            request: request, accept: Data(digest).base64EncodedString(), stubber: core.stubber, logger: core.logger,
            limits: core.configuration.webSocketLimits)
    }

    /// Answers `101`, then replaces the HTTP handler (`context`'s) with WebSocket frames and a
    /// ``WebSocketChannelHandler``; `leftover`, the bytes the client sent after its request (its first frames), go
    /// to the frame decoder. Only an HTTP/1.1 connection upgrades (an HTTP/2 stream has no bytes of its own).
    static func upgrade(_ accepted: Accepted, leftover: ByteBuffer, context: ChannelHandlerContext) {
        let response =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(accepted.accept)\r\n\r\n"
        context.writeAndFlush(NIOAny(ByteBuffer(string: response)), promise: nil)
        let operations = context.pipeline.syncOperations
        let limits = accepted.limits
        do {
            try operations.addHandlers(
                [
                    ByteToMessageHandler(
                        WebSocketFrameDecoder(
                            maxFrameSize: max(limits.maximumTextMessageSize, limits.maximumBinaryMessageSize, 125))),
                    WebSocketFrameEncoder(),
                    IdleStateHandler(allTimeout: TimeAmount(limits.idleTimeout)),
                    WebSocketChannelHandler(stubber: accepted.stubber, request: accepted.request, limits: limits),
                ], position: .after(context.handler))
            if leftover.readableBytes > 0 { context.fireChannelRead(NIOAny(leftover)) }
            operations.removeHandler(context: context, promise: nil)
        } catch {
            accepted.logger.debug("WebSocket upgrade failed: \(error)")
            context.close(promise: nil)
        }
    }
}

/// A WebSocket channel on the server: frames from the client are the stubber's messages on a channel; what the
/// stubs send goes out as frames; pings are answered; a close is echoed. A message larger than the server takes
/// is refused with close code 1009; a channel with no frame either way for the idle timeout is closed with 1001,
/// as Jetty closes WireMock's.
final class WebSocketChannelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let stubber: HTTPStubber
    private let request: HTTPIncomingRequest
    private var channel: HTTPMessageChannel?
    /// A fragmented message being put together: its opcode and bytes.
    private var fragments: (opcode: WebSocketOpcode, data: ByteBuffer)?
    private var closing = false
    private let limits: HTTPStubServer.Configuration.WebSocketLimits

    init(stubber: HTTPStubber, request: HTTPIncomingRequest, limits: HTTPStubServer.Configuration.WebSocketLimits) {
        self.stubber = stubber
        self.request = request
        self.limits = limits
    }

    /// The largest message of a kind the server takes.
    private func limit(for opcode: WebSocketOpcode) -> Int {
        opcode == .text ? limits.maximumTextMessageSize : limits.maximumBinaryMessageSize
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            close(code: 1001, reason: "Connection Idle Timeout", context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        channel = stubber.openChannel(request) { event in
            loop.execute {
                let (handler, context) = bound.value
                switch event {
                case .message(let message): handler.send(message, context: context)
                case .close(let code, let reason): handler.close(code: code, reason: reason, context: context)
                }
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let channel { stubber.closeChannel(channel) }
        channel = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        var payload = frame.unmaskedData
        switch frame.opcode {
        case .text, .binary:
            guard payload.readableBytes <= limit(for: frame.opcode) else {
                return close(code: 1009, reason: "message too big", context: context)
            }
            if frame.fin {
                deliver(frame.opcode, payload)
            } else {
                fragments = (frame.opcode, payload)
            }
        case .continuation:
            guard var pending = fragments else { return close(code: 1002, reason: "", context: context) }
            pending.data.writeBuffer(&payload)
            guard pending.data.readableBytes <= limit(for: pending.opcode) else {
                return close(code: 1009, reason: "message too big", context: context)
            }
            if frame.fin {
                fragments = nil
                deliver(pending.opcode, pending.data)
            } else {
                fragments = pending
            }
        case .ping:
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: payload)), promise: nil)
        case .connectionClose:
            // The client's close: echoed with its code, then the connection ends.
            if !closing {
                closing = true
                let connection = context.channel
                context.writeAndFlush(
                    wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload))
                ).whenComplete { _ in connection.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? NIOWebSocketError, case .invalidFrameLength = error {
            close(code: 1009, reason: "message too big", context: context)
        } else {
            close(code: 1002, reason: "", context: context)
        }
    }

    private func deliver(_ opcode: WebSocketOpcode, _ payload: ByteBuffer) {
        guard let channel, !closing else { return }
        let data = Data(payload.readableBytesView)
        stubber.receive(opcode == .text ? .text(String(decoding: data, as: UTF8.self)) : .binary(data), on: channel)
    }

    private func send(_ message: HTTPStubMessage, context: ChannelHandlerContext) {
        guard !closing else { return }
        let frame: WebSocketFrame
        switch message {
        case .text(let text): frame = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
        case .binary(let data): frame = WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(bytes: data))
        }
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    private func close(code: Int, reason: String, context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        if let channel { stubber.closeChannel(channel) }
        var data = ByteBuffer()
        data.writeInteger(UInt16(truncatingIfNeeded: code))
        data.writeString(reason)
        let connection = context.channel
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)))
            .whenComplete { _ in connection.close(promise: nil) }
    }
}
