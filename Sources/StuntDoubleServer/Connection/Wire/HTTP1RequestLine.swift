import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of an HTTP/1.1 request as `HTTP1RequestParser` reads them: the lines of a head, the request line, and
/// the byte classes of RFC 9110 and 9112.
extension HTTP1RequestParser {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let sp = UInt8(ascii: " ")
    static let ht = UInt8(ascii: "\t")

    static func firstIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    static func string(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Whether a byte may be in a token (a method, a field name: RFC 9110, section 5.6.2).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}

/// The lines of a head, each without its line end (CRLF, or LF alone).
struct LineReader {
    let bytes: UnsafeRawBufferPointer
    var position: Int
    let end: Int

    mutating func next() -> Range<Int>? {
        guard position < end else { return nil }
        // The line feed found with `memchr` (a byte at a time cost 5 instructions a byte of every head).
        guard let found = memchr(bytes.baseAddress! + position, Int32(HTTP1RequestParser.lf), end - position) else {
            return nil
        }
        let index = bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
        let lineEnd = index > position && bytes[index - 1] == HTTP1RequestParser.cr ? index - 1 : index
        defer { position = index + 1 }
        return position..<lineEnd
    }
}

/// A request line: method, target, version (RFC 9112, section 3).
struct RequestLine {
    let method: HTTPMethod
    let target: String
    let version: HTTPVersion

    struct Failure: Error {
        let status: HTTPResponseStatus
        let reason: String
    }

    static func read(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Result<RequestLine, Failure> {
        var index = range.lowerBound
        while index < range.upperBound, HTTP1RequestParser.isTokenByte(bytes[index]) { index += 1 }
        let methodEnd = index
        guard methodEnd > range.lowerBound, index < range.upperBound, bytes[index] == HTTP1RequestParser.sp else {
            return .failure(Failure(status: .badRequest, reason: "the request line has no method"))
        }
        index += 1
        // One space between the parts (RFC 9112, section 3: reading any whitespace "can result in request smuggling").
        let spaces = Failure(status: .badRequest, reason: "the request line has more than one space between its parts")
        if index < range.upperBound, bytes[index] == HTTP1RequestParser.sp { return .failure(spaces) }
        let targetStart = index
        // Visible ASCII only (RFC 9112, section 3.2: a URI's characters); other bytes are refused.
        while index < range.upperBound, bytes[index] > 0x20, bytes[index] < 0x7F { index += 1 }
        let targetEnd = index
        guard targetEnd > targetStart, index < range.upperBound, bytes[index] == HTTP1RequestParser.sp else {
            return .failure(Failure(status: .badRequest, reason: "the request line has no target"))
        }
        index += 1
        if index < range.upperBound, bytes[index] == HTTP1RequestParser.sp { return .failure(spaces) }
        // "HTTP/" DIGIT "." DIGIT, and nothing after it.
        let versionBytes = UnsafeRawBufferPointer(rebasing: bytes[index..<range.upperBound])
        guard versionBytes.count == 8, versionBytes[0] == UInt8(ascii: "H"),
            versionBytes[1] == UInt8(ascii: "T"), versionBytes[2] == UInt8(ascii: "T"),
            versionBytes[3] == UInt8(ascii: "P"),
            versionBytes[4] == UInt8(ascii: "/"), versionBytes[6] == UInt8(ascii: "."),
            let major = digit(versionBytes[5]), let minor = digit(versionBytes[7])
        else {
            return .failure(Failure(status: .badRequest, reason: "the request line's version is malformed"))
        }
        guard major == 1 else {
            return .failure(
                Failure(
                    status: .badRequest,
                    reason: "HTTP/\(major).\(minor) is not spoken on this connection (HTTP/1.0 and 1.1 are; HTTP/2 "
                        + "by ALPN on the HTTPS listener)"))
        }
        let method =
            knownMethod(UnsafeRawBufferPointer(rebasing: bytes[range.lowerBound..<methodEnd]))
            ?? HTTPMethod(rawValue: HTTP1RequestParser.string(bytes, range.lowerBound..<methodEnd))
        let target = HTTP1RequestParser.string(bytes, targetStart..<targetEnd)
        return .success(RequestLine(method: method, target: target, version: HTTPVersion(major: major, minor: minor)))
    }

    /// The usual methods, told apart by their bytes (no text made for them).
    private static func knownMethod(_ bytes: UnsafeRawBufferPointer) -> HTTPMethod? {
        func equals(_ word: StaticString) -> Bool {
            word.utf8CodeUnitCount == bytes.count && memcmp(bytes.baseAddress!, word.utf8Start, bytes.count) == 0
        }
        switch bytes.count {
        case 3: return equals("GET") ? .GET : equals("PUT") ? .PUT : nil
        case 4: return equals("POST") ? .POST : equals("HEAD") ? .HEAD : nil
        case 5: return equals("PATCH") ? .PATCH : nil
        case 6: return equals("DELETE") ? .DELETE : nil
        case 7: return equals("OPTIONS") ? .OPTIONS : nil
        default: return nil
        }
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= 0x30 && byte <= 0x39 ? Int(byte - 0x30) : nil
    }
}

extension Substring {
    /// The text without spaces and tabs around it.
    func trimmingSpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
