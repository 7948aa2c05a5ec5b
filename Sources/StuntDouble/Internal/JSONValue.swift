import Foundation

/// A parsed JSON value, compared semantically: object key order, whitespace and number spelling
/// (`1`, `1.0`, `1e0`) do not matter.
indirect enum JSONValue: Hashable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses JSON text (RFC 8259), or throws with the byte offset of the problem.
    static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: Array(data))
        return try parser.parseDocument()
    }

    /// Compact JSON text with sorted keys.
    var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number(let number): number.text
        case .string(let string): Self.quote(string)
        case .array(let items): "[" + items.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            "{"
                + members.sorted { $0.key < $1.key }.map { Self.quote($0.key) + ":" + $0.value.description }
                .joined(separator: ",") + "}"
        }
    }

    private static func quote(_ string: String) -> String {
        var output = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            default:
                if scalar.value < 0x20 {
                    output += String(format: "\\u%04x", scalar.value)
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        return output + "\""
    }

    /// The differences between an expected value and an actual one, as `path: expected …, found …` lines.
    static func differences(expected: JSONValue, actual: JSONValue, path: String = "$", limit: Int = 5) -> [String] {
        var found: [String] = []
        collectDifferences(expected, actual, path, limit, &found)
        return found
    }

    private static func collectDifferences(
        _ expected: JSONValue, _ actual: JSONValue, _ path: String, _ limit: Int, _ found: inout [String]
    ) {
        guard found.count < limit, expected != actual else { return }
        switch (expected, actual) {
        case (.object(let wanted), .object(let got)):
            for key in wanted.keys.sorted() {
                guard found.count < limit else { return }
                if let value = got[key] {
                    collectDifferences(wanted[key] ?? .null, value, "\(path).\(key)", limit, &found)
                } else {
                    found.append("\(path).\(key): missing (expected \(excerpt(wanted[key] ?? .null)))")
                }
            }
            for key in got.keys.sorted() where wanted[key] == nil && found.count < limit {
                found.append("\(path).\(key): unexpected (found \(excerpt(got[key] ?? .null)))")
            }
        case (.array(let wanted), .array(let got)) where wanted.count == got.count:
            for (index, pair) in zip(wanted, got).enumerated() {
                collectDifferences(pair.0, pair.1, "\(path)[\(index)]", limit, &found)
            }
        case (.array(let wanted), .array(let got)):
            found.append("\(path): expected \(wanted.count) elements, found \(got.count)")
        default:
            found.append("\(path): expected \(excerpt(expected)), found \(excerpt(actual))")
        }
    }

    private static func excerpt(_ value: JSONValue) -> String {
        Similarity.excerpt(value.description, limit: 60)
    }
}

/// A JSON number, kept as written and compared by value.
struct JSONNumber: Hashable, Sendable {
    let text: String

    private var integer: Int64? { Int64(text) }
    private var double: Double { Double(text) ?? .nan }

    static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        if let left = lhs.integer, let right = rhs.integer { return left == right }
        return lhs.double == rhs.double
    }

    func hash(into hasher: inout Hasher) {
        if let integer {
            hasher.combine(Double(integer))
        } else {
            hasher.combine(double)
        }
    }
}

/// Why JSON text did not parse.
struct JSONParseError: Error, CustomStringConvertible {
    let offset: Int
    let reason: String

    var description: String { "\(reason) at byte \(offset)" }
}

private struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected text after the JSON value") }
        return value
    }

    private func fail(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
            index += 1
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw fail("expected a value but the text ended") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character '\(Character(UnicodeScalar(bytes[index])))'")
        }
    }

    private mutating func parseLiteral(_ word: String, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<(index + expected.count)]) == expected else {
            throw fail("expected '\(word)'")
        }
        index += expected.count
        return value
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > 512 { throw fail("nesting deeper than 512 levels") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key string") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            members[key] = try parseValue()
            skipWhitespace()
            guard index < bytes.count else { throw fail("expected ',' or '}' but the text ended") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            } else {
                throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw fail("expected ',' or ']' but the text ended") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            } else {
                throw fail("expected ',' or ']'")
            }
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected an exponent digit") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return .number(JSONNumber(text: String(decoding: bytes[start..<index], as: UTF8.self)))
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run = index
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                var text = String(scalars)
                text += String(decoding: bytes[run..<index], as: UTF8.self)
                index += 1
                return text
            }
            if byte < 0x20 { throw fail("control character in a string") }
            if byte == UInt8(ascii: "\\") {
                scalars.append(contentsOf: String(decoding: bytes[run..<index], as: UTF8.self).unicodeScalars)
                index += 1
                guard index < bytes.count else { throw fail("unterminated escape") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"): scalars.append(try parseUnicodeEscape())
                default: throw fail("invalid escape")
                }
                run = index
                continue
            }
            index += 1
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw fail("expected four hex digits") }
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
        if (0xD800...0xDBFF).contains(first), bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
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
