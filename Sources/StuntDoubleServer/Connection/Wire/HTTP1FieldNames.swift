#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The field names the parser knows by their bytes.
extension HTTP1RequestParser {
    /// A field name that clients send on most requests, spelled as they spell it, as a literal (making a string of
    /// a name's bytes cost 150 instructions a field), and the field it names. `nil` for any other name (made from
    /// its bytes).
    static func commonName(_ name: UnsafeRawBufferPointer) -> (name: String, field: HeadFacts.Field)? {
        func equals(_ literal: StaticString) -> Bool {
            memcmp(literal.utf8Start, name.baseAddress!, name.count) == 0
        }
        switch name.count {
        case 4:
            if equals("Host") { return ("Host", .host) }
            if equals("host") { return ("host", .host) }
        case 6:
            if equals("Accept") { return ("Accept", .other) }
            if equals("accept") { return ("accept", .other) }
            if equals("Cookie") { return ("Cookie", .other) }
            if equals("cookie") { return ("cookie", .other) }
            if equals("Origin") { return ("Origin", .other) }
            if equals("origin") { return ("origin", .other) }
            if equals("Expect") { return ("Expect", .expect) }
        case 7:
            if equals("Upgrade") { return ("Upgrade", .upgrade) }
            if equals("Referer") { return ("Referer", .other) }
        case 10:
            if equals("User-Agent") { return ("User-Agent", .other) }
            if equals("user-agent") { return ("user-agent", .other) }
            if equals("Connection") { return ("Connection", .connection) }
            if equals("connection") { return ("connection", .connection) }
        case 12:
            if equals("Content-Type") { return ("Content-Type", .other) }
            if equals("content-type") { return ("content-type", .other) }
        case 13:
            if equals("Authorization") { return ("Authorization", .other) }
            if equals("authorization") { return ("authorization", .other) }
            if equals("Cache-Control") { return ("Cache-Control", .other) }
            if equals("cache-control") { return ("cache-control", .other) }
        case 14:
            if equals("Content-Length") { return ("Content-Length", .contentLength) }
            if equals("content-length") { return ("content-length", .contentLength) }
        case 15:
            if equals("Accept-Encoding") { return ("Accept-Encoding", .other) }
            if equals("accept-encoding") { return ("accept-encoding", .other) }
            if equals("Accept-Language") { return ("Accept-Language", .other) }
            if equals("accept-language") { return ("accept-language", .other) }
        case 17:
            if equals("Transfer-Encoding") { return ("Transfer-Encoding", .transferEncoding) }
            if equals("transfer-encoding") { return ("transfer-encoding", .transferEncoding) }
        default:
            break
        }
        return nil
    }
}
