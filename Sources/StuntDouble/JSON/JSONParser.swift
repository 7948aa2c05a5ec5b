/// Reads JSON text into ``JSONNode``s: RFC 8259 by default, or as leniently as WireMock reads stub files.
///
/// One pass over the bytes, through an unsafe buffer (no bounds check or reference count per byte): a string
/// without escapes becomes a `String` in one piece, a string with escapes is assembled as UTF-8 in a scratch
/// buffer reused for the whole document. Invalid UTF-8 in a string becomes U+FFFD, as `String(decoding:)` does.
package struct JSONParser {
    /// What the parser accepts beyond RFC 8259.
    package struct Options: Sendable {
        /// `//` line comments and `/* */` block comments wherever whitespace may be.
        package var allowsComments = false
        /// Strings (and keys) in single quotes, in which `'` is escaped as `\'` and `"` needs no escape.
        package var allowsSingleQuotes = false
        /// Text after the value is left unread (its offset is returned) instead of failing.
        package var allowsTrailingText = false

        /// RFC 8259.
        package static let strict = Options()
        /// What WireMock's JSON reader (Jackson, configured with `ALLOW_COMMENTS` and `ALLOW_SINGLE_QUOTES`)
        /// accepts: comments, single quotes, and anything after the first value, which it never reads.
        package static let wireMock = Options(allowsComments: true, allowsSingleQuotes: true, allowsTrailingText: true)
    }

    /// The deepest nesting accepted: deeper documents are almost surely not meant, and recursion is bounded.
    static let maximumDepth = 512

    let bytes: [UInt8]
    let options: Options

    package init(bytes: [UInt8], options: Options) {
        self.bytes = bytes
        self.options = options
    }

    /// Parses the text's one value.
    /// - Returns: The value, and where text after it starts when ``Options/allowsTrailingText`` let some
    ///   through (`nil` when only whitespace and comments follow).
    package func parseDocument() throws(JSONParseError) -> (value: JSONNode, trailingTextOffset: Int?) {
        let result = bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer, options: options)
            return Result { () throws(JSONParseError) in try reader.parseDocument() }
        }
        return try result.get()
    }

    /// A byte as a diagnostic shows it: `'x'`, or its code for control characters and non-ASCII bytes.
    static func describe(byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(UnicodeScalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }
}

extension JSONParser {
    /// The parser's state while it reads one document.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let options: Options
        private var index = 0
        private var depth = 0
        /// Where a string with escapes is assembled.
        private var scratch: [UInt8] = []

        init(bytes: UnsafeBufferPointer<UInt8>, options: Options) {
            self.bytes = bytes
            self.options = options
        }

        private var count: Int { bytes.count }

        mutating func parseDocument() throws(JSONParseError) -> (value: JSONNode, trailingTextOffset: Int?) {
            if count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
            let value = try parseValue()
            if options.allowsTrailingText {
                let afterValue = index
                do {
                    try skipWhitespace()
                } catch {
                    return (value, afterValue)
                }
                return (value, index == count ? nil : index)
            }
            try skipWhitespace()
            guard index == count else { throw fail("unexpected text after the JSON value") }
            return (value, nil)
        }

        private func fail(_ reason: String) -> JSONParseError {
            JSONParseError(offset: index, reason: reason)
        }

