import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP/1.1 requests read from a connection's bytes (RFC 9112): a pure parser, fed what the socket reads and pulled
/// for one request part at a time (`next()`), so that the bytes after a request its handler takes over (a WebSocket
/// upgrade's first frames) are still unread when it does (`remainingBytes`).
///
/// It replaces SwiftNIO's decoder on the server's HTTP/1.1 connections: that one's parts reached the handler through
/// a decoder handler and a type-erased pipeline hop, a third of the server's cost per request. It reads what
/// SwiftNIO's does, and refuses what it refuses (`HTTP1RequestParserTests` holds the two to each other on generated
/// requests, the fuzzer `FuzzRequestHead` on any bytes, naming each difference): request lines and fields with their
/// separators, `Content-Length`, chunked bodies with extensions and trailers, pipelined requests; a head over the
/// size limit (`431`), a field with space before its colon, a line folded onto the one before, control characters,
/// a body framed both by length and by chunks, or by two lengths (`400`, requests that different servers would read
/// differently). Bare LF line ends of a head are read as CRLF, as most servers do; a chunked body's lines must end in
/// CRLF, its extensions be tokens or quoted strings (whitespace only before a `;`) and its trailers fields, none of
/// them `Content-Length` or `Transfer-Encoding` (a server more lenient there than the front end before it reads
/// chunks the front end did not); an extension without a name, which SwiftNIO reads past, is refused. More lenient
/// than SwiftNIO, as RFC 9110 and 9112 ask: any token as a method, HTTP/1.2 read as 1.1, a tab as whitespace around
/// a value, an empty element of a Transfer-Encoding list.
struct HTTP1RequestParser {
    private enum State {
        /// Waiting for a request's head.
        case head
        /// `remaining` body bytes of a length.
        case body(remaining: Int)
        /// A chunk's size line.
        case chunkSize
        /// A chunk's bytes, then its line end.
        case chunk(remaining: Int)
        case chunkEnd
        /// The trailer fields after the last chunk, up to an empty line.
        case trailers(size: Int)
        /// The request's end is due; after it, nothing more is read when `last`.
        case ending(last: Bool)
        /// What follows the last request: refused (nothing answers it).
        case afterLast
        /// Nothing more is read.
        case failed
    }

    /// The largest head (request line and fields, with their line ends) read; `431` past it.
    let maximumHeadSize: Int
    private var state = State.head
    /// Bytes read and not yet parsed.
    private var pending = ByteBuffer()
    /// Where the search for the end of a head goes on from (bytes before it have no empty line).
    private var searchedFrom = 0
    /// Whether the request being read is its connection's last: it closes the connection (`Connection: close`,
    /// HTTP/1.0 without `keep-alive`), or is an HTTP/1.0 request framed by Transfer-Encoding, whose framing RFC 9112,
    /// section 6.1 says not to trust. Nothing after it is read.
    private var isLast = false

    init(maximumHeadSize: Int) {
        self.maximumHeadSize = maximumHeadSize
    }

    /// Adds bytes the socket read.
    mutating func feed(_ bytes: ByteBuffer) {
        if case .failed = state { return }
        if pending.readableBytes == 0 {
            // Taken as they are: body parts are slices of them, with no copy.
            pending = bytes
        } else {
            var bytes = bytes
            pending.writeBuffer(&bytes)
        }
    }

    /// The bytes after the last part taken, which the parser gives up (and reads nothing more): what follows a
    /// request whose connection changes protocols.
    mutating func handOver() -> ByteBuffer {
        defer {
            pending = ByteBuffer()
            state = .failed
        }
        return pending
    }

    /// Whether `next()` may have a part without more bytes: bytes are waiting, or a request's end is due.
    var mayHaveEvents: Bool {
        switch state {
        case .ending: true
        case .failed: false
        default: pending.readableBytes > 0
        }
    }

