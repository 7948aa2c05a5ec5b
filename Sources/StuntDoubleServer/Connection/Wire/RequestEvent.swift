import NIOCore
import NIOHTTP1

/// A part of a request as a connection's handler reads it, whatever the protocol: from an HTTP/1.1 connection's
/// bytes (`HTTP1RequestParser`), or from the parts SwiftNIO's HTTP/2 stream codec hands an HTTP/2 stream.
enum RequestEvent: Equatable, Sendable {
    /// A head, with what the server must know of it before the body (gathered as it was read).
    case head(HTTPRequestHead, HeadFacts)
    case body(ByteBuffer)
    case end
    /// The bytes are not a request: answered with `status` and `text` in their turn, then the connection closes.
    /// Nothing more is read.
    case malformed(status: HTTPResponseStatus, text: String)

    /// An HTTP/2 stream's part (trailers are dropped: no stub reads them).
    init(_ part: HTTPServerRequestPart) {
        switch part {
        case .head(let head): self = .head(head, HeadFacts(head))
        case .body(let bytes): self = .body(bytes)
        case .end: self = .end
        }
    }
}

/// Takes an HTTP/2 stream's request parts out of the pipeline's type-erased values, for a handler whose own input
/// is an HTTP/1.1 connection's bytes (one handler class serves both, with no generic parameter: a generic handler
/// looked its type metadata up at run time on every request).
final class StreamPartUnwrapper: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
}
