import Foundation
import NIOCore
import NIOHTTP1

/// How a response's body ends on the wire (RFC 9112, section 6.3; RFC 9113, section 8.1).
enum BodyFraming: Equatable, Sendable {
    /// No body may follow: 1xx, 204 and 304.
    case none
    /// `Content-Length` bytes.
    case length
    /// HTTP/1.1 chunks, the last of them empty.
    case chunked
    /// The connection's end (HTTP/1.0 without `Content-Length`).
    case untilClose
    /// The end of an HTTP/2 stream (its END_STREAM flag).
    case streamEnd
}

/// A response's head as the machines hand it to a connection's writer: the status and the header fields, framed
/// for the request's version (`frame(_:status:version:)`), and, for HTTP/1.x, the head's bytes when they were
/// encoded beforehand (a stub's usual head is encoded once and shared by every response it plays).
///
/// Immutable, so that one value serves every connection at once.
final class ResponseHead: Sendable {
    let status: HTTPResponseStatus
    /// The fields as sent: for HTTP/1.x with `Connection` as the connection needs; for HTTP/2 without the fields it
    /// forbids (the stream codec drops them).
    let headers: NIOHTTP1.HTTPHeaders
    let framing: BodyFraming
    let version: HTTPVersion
    /// The head as HTTP/1.x bytes (status line, fields, empty line), or `nil` for HTTP/2.
    let encoded: ByteBuffer?

    /// A head for `version`, encoded now when the version is HTTP/1.x.
    init(status: HTTPResponseStatus, headers: NIOHTTP1.HTTPHeaders, framing: BodyFraming, version: HTTPVersion) {
        self.status = status
        self.headers = headers
        self.framing = framing
        self.version = version
        encoded =
            version.major == 1 ? HTTP1ResponseEncoder.head(version: version, status: status, headers: headers) : nil
    }

    /// Makes a response's framing fields agree with its status and version, as SwiftNIO's encoders do: no
    /// `Content-Length` or `Transfer-Encoding` where no body may follow; `Content-Length` wins over
    /// `Transfer-Encoding`; neither means chunked in HTTP/1.1, the connection's end in HTTP/1.0 (which has no
    /// transfer codings), and the stream's end in HTTP/2 (which has none either).
    static func frame(_ headers: inout NIOHTTP1.HTTPHeaders, status: HTTPResponseStatus, version: HTTPVersion)
        -> BodyFraming
    {
        guard status.mayHaveResponseBody else {
            headers.remove(name: "content-length")
            headers.remove(name: "transfer-encoding")
            return .none
        }
        if headers.contains(name: "content-length") {
            headers.remove(name: "transfer-encoding")
            return .length
        }
        if version.major >= 2 {
            headers.remove(name: "transfer-encoding")
            return .streamEnd
        }
        if version.minor >= 1 {
            headers.replaceOrAdd(name: "transfer-encoding", value: "chunked")
            return .chunked
        }
        headers.remove(name: "transfer-encoding")
        return .untilClose
    }

    /// Whether header fields say `Connection: close`.
    static func saysClose(_ headers: NIOHTTP1.HTTPHeaders) -> Bool {
        headers.contains { field in
            HeadFacts.name(field.name, is: "connection")
                && field.value.split(separator: ",").contains {
                    HeadFacts.name($0.trimmingCharacters(in: .whitespaces), is: "close")
                }
        }
    }
}

/// A known response's head and body, and whether the connection stays open after them: made once for a stub's
/// usual requests (`StubWireResponse`) and shared by every response that plays them, so that a response in progress
/// holds one reference to them.
final class WireResponse: Sendable {
    let head: ResponseHead
    let keepAlive: Bool
    let body: ByteBuffer
    /// The head's HTTP/1.x bytes and the body after them, in one buffer, for a small body framed by its length: a
    /// response due at once is then one write (a write through the pipeline costs more than copying a few KiB once).
    let encoded: ByteBuffer?

    /// The largest body kept again after its head (`encoded`).
    static let largestEncodedBody = 16 << 10

    init(head: ResponseHead, keepAlive: Bool, body: ByteBuffer) {
        self.head = head
        self.keepAlive = keepAlive
        self.body = body
        if var bytes = head.encoded, head.framing == .length, body.readableBytes <= Self.largestEncodedBody {
            bytes.writeImmutableBuffer(body)
            encoded = bytes
        } else {
            encoded = nil
        }
    }
}

/// What a request asks of its response's head: its version, whether its connection is kept alive, whether its
/// answer has a body on the wire (not for `HEAD`), and the `Origin` a browser on another origin sent when the
/// server answers those (CORS). Every head of its response is made for it with ``head(status:headers:closes:)``.
struct HeadRequirements: Sendable {
    let version: HTTPVersion
    let keepsAlive: Bool
    let isHead: Bool
    /// The `Origin` of a request from a browser on another origin, when the server answers those: every head then
    /// carries `CrossOrigin.adding(origin:to:)`'s fields.
    let crossOrigin: String?
    /// Whether a stub's answer may be gzipped (the server gzips, and the request accepts it: `Gzip.accepts`).
    let acceptsGzip: Bool

    /// What `request` asks of its heads; `keepAlive` is whether it asks to keep its connection (read with its
    /// head's fields), or `nil` to read it from the head.
    init(_ request: HTTPRequestHead, keepAlive: Bool? = nil, crossOrigin: String? = nil, acceptsGzip: Bool = false) {
        version = request.version
        keepsAlive = keepAlive ?? request.isKeepAlive
        isHead = request.method.isMethod(.HEAD)
        self.crossOrigin = crossOrigin
        self.acceptsGzip = acceptsGzip
    }

    init(version: HTTPVersion, keepsAlive: Bool, isHead: Bool, crossOrigin: String?, acceptsGzip: Bool = false) {
        self.version = version
        self.keepsAlive = keepsAlive
        self.isHead = isHead
        self.crossOrigin = crossOrigin
        self.acceptsGzip = acceptsGzip
    }

    /// Whether a stub's usual head (HTTP/1.1, kept alive, no CORS) serves this request.
    var takesUsualHead: Bool {
        version == .http1_1 && keepsAlive && crossOrigin == nil
    }

    /// A response head for this request, and whether the connection stays open after it. Framed for the version
    /// (`ResponseHead.frame`), with `Connection: close` when the connection ends after it, and `keep-alive` for an
    /// HTTP/1.0 client that keeps it. An HTTP/2 stream ends with its response's END_STREAM by itself, and is never
    /// closed after it: closing it would reset it, dropping frames still waiting for the client's flow-control
    /// window.
    func head(status: HTTPResponseStatus, headers: NIOHTTP1.HTTPHeaders, closes: Bool) -> (
        ResponseHead, keepAlive: Bool
    ) {
        var headers = crossOrigin.map { CrossOrigin.adding(origin: $0, to: headers) } ?? headers
        let framing = ResponseHead.frame(&headers, status: status, version: version)
        let keepAlive = version.major >= 2 || (keepsAlive && !closes && framing != .untilClose)
        if version.major == 1 {
            if !keepAlive, !closes {
                headers.replaceOrAdd(name: "Connection", value: "close")
            } else if keepAlive, version.minor == 0, !headers.contains(name: "connection") {
                headers.add(name: "Connection", value: "keep-alive")
            }
        }
        return (ResponseHead(status: status, headers: headers, framing: framing, version: version), keepAlive)
    }

    /// Whether a head's response has a body on the wire.
    func sendsBody(_ head: ResponseHead) -> Bool {
        head.framing != .none && !isHead
    }
}