    /// The next part of a request, or `nil` until more bytes arrive.
    mutating func next() -> RequestEvent? {
        switch state {
        case .failed:
            return nil
        case .ending(let last):
            state = last ? .afterLast : .head
            return .end
        case .afterLast:
            guard pending.readableBytes > 0 else { return nil }
            return fail(.badRequest, "bytes follow a request that ends its connection")
        case .head:
            return parseHead()
        case .body(let remaining):
            guard pending.readableBytes > 0 else { return nil }
            let count = min(remaining, pending.readableBytes)
            let part = pending.readSlice(length: count)!
            state = count == remaining ? .ending(last: isLast) : .body(remaining: remaining - count)
            compact()
            return .body(part)
        case .chunk(let remaining):
            guard pending.readableBytes > 0 else { return nil }
            let count = min(remaining, pending.readableBytes)
            let part = pending.readSlice(length: count)!
            state = count == remaining ? .chunkEnd : .chunk(remaining: remaining - count)
            compact()
            return .body(part)
        case .chunkSize, .chunkEnd, .trailers:
            return parseChunkLines()
        }
    }

    /// Lets go of the storage of bytes parsed, once every byte has been.
    private mutating func compact() {
        if pending.readableBytes == 0 {
            pending = ByteBuffer()
            searchedFrom = 0
        }
    }

    private mutating func fail(_ status: HTTPResponseStatus, _ reason: String) -> RequestEvent {
        state = .failed
        pending = ByteBuffer()
        let text =
            status == .requestHeaderFieldsTooLarge
            ? "The request's head (\(reason)) is larger than this server accepts (\(maximumHeadSize) bytes). Send "
                + "fewer or shorter headers, or raise maximumHeaderSize.\n"
            : "The request is not valid HTTP/1.1: \(reason).\n"
        return .malformed(status: status, text: text)
    }

    // MARK: - Heads

    private mutating func parseHead() -> RequestEvent? {
        let outcome = pending.withUnsafeReadableBytes { bytes -> HeadOutcome in
            Self.readHead(bytes, from: searchedFrom, limit: maximumHeadSize)
        }
        switch outcome {
        case .incomplete(let searched):
            searchedFrom = searched
            if pending.readableBytes > maximumHeadSize + 4 {
                return fail(.requestHeaderFieldsTooLarge, "more than \(maximumHeadSize) bytes, not yet ended")
            }
            return nil
        case .invalid(let status, let reason):
            return fail(status, reason)
        case .head(let head, let facts, let length, let framing):
            pending.moveReaderIndex(forwardBy: length)
            searchedFrom = 0
            isLast = !facts.keepAlive(head.version) || framing == .untilClose
            switch framing {
            case .none, .untilClose: state = .ending(last: isLast)
            case .length(let length): state = length == 0 ? .ending(last: isLast) : .body(remaining: length)
            case .chunked: state = .chunkSize
            }
            compact()
            return .head(head, facts)
        }
    }

    private enum Framing: Equatable {
        case none, length(Int), chunked
        /// A last coding other than chunked: the body ends with the connection, so nothing after the head is read.
        case untilClose
    }

    private enum HeadOutcome {
        /// No empty line yet; the search goes on from the offset given.
        case incomplete(Int)
        case invalid(HTTPResponseStatus, String)
        /// A head, what the server must know of it, its length in bytes, and how its body is framed.
        case head(HTTPRequestHead, HeadFacts, Int, Framing)
    }

