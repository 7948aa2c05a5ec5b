import NIOCore
import NIOHTTP1

/// Responses as HTTP/1.x bytes: the encoder after the machines on an HTTP/1.1 connection. The server writes these
/// bytes itself rather than through SwiftNIO's `HTTPResponseEncoder`: a stub's head is encoded once and kept
/// (`ResponseHead.encoded`), so most answers are that head and the stub's body as they are. Nothing reads these
/// bytes back (an HTTP/2 stream gets its parts directly); `HTTP1ResponseEncoderTests` holds them to SwiftNIO's
/// response decoder on generated responses.
enum HTTP1ResponseEncoder {
    /// A response head: the status line, the fields, the empty line. The fields must be valid (a stub's are
    /// checked when it is prepared; the server's own quote input through `HeaderText`).
    static func head(version: HTTPVersion, status: HTTPResponseStatus, headers: NIOHTTP1.HTTPHeaders) -> ByteBuffer {
        let reason = status.reasonPhrase
        var size = 9 + 4 + reason.utf8.count + 2 + 2
        for (name, value) in headers {
            size += name.utf8.count + value.utf8.count + 4
        }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(size)
        buffer.writeStaticString(version.minor == 0 && version.major == 1 ? "HTTP/1.0 " : "HTTP/1.1 ")
        buffer.writeString(String(status.code))
        buffer.writeStaticString(" ")
        buffer.writeString(reason)
        buffer.writeStaticString("\r\n")
        for (name, value) in headers {
            buffer.writeString(name)
            buffer.writeStaticString(": ")
            buffer.writeString(value)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("\r\n")
        return buffer
    }

    /// The bytes of a write, in order: the head, then each body piece (wrapped in a chunk when the body is
    /// chunked), then the last chunk when the write ends a chunked body.
    static func encode(_ writes: borrowing ResponseWrites, _ emit: (ByteBuffer) -> Void) {
        if let encoded = writes.encoded { return emit(encoded) }
        if let head = writes.head {
            emit(head.encoded ?? self.head(version: head.version, status: head.status, headers: head.headers))
        }
        guard writes.chunked else { return writes.forEachPiece(emit) }
        writes.forEachPiece { piece in
            emit(chunkPrefix(length: piece.readableBytes))
            emit(piece)
            emit(chunkSuffix)
        }
        if writes.ends != nil { emit(lastChunk) }
    }

    /// What goes before a chunk of `length` bytes: its size in hexadecimal and a CRLF.
    static func chunkPrefix(length: Int) -> ByteBuffer {
        ByteBuffer(string: String(length, radix: 16) + "\r\n")
    }

    /// What follows every chunk's bytes.
    static let chunkSuffix = ByteBuffer(string: "\r\n")

    /// The last chunk of a chunked body, with no trailers.
    static let lastChunk = ByteBuffer(string: "0\r\n\r\n")

    /// `100 Continue`, for a request that waits for it before sending its body.
    static let continueHead = ByteBuffer(string: "HTTP/1.1 100 Continue\r\n\r\n")

    /// A refusal of the server's own, whole: `Connection: close`, and the text unless it answers `HEAD`.
    static func refusal(_ refusal: Refusal) -> ByteBuffer {
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(refusal.text.utf8.count))
        headers.add(name: "Connection", value: "close")
        var bytes = head(version: refusal.version, status: refusal.status, headers: headers)
        if refusal.sendsText { bytes.writeString(refusal.text) }
        return bytes
    }
}

/// A plain-text response of the server's own that ends the connection: the answer to a request it refuses before
/// reading its body (`413`, `431`, `400`, `501`, `408`), or to one that did not parse.
struct Refusal: Sendable {
    /// The refused request's version, method and target, or `nil` when it did not parse.
    let request: (version: HTTPVersion, method: NIOHTTP1.HTTPMethod, target: String)?
    let status: HTTPResponseStatus
    let text: String

    init(_ head: HTTPRequestHead?, status: HTTPResponseStatus, text: String) {
        request = head.map { ($0.version, $0.method, $0.uri) }
        self.status = status
        self.text = text
    }

    var version: HTTPVersion { request?.version ?? .http1_1 }
    /// Whether the text goes out (not in answer to `HEAD`).
    var sendsText: Bool { request?.method != .HEAD }
}
