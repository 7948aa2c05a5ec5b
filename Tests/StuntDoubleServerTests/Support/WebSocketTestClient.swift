import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOWebSocket

/// A WebSocket client on SwiftNIO's frame codec: it sends the opening handshake itself, checks the `101`, then
/// speaks frames (masked, as a client must) and keeps every frame the server sends.
final class WebSocketTestClient: Sendable {
    private let channel: any Channel
    private let inbox: Inbox

    /// What came back: frames, and whether the connection closed.
    final class Inbox: ChannelInboundHandler, Sendable {
        typealias InboundIn = WebSocketFrame
        let state = NIOLockedValueBox((frames: [WebSocketFrame](), closed: false))

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            state.withLockedValue { $0.frames.append(frame) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            state.withLockedValue { $0.closed = true }
        }
    }

    /// Reads the handshake's answer; then hands the bytes after it to the frame decoder.
    private final class Handshake: ChannelInboundHandler, RemovableChannelHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let head = NIOLockedValueBox<(text: String?, buffer: ByteBuffer)>((nil, ByteBuffer()))
        let inbox: Inbox

        init(inbox: Inbox) { self.inbox = inbox }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var part = unwrapInboundIn(data)
            let leftover: ByteBuffer? = head.withLockedValue { head in
                head.buffer.writeBuffer(&part)
                let view = String(buffer: head.buffer)
                guard let end = view.range(of: "\r\n\r\n") else { return nil }
                let length = view.utf8.distance(from: view.utf8.startIndex, to: end.upperBound)
                head.text = String(view[..<end.lowerBound])
                head.buffer.moveReaderIndex(forwardBy: length)
                return head.buffer
            }
            guard let leftover else { return }
            let operations = context.pipeline.syncOperations
            try? operations.addHandlers(
                [ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 64 << 20)), WebSocketFrameEncoder(), inbox],
                position: .after(context.handler))
            // The frames that came with the answer (a greeting), to the frame decoder before this handler leaves:
            // once it has left, its context reaches nothing.
            if leftover.readableBytes > 0 { context.fireChannelRead(NIOAny(leftover)) }
            operations.removeHandler(context: context, promise: nil)
        }
    }

    private init(channel: any Channel, inbox: Inbox) {
        self.channel = channel
        self.inbox = inbox
    }

    /// Connects to `path` on a server and completes the opening handshake.
    /// - Returns: The client, and the server's handshake answer (its status line and headers).
    /// With `trusting`, over TLS (`wss://`), trusting the certificates of that PEM file; `headers` go in the
    /// opening request.
    static func connect(
        to baseURL: URL, path: String, headers: [(String, String)] = [], trusting authority: URL? = nil
    ) async throws -> (
        client: WebSocketTestClient, head: String
    ) {
        let inbox = Inbox()
        let handshake = Handshake(inbox: inbox)
        let tlsContext: NIOSSLContext? = try authority.map { authority in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(authority.path))
            tls.applicationProtocols = ["http/1.1"]
            return try NIOSSLContext(configuration: tls)
        }
        let host = baseURL.host!
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(120))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tlsContext {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: tlsContext, serverHostname: host == "127.0.0.1" ? nil : host))
                    }
                    try channel.pipeline.syncOperations.addHandler(handshake)
                }
            }
            .connect(host: host, port: baseURL.port!).get()
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let request =
            "GET \(path) HTTP/1.1\r\nHost: \(baseURL.host!):\(baseURL.port!)\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
            + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
        try await channel.writeAndFlush(ByteBuffer(string: request))
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let text = handshake.head.withLockedValue({ $0.text }) {
                return (WebSocketTestClient(channel: channel, inbox: inbox), text)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        try? await channel.close()
        throw CancellationError()
    }

    /// Sends a frame, masked.
    func send(_ opcode: WebSocketOpcode, _ data: ByteBuffer, fin: Bool = true) async throws {
        let frame = WebSocketFrame(fin: fin, opcode: opcode, maskKey: .random(), data: data)
        try await channel.writeAndFlush(frame)
    }

    /// Sends a text message.
    func send(text: String) async throws {
        try await send(.text, ByteBuffer(string: text))
    }

    /// Waits until `count` frames came (or the connection closed, or a minute passed); returns them all.
    func frames(count: Int) async throws -> [WebSocketFrame] {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let (frames, closed) = inbox.state.withLockedValue { ($0.frames, $0.closed) }
            if frames.count >= count || closed { return frames }
            try await Task.sleep(for: .milliseconds(5))
        }
        return inbox.state.withLockedValue { $0.frames }
    }

    /// Whether the server closed the connection.
    var isClosed: Bool { inbox.state.withLockedValue { $0.closed } }

    func close() async {
        try? await channel.close()
    }
}

extension WebSocketFrame {
    /// A text frame's text.
    var text: String { String(buffer: unmaskedData) }

    /// A close frame's code.
    var closeCode: Int? {
        var data = unmaskedData
        return data.readInteger(as: UInt16.self).map(Int.init)
    }
}