    /// Reads a head at the start of `bytes`, once its empty line has arrived.
    private static func readHead(_ bytes: UnsafeRawBufferPointer, from searched: Int, limit: Int) -> HeadOutcome {
        // Empty lines before a request line are skipped (RFC 9112, section 2.2).
        var start = 0
        while start < bytes.count, bytes[start] == cr || bytes[start] == lf { start += 1 }
        // The end of the head: a line end right after another.
        var end: Int?
        var index = max(searched, start)
        while index < bytes.count {
            guard let found = firstIndex(of: lf, in: bytes, from: index) else {
                index = bytes.count
                break
            }
            let next = found + 1
            if next < bytes.count, bytes[next] == lf {
                end = next + 1
                break
            }
            if next + 1 < bytes.count, bytes[next] == cr, bytes[next + 1] == lf {
                end = next + 2
                break
            }
            if next + 1 >= bytes.count {
                // The line end may continue with the next read: look from this line end again then.
                index = found
                break
            }
            index = next
        }
        guard let end else {
            return .incomplete(max(start, index - 1))
        }
        if end - start > limit + 4 {
            var lines = 0
            for index in start..<end where bytes[index] == lf { lines += 1 }
            return .invalid(.requestHeaderFieldsTooLarge, "\(end - start) bytes, \(max(lines - 2, 0)) header fields")
        }
        var lines = LineReader(bytes: bytes, position: start, end: end)
        guard let requestLine = lines.next() else { return .invalid(.badRequest, "no request line") }
        let parsed = RequestLine.read(bytes, requestLine)
        guard case .success(let line) = parsed else {
            if case .failure(let failure) = parsed { return .invalid(failure.status, failure.reason) }
            return .invalid(.badRequest, "no request line")
        }
        var fields: [(String, String)] = []
        fields.reserveCapacity(8)
        var facts = HeadFacts(method: line.method, target: line.target)
        var contentLength: Int?
        var lengthCount = 0
        // The codings of every Transfer-Encoding field, in order: a front end that joins the fields into one list
        // (as RFC 9110, section 5.3 allows) must read the same framing as this server.
        var codingCount = 0
        var lastCoding: Substring = ""
        var chunkedBeforeLast = false
        var sawTransferEncoding = false
        while let range = lines.next() {
            if range.isEmpty { break }
            guard let (name, value, known) = readField(bytes, range) else {
                return .invalid(.badRequest, "a header field is malformed (RFC 9112, section 5)")
            }
            let field = known ?? HeadFacts.Field(name)
            switch field {
            case .contentLength:
                lengthCount += 1
                guard let length = parseLength(value) else {
                    return .invalid(.badRequest, "Content-Length is not a number")
                }
                contentLength = length
            case .transferEncoding:
                sawTransferEncoding = true
                for coding in value.split(separator: ",") {
                    let trimmed = coding.trimmingSpaces()
                    if trimmed.isEmpty { continue }
                    if codingCount > 0, HeadFacts.name(lastCoding, is: "chunked") { chunkedBeforeLast = true }
                    codingCount += 1
                    lastCoding = trimmed
                }
            default:
                break
            }
            facts.add(field, name: name, value: value)
            fields.append((name, value))
        }
        if lengthCount > 1 {
            return .invalid(.badRequest, "the request has \(lengthCount) Content-Length fields; send one")
        }
        let framing: Framing
        if sawTransferEncoding {
            if contentLength != nil {
                return .invalid(
                    .badRequest,
                    "the body is framed by both Transfer-Encoding and Content-Length (RFC 9112, section 6.3)")
            }
            if codingCount == 0 {
                return .invalid(.badRequest, "Transfer-Encoding names no coding (RFC 9112, section 6.1)")
            }
            if chunkedBeforeLast {
                return .invalid(
                    .badRequest,
                    "chunked is applied to the body more than once, or before another coding (RFC 9112, section 6.1)")
            }
            // A body whose last coding is not chunked has no end but the connection's: the head is answered (the
            // machine refuses the coding) and nothing after it is read.
            framing = HeadFacts.name(lastCoding, is: "chunked") ? .chunked : .untilClose
        } else if let contentLength {
            framing = .length(contentLength)
        } else {
            framing = .none
        }
        let head = HTTPRequestHead(
            version: line.version, method: line.method, uri: line.target, headers: HTTPHeaders(fields))
        return .head(head, facts, end, framing)
    }

