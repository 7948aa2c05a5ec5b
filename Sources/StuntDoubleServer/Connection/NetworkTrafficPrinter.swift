import Logging
import NIOCore

/// WireMock's `--print-all-network-traffic`: every connection's opening and closing, and the bytes it reads and
/// writes, logged as they pass (after TLS: the traffic as the client and the server meant it). Text is logged as
/// it is; bytes that are not UTF-8 (gzip, HTTP/2's frames) by their count. Only in a connection's pipeline when
/// asked for (`HTTPStubServer.Configuration.printsNetworkTraffic`).
final class NetworkTrafficPrinter: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let logger: Logger
    private var peer = "a client"

    /// Logs to `logger`, at `info` whatever its level (as WireMock prints traffic whatever its request logging).
    init(logger: Logger) {
        var logger = logger
        logger.logLevel = min(logger.logLevel, .info)
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        peer = context.remoteAddress.map { "\($0)" } ?? peer
        logger.info("Opened \(peer)")
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        logger.info("Closed \(peer)")
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        logger.info("Incoming bytes: \(Self.text(of: unwrapInboundIn(data)))")
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .byteBuffer(let bytes): logger.info("Outgoing bytes: \(Self.text(of: bytes))")
        case .fileRegion(let region): logger.info("Outgoing bytes: \(region.readableBytes) bytes of a file")
        }
        context.write(data, promise: promise)
    }

    /// The bytes as text, or their count when they are not UTF-8.
    static func text(of bytes: ByteBuffer) -> String {
        String(validating: bytes.readableBytesView, as: UTF8.self) ?? "\(bytes.readableBytes) bytes, not UTF-8"
    }
}
