import NIOCore
import NIOHTTP1
import StuntDouble

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a connection's responses go on the wire, after the machines: what they hand over (a head, body pieces, an
/// end) is protocol-free, and the writer encodes it. On an HTTP/1.1 connection, as bytes
/// (`HTTP1ResponseEncoder`, chunk framing included); on an HTTP/2 stream, as the stream's response parts, which
/// SwiftNIO's HTTP/2 codec turns into frames. Nothing is parsed back.
enum ResponseWriter: Equatable, Sendable {
    case http1
    case http2

    /// Writes the parts of one write and flushes; `promise` (the write's that ends a response) completes once
    /// the last has gone out.
    func write(_ writes: borrowing ResponseWrites, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        switch self {
        case .http1: Self.writeHTTP1(writes, promise: promise, context: context)
        case .http2: Self.writeHTTP2(writes, promise: promise, context: context)
        }
    }

    private static func writeHTTP1(
        _ writes: borrowing ResponseWrites, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext
    ) {
        // Each buffer is written as it is made; the last of them with the flush and the promise.
        var last: ByteBuffer?
        HTTP1ResponseEncoder.encode(writes) { buffer in
            if let last { context.write(NIOAny(last), promise: nil) }
            last = buffer
        }
        context.writeAndFlush(NIOAny(last ?? ByteBuffer()), promise: promise)
    }

    private static func writeHTTP2(
        _ writes: borrowing ResponseWrites, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext
    ) {
        var last: HTTPServerResponsePart?
        func emit(_ part: HTTPServerResponsePart) {
            if let last { context.write(NIOAny(last), promise: nil) }
            last = part
        }
        if let head = writes.head {
            emit(.head(HTTPResponseHead(version: .http2, status: head.status, headers: head.headers)))
        }
        writes.forEachPiece { emit(.body(.byteBuffer($0))) }
        if writes.ends != nil { emit(.end(nil)) }
        if let last {
            context.writeAndFlush(NIOAny(last), promise: promise)
        } else {
            context.flush()
            promise?.succeed()
        }
    }

    /// Writes `100 Continue` and flushes.
    func writeContinue(context: ChannelHandlerContext) {
        switch self {
        case .http1:
            context.writeAndFlush(NIOAny(HTTP1ResponseEncoder.continueHead), promise: nil)
        case .http2:
            context.writeAndFlush(
                NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http2, status: .continue))),
                promise: nil)
        }
    }

    /// Writes a refusal of the server's own and flushes; `sent` runs once it has gone out (or could not).
    func write(_ refusal: Refusal, context: ChannelHandlerContext, then sent: @escaping ((any Error)?) -> Void) {
        let future: EventLoopFuture<Void>
        switch self {
        case .http1:
            future = context.writeAndFlush(NIOAny(HTTP1ResponseEncoder.refusal(refusal)))
        case .http2:
            var headers = NIOHTTP1.HTTPHeaders()
            headers.add(name: "content-type", value: "text/plain; charset=utf-8")
            headers.add(name: "content-length", value: String(refusal.text.utf8.count))
            context.write(
                NIOAny(
                    HTTPServerResponsePart.head(
                        HTTPResponseHead(version: .http2, status: refusal.status, headers: headers))),
                promise: nil)
            if refusal.sendsText {
                context.write(
                    NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: refusal.text)))), promise: nil)
            }
            future = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
        }
        future.assumeIsolated().whenComplete { result in
            if case .failure(let error) = result { sent(error) } else { sent(nil) }
        }
    }

    /// Breaks the connection as a faulty server would (WireMock's faults), then calls `close`. On an HTTP/2 stream
    /// every fault resets the stream: a stream has no bytes of its own to garble, and no socket to reset.
    func commit(_ fault: HTTPStubFault, context: ChannelHandlerContext, close: @escaping () -> Void) {
        guard self == .http1 else { return close() }
        switch fault {
        case .connectionResetByPeer:
            // SO_LINGER with a zero timeout: close() sends a reset instead of a FIN.
            guard let provider = context.channel as? any SocketOptionProvider else { return close() }
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in close() }
        case .malformedResponseChunk, .randomDataThenClose:
            var bytes = ByteBuffer()
            if fault == .malformedResponseChunk {
                bytes.writeString("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            }
            bytes.writeBytes(Self.garbage)
            context.writeAndFlush(NIOAny(bytes)).assumeIsolated().whenComplete { _ in close() }
        default:
            close()
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
}