    /// A field line: a token, a colon (no space before it), the value without the spaces around it.
    private static func readField(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>
    ) -> (String, String, HeadFacts.Field?)? {
        let first = bytes[range.lowerBound]
        // A line folded onto the one before (obs-fold) is refused, as RFC 9112, section 5.2 allows.
        guard first != sp, first != ht else { return nil }
        var colon = range.lowerBound
        while colon < range.upperBound, bytes[colon] != UInt8(ascii: ":") {
            guard isTokenByte(bytes[colon]) else { return nil }
            colon += 1
        }
        guard colon < range.upperBound, colon > range.lowerBound else { return nil }
        var valueStart = colon + 1
        var valueEnd = range.upperBound
        while valueStart < valueEnd, bytes[valueStart] == sp || bytes[valueStart] == ht { valueStart += 1 }
        while valueEnd > valueStart, bytes[valueEnd - 1] == sp || bytes[valueEnd - 1] == ht { valueEnd -= 1 }
        for index in valueStart..<valueEnd {
            let byte = bytes[index]
            // Control characters (but tab) are refused: a CR alone, a NUL.
            if byte < 0x20 && byte != ht || byte == 0x7F { return nil }
        }
        let common = commonName(UnsafeRawBufferPointer(rebasing: bytes[range.lowerBound..<colon]))
        return (
            common?.name ?? string(bytes, range.lowerBound..<colon), string(bytes, valueStart..<valueEnd), common?.field
        )
    }

    /// A `Content-Length` value: digits (leading zeros as many as sent), with no sign and no overflow.
    private static func parseLength(_ value: String) -> Int? {
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            value.utf8.drop(while: { $0 == 0x30 }).count <= 18
        else { return nil }
        return Int(value)
    }

    // MARK: - Chunked bodies

    /// Reads the lines of a chunked body: a chunk's size (with extensions), the line end after a chunk's bytes, the
    /// trailer fields.
    private mutating func parseChunkLines() -> RequestEvent? {
        while true {
            // The lines of a chunked body end in CRLF, strictly: a server that took a bare LF (or a CR alone) for
            // a line end, behind a front end that does not, would read chunks the front end never saw.
            let line = pending.withUnsafeReadableBytes { bytes -> (Range<Int>, Int)?? in
                guard let found = Self.firstIndex(of: Self.lf, in: bytes, from: 0) else { return .some(nil) }
                guard found > 0, bytes[found - 1] == Self.cr else { return nil }
                return (0..<found - 1, found + 1)
            }
            guard let line else { return fail(.badRequest, "a line of the chunked body does not end in CRLF") }
            guard let (range, consumed) = line else {
                // A line that never ends: a size or a trailer line longer than any server reads.
                if pending.readableBytes > maximumHeadSize { return fail(.badRequest, "a chunk's line is too long") }
                return nil
            }
            switch state {
            case .chunkSize:
                let size = pending.withUnsafeReadableBytes { Self.chunkSize($0, range) }
                guard let size else {
                    return fail(.badRequest, "a chunk's size line is malformed (RFC 9112, section 7.1.1)")
                }
                pending.moveReaderIndex(forwardBy: consumed)
                state = size == 0 ? .trailers(size: 0) : .chunk(remaining: size)
                compact()
                if size > 0 { return next() }
            case .chunkEnd:
                guard range.isEmpty else { return fail(.badRequest, "a chunk is longer than its size") }
                pending.moveReaderIndex(forwardBy: consumed)
                state = .chunkSize
                compact()
            case .trailers(let size):
                if !range.isEmpty {
                    if size + consumed > maximumHeadSize {
                        return fail(.requestHeaderFieldsTooLarge, "trailer fields of more than \(size) bytes")
                    }
                    guard let (name, _, known) = pending.withUnsafeReadableBytes({ Self.readField($0, range) }) else {
                        return fail(.badRequest, "a trailer field is malformed (RFC 9112, section 7.1.2)")
                    }
                    // No trailer may frame the message (RFC 9110, section 6.5.1); SwiftNIO refuses one too.
                    if [.contentLength, .transferEncoding].contains(known ?? HeadFacts.Field(name)) {
                        return fail(.badRequest, "a trailer field is \(name), which only a head may send")
                    }
                }
                pending.moveReaderIndex(forwardBy: consumed)
                compact()
                if range.isEmpty {
                    state = isLast ? .afterLast : .head
                    return .end
                }
                state = .trailers(size: size + consumed)
            default:
                return nil
            }
        }
    }
}
