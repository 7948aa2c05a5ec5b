import NIOCore
import NIOHTTP1

/// A response as bytes for the socket: the server writes HTTP/1.1 itself, with no SwiftNIO encoder between its
/// handler and the socket (a stub's head is encoded once, and most answers are that head and the stub's body
/// as they are).
enum ResponseWire {
    /// How a response's body ends on the wire (RFC 9112, section 6.3).
    enum Framing {
        /// No body may follow: 1xx, 204 and 304.
        case none
        /// `Content-Length` bytes.
        case contentLength
        /// Chunks, the last of them empty.
        case chunked
        /// The connection's end (HTTP/1.0 without `Content-Length`).
        case untilClose
    }

    /// Makes a response's framing headers agree with its status and version, as SwiftNIO's encoder did: no
    /// `Content-Length` or `Transfer-Encoding` where no body may follow; `Content-Length` wins over
    /// `Transfer-Encoding`; neither means chunked in HTTP/1.1 and the connection's end in HTTP/1.0 (which has no
    /// `Transfer-Encoding`).
    static func frame(_ headers: inout NIOHTTP1.HTTPHeaders, status: HTTPResponseStatus, version: HTTPVersion)
        -> Framing
    {
        guard status.mayHaveResponseBody else {
            headers.remove(name: "content-length")
            headers.remove(name: "transfer-encoding")
            return .none
        }
        if headers.contains(name: "content-length") {
            headers.remove(name: "transfer-encoding")
            return .contentLength
        }
        // HTTP/1.1, and HTTP/2 streams (whose chunks `HTTP1WireToStreamParts` unwraps into DATA frames).
        if version.major > 1 || (version.major == 1 && version.minor >= 1) {
            headers.replaceOrAdd(name: "transfer-encoding", value: "chunked")
            return .chunked
        }
        // HTTP/1.0 has no transfer codings (SwiftNIO left the header, for a body it then did not chunk).
        headers.remove(name: "transfer-encoding")
        return .untilClose
    }

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
}
