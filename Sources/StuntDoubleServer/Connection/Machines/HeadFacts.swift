import Foundation
import NIOCore
import NIOHTTP1

/// What the server must know of a request's head before it reads the body, gathered in one pass over its fields
/// (looking fields up by name, one name at a time, cost more than the rest of reading a request): by the HTTP/1.1
/// parser as it reads each field, or from an HTTP/2 stream's head.
struct HeadFacts: Equatable, Sendable {
    /// The head as sent: the request line, each field with its `: ` and CRLF, the empty line.
    private(set) var size: Int
    private(set) var hostCount = 0
    /// The first `Content-Length`, when it is a number.
    private(set) var contentLength: Int?
    private(set) var expectsContinue = false
    /// A transfer coding other than `chunked`, which the server cannot decode.
    private(set) var unknownTransferCoding: String?
    /// Whether a body follows the head (a length above 0, or a transfer coding).
    var hasBody: Bool { (contentLength ?? 0) > 0 || hasTransferCoding }
    /// Whether the head declares a body: a length (even 0) or a transfer coding.
    var declaresBody: Bool { contentLength != nil || hasTransferCoding }
    /// Whether the head has a `Transfer-Encoding`.
    private(set) var hasTransferCoding = false
    /// Whether the head has an `Upgrade` field (a WebSocket's asks for one).
    private(set) var hasUpgrade = false
    /// What the `Connection` fields say: `close`, `keep-alive`, neither.
    private var closes = false
    private var keepsAlive = false

    /// The facts of a head read whole (an HTTP/2 stream's).
    init(_ head: HTTPRequestHead) {
        self.init(method: head.method, target: head.uri)
        for (name, value) in head.headers { add(name: name, value: value) }
    }

    /// The facts of a request line; its fields follow with ``add(name:value:)``.
    init(method: HTTPMethod, target: String) {
        size = method.rawValue.utf8.count + target.utf8.count + 12
    }

    /// The fields the server reads before the body, by name (any case).
    enum Field {
        case host, expect, upgrade, connection, contentLength, transferEncoding
        /// Any other name.
        case other

        /// The field a name names.
        init(_ name: String) {
            switch name.utf8.count {
            case 4 where HeadFacts.name(name, is: "host"): self = .host
            case 6 where HeadFacts.name(name, is: "expect"): self = .expect
            case 7 where HeadFacts.name(name, is: "upgrade"): self = .upgrade
            case 10 where HeadFacts.name(name, is: "connection"): self = .connection
            case 14 where HeadFacts.name(name, is: "content-length"): self = .contentLength
            case 17 where HeadFacts.name(name, is: "transfer-encoding"): self = .transferEncoding
            default: self = .other
            }
        }
    }

    /// Takes in one field of the head.
    mutating func add(name: String, value: String) {
        add(Field(name), name: name, value: value)
    }

    /// Takes in one field of the head, whose name is known to name `field` (the parser knows the usual names
    /// by their bytes: comparing each name again cost 150 instructions a request).
    mutating func add(_ field: Field, name: String, value: String) {
        size += name.utf8.count + value.utf8.count + 4
        switch field {
        case .host:
            hostCount += 1
        case .expect:
            expectsContinue = expectsContinue || Self.name(value, is: "100-continue")
        case .upgrade:
            hasUpgrade = true
        case .connection:
            for token in value.split(separator: ",") {
                let trimmed = token.trimmingCharacters(in: .whitespaces)
                if Self.name(trimmed, is: "close") { closes = true }
                if Self.name(trimmed, is: "keep-alive") { keepsAlive = true }
            }
        case .contentLength:
            if contentLength == nil { contentLength = Int(value) }
        case .transferEncoding:
            hasTransferCoding = true
            for coding in value.split(separator: ",") {
                let trimmed = coding.trimmingCharacters(in: .whitespaces)
                if unknownTransferCoding == nil, !Self.name(trimmed, is: "chunked") {
                    unknownTransferCoding = trimmed.lowercased()
                }
            }
        case .other:
            break
        }
    }

    /// Whether the connection stays open after the answer, as the request's version and `Connection` fields say
    /// (HTTP/1.1 unless `close`; HTTP/1.0 only with `keep-alive`, and never when it has a `Transfer-Encoding`, whose
    /// framing RFC 9112, section 6.1 says not to trust from HTTP/1.0; an HTTP/2 stream's connection always).
    func keepAlive(_ version: HTTPVersion) -> Bool {
        if version.major >= 2 { return true }
        if version.major == 1, version.minor >= 1 { return !closes }
        return keepsAlive && !closes && !hasTransferCoding
    }

    /// Whether a text is a lower-case ASCII word, ignoring case. (Over the text's bytes in place when it has them
    /// in one piece, as a received header's do: walking two UTF-8 views with `zip` cost 500 instructions a request.)
    @inline(__always)
    static func name(_ text: some StringProtocol, is lowercased: String) -> Bool {
        let fast = text.utf8.withContiguousStorageIfAvailable { bytes in
            lowercased.utf8.withContiguousStorageIfAvailable { expected in
                guard bytes.count == expected.count else { return false }
                for index in 0..<bytes.count {
                    let byte = bytes[index]
                    if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected[index] { return false }
                }
                return true
            }
        }
        if let fast, let answer = fast { return answer }
        return text.utf8.count == lowercased.utf8.count
            && zip(text.utf8, lowercased.utf8).allSatisfy { ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }
    }
}