        private mutating func skipWhitespace() throws(JSONParseError) {
            while index < count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D:
                    index += 1
                case UInt8(ascii: "/") where options.allowsComments:
                    try skipComment()
                default:
                    return
                }
            }
        }

        private mutating func skipComment() throws(JSONParseError) {
            let next = index + 1 < count ? bytes[index + 1] : 0
            if next == UInt8(ascii: "/") {
                index += 2
                while index < count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
            } else if next == UInt8(ascii: "*") {
                let start = index
                index += 2
                while index + 1 < count, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) {
                    index += 1
                }
                guard index + 1 < count else {
                    index = start
                    throw fail("a /* comment is never closed with */")
                }
                index += 2
            } else {
                throw fail("unexpected character '/' (comments start with // or /*)")
            }
        }

        private mutating func parseValue() throws(JSONParseError) -> JSONNode {
            try skipWhitespace()
            guard index < count else { throw fail("expected a value but the text ended") }
            let start = index
            let kind: JSONNode.Kind
            switch bytes[index] {
            case UInt8(ascii: "{"): kind = try parseObject()
            case UInt8(ascii: "["): kind = try parseArray()
            case UInt8(ascii: "\""): kind = .string(try parseString())
            case UInt8(ascii: "'") where options.allowsSingleQuotes: kind = .string(try parseString())
            case UInt8(ascii: "t"): kind = try parseLiteral("true", .bool(true))
            case UInt8(ascii: "f"): kind = try parseLiteral("false", .bool(false))
            case UInt8(ascii: "n"): kind = try parseLiteral("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): kind = try parseNumber()
            default: throw fail("unexpected character \(JSONParser.describe(byte: bytes[index]))")
            }
            return JSONNode(kind: kind, offset: start)
        }

        private mutating func parseLiteral(_ word: StaticString, _ value: JSONNode.Kind) throws(JSONParseError)
            -> JSONNode.Kind
        {
            let length = word.utf8CodeUnitCount
            guard count - index >= length else { throw fail("expected '\(word)'") }
            let expected = word.utf8Start
            for offset in 0..<length where bytes[index + offset] != expected[offset] {
                throw fail("expected '\(word)'")
            }
            index += length
            return value
        }

        private mutating func enter() throws(JSONParseError) {
            depth += 1
            if depth > JSONParser.maximumDepth { throw fail("nesting deeper than \(JSONParser.maximumDepth) levels") }
        }

        private func isQuote(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "\"") || (options.allowsSingleQuotes && byte == UInt8(ascii: "'"))
        }

        private mutating func parseObject() throws(JSONParseError) -> JSONNode.Kind {
            try enter()
            defer { depth -= 1 }
            index += 1
            var members: [JSONNode.Member] = []
            try skipWhitespace()
            if index < count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            // Room for the few members most objects have, instead of growing through 1, 2 and 4.
            members.reserveCapacity(4)
            while true {
                try skipWhitespace()
                guard index < count, isQuote(bytes[index]) else {
                    throw fail(index < count ? "expected a key in quotes" : "expected a key but the text ended")
                }
                let keyOffset = index
                let key = try parseString()
                try skipWhitespace()
                guard index < count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                index += 1
                members.append(JSONNode.Member(key: key, keyOffset: keyOffset, value: try parseValue()))
                if try closes(with: "}") { return .object(members) }
            }
        }

        private mutating func parseArray() throws(JSONParseError) -> JSONNode.Kind {
            try enter()
            defer { depth -= 1 }
            index += 1
            var items: [JSONNode] = []
            try skipWhitespace()
            if index < count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                items.append(try parseValue())
                if try closes(with: "]") { return .array(items) }
            }
        }

        /// After a member or item: consumes the `,` before the next one (false) or the closing bracket (true).
        private mutating func closes(with bracket: Unicode.Scalar) throws(JSONParseError) -> Bool {
            try skipWhitespace()
            guard index < count else { throw fail("expected ',' or '\(bracket)' but the text ended") }
            let byte = bytes[index]
            guard byte == UInt8(ascii: ",") || byte == UInt8(ascii: bracket) else {
                throw fail("expected ',' or '\(bracket)'")
            }
            index += 1
            return byte != UInt8(ascii: ",")
        }

        private mutating func parseNumber() throws(JSONParseError) -> JSONNode.Kind {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < count, isDigit(bytes[index]) else { throw fail("expected a digit") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < count, isDigit(bytes[index]) { index += 1 }
            }
            if index < count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < count, isDigit(bytes[index]) else { throw fail("expected a digit after '.'") }
                while index < count, isDigit(bytes[index]) { index += 1 }
            }
            if index < count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard index < count, isDigit(bytes[index]) else { throw fail("expected an exponent digit") }
                while index < count, isDigit(bytes[index]) { index += 1 }
            }
            return .number(JSONNumber(text: text(start, index)))
        }

        private func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }

        /// The bytes from `start` to `end` as text.
        private func text(_ start: Int, _ end: Int) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }

        /// Reads a string in the quotes at `index` (double, or single when allowed).
        private mutating func parseString() throws(JSONParseError) -> String {
            let quote = bytes[index]
            index += 1
            let start = index
            // The common case: no escape, so the string is the bytes between the quotes.
            while index < count {
                let byte = bytes[index]
                if byte == quote {
                    index += 1
                    return text(start, index - 1)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                index += 1
            }
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while true {
                guard index < count else { throw fail("unterminated string") }
                let byte = bytes[index]
                if byte == quote {
                    index += 1
                    return String(decoding: scratch, as: UTF8.self)
                }
                if byte < 0x20 { throw fail("control character in a string (escape it, as \\n or \\u00XX)") }
                guard byte == UInt8(ascii: "\\") else {
                    scratch.append(byte)
                    index += 1
                    continue
                }
                index += 1
                guard index < count else { throw fail("unterminated escape") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escaped)
                case UInt8(ascii: "'") where options.allowsSingleQuotes: scratch.append(escaped)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    let scalar = try parseUnicodeEscape()
                    UTF8.encode(scalar) { scratch.append($0) }
                default: throw fail("invalid escape")
                }
            }
        }

        private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
            guard count - index >= 4 else { throw fail("expected four hex digits") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = PercentEncoding.hexValue(bytes[index]) else { throw fail("expected a hex digit") }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        private mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
            let first = try parseHex4()
            if (0xD800...0xDBFF).contains(first), count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
            {
                index += 2
                let second = try parseHex4()
                guard (0xDC00...0xDFFF).contains(second) else { throw fail("invalid surrogate pair") }
                let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                return Unicode.Scalar(combined) ?? "\u{FFFD}"
            }
            return Unicode.Scalar(first) ?? "\u{FFFD}"
        }
    }
}
