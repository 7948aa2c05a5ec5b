import Foundation
import NIOCore

/// Reads HTTP/1.x responses from bytes as they arrive, in any pieces: the status, the fields, and the body's
/// length and SHA-256 digest (the body itself is kept only up to `keptBodyBytes`, so a 64 MiB body costs no
/// memory). Bodies end by `Content-Length`, by chunks, or with the connection; `100 Continue` heads are
/// skipped; a response to `HEAD` (say so with `expect(method:)`) has no body.
struct HTTPResponseReader {
    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var bodyLength = 0
        /// SHA-256 of the body, in hexadecimal.
        var digest = ""
        /// The body's first bytes (up to the reader's `keptBodyBytes`).
        var body = Data()
        /// How the body was framed on the wire.
        var framing: Framing = .none

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    enum Framing: Equatable {
        case none, length(Int), chunked, untilClose
    }

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    private enum Phase {
        case head
        case body(remaining: Int)
        case chunkSize
        case chunk(remaining: Int)
        case chunkEnd
        case trailer
        case untilClose
    }

    private var phase = Phase.head
    private var pending = ByteBuffer()
    private var current: Response?
    private var hasher = SHA256Hasher()
    private var methods: [String] = []
    /// How much of each body is kept in `Response.body`.
    var keptBodyBytes = 1 << 16
    /// The responses read so far.
    private(set) var responses: [Response] = []

    /// Says which method the next response answers (by default, any but `HEAD`).
    mutating func expect(method: String) {
        methods.append(method)
    }

    /// Takes more bytes.
    mutating func feed(_ bytes: ByteBuffer) throws {
        var bytes = bytes
        pending.writeBuffer(&bytes)
        try parse()
        if pending.readerIndex > 1 << 20 { pending.discardReadBytes() }
    }

    /// The connection closed: a body that runs to the close ends here; anything else unfinished is an error.
    mutating func finish() throws {
        if case .untilClose = phase {
            endResponse()
            return
        }
        if case .head = phase, pending.readableBytes == 0 { return }
        throw Malformed(description: "the connection closed in the middle of a response (\(phase))")
    }

    /// Whether a response has begun and not ended.
    var isInsideResponse: Bool {
        if case .head = phase { return pending.readableBytes > 0 }
        return true
    }

    private mutating func parse() throws {
        while true {
            switch phase {
            case .head:
                guard let head = try takeHead() else { return }
                if head.status < 200 {
                    continue  // 100 Continue: the response follows
                }
                var response = Response(status: head.status, headers: head.headers)
                hasher = SHA256Hasher()
                let method = methods.isEmpty ? "GET" : methods.removeFirst()
                let length = response.header("content-length").flatMap { Int($0) }
                let chunked = response.header("transfer-encoding")?.lowercased().contains("chunked") == true
                if method == "HEAD" || head.status == 204 || head.status == 304 {
                    response.framing = .none
                    current = response
                    endResponse()
                    continue
                }
                if chunked {
                    response.framing = .chunked
                    phase = .chunkSize
                } else if let length {
                    response.framing = .length(length)
                    phase = .body(remaining: length)
                } else {
                    response.framing = .untilClose
                    phase = .untilClose
                }
                current = response
                if case .body(0) = phase { endResponse() }
            case .body(let remaining):
                let count = min(remaining, pending.readableBytes)
                guard count > 0 else { return }
                takeBody(count)
                if count == remaining {
                    endResponse()
                } else {
                    phase = .body(remaining: remaining - count)
                }
            case .chunkSize:
                guard let line = try takeLine() else { return }
                guard let size = Int(line.split(separator: ";").first ?? "", radix: 16), size >= 0 else {
                    throw Malformed(description: "a chunk size line \"\(line)\" is not hexadecimal")
                }
                phase = size == 0 ? .trailer : .chunk(remaining: size)
            case .chunk(let remaining):
                let count = min(remaining, pending.readableBytes)
                guard count > 0 else { return }
                takeBody(count)
                phase = count == remaining ? .chunkEnd : .chunk(remaining: remaining - count)
            case .chunkEnd:
                guard let line = try takeLine() else { return }
                guard line.isEmpty else { throw Malformed(description: "a chunk is longer than its size said") }
                phase = .chunkSize
            case .trailer:
                guard let line = try takeLine() else { return }
                if line.isEmpty { endResponse() }
            case .untilClose:
                let count = pending.readableBytes
                guard count > 0 else { return }
                takeBody(count)
            }
        }
    }

    private mutating func takeBody(_ count: Int) {
        let slice = pending.readSlice(length: count)!
        slice.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        current!.bodyLength += count
        let room = keptBodyBytes - current!.body.count
        if room > 0 { current!.body.append(contentsOf: slice.readableBytesView.prefix(room)) }
    }

    private mutating func endResponse() {
        guard var response = current else { return }
        response.digest = hasher.finalize()
        responses.append(response)
        current = nil
        phase = .head
    }

    private mutating func takeHead() throws -> (status: Int, headers: [(name: String, value: String)])? {
        let view = pending.readableBytesView
        guard let end = view.firstRange(of: [13, 10, 13, 10]) else {
            if view.count > 1 << 20 { throw Malformed(description: "a response head longer than 1 MiB") }
            return nil
        }
        let text = String(decoding: view[view.startIndex..<end.lowerBound], as: UTF8.self)
        pending.moveReaderIndex(forwardBy: end.upperBound - view.startIndex)
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw Malformed(description: "not a status line: \(statusLine.joined(separator: " ").prefix(80))")
        }
        let headers = try lines.map { line -> (name: String, value: String) in
            guard let colon = line.firstIndex(of: ":") else {
                throw Malformed(description: "a header line without a colon: \(line.prefix(80))")
            }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return (status, headers)
    }

    private mutating func takeLine() throws -> String? {
        let view = pending.readableBytesView
        guard let end = view.firstRange(of: [13, 10]) else {
            if view.count > 4096 { throw Malformed(description: "a chunk line longer than 4 KiB") }
            return nil
        }
        let line = String(decoding: view[view.startIndex..<end.lowerBound], as: UTF8.self)
        pending.moveReaderIndex(forwardBy: end.upperBound - view.startIndex)
        return line
    }
}
