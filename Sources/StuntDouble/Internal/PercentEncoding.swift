/// Percent-encoding (RFC 3986) as URI templates and URL matching need it.
package enum PercentEncoding {
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    package static func isReserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default: false
        }
    }

    package static func isHex(_ byte: UInt8) -> Bool {
        hexValue(byte) != nil
    }

    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// `%` and the byte's two upper-case hex digits.
    private static func appendEscape(of byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "%"))
        output.append(hexDigits[Int(byte >> 4)])
        output.append(hexDigits[Int(byte & 0x0F)])
    }

    /// Encodes every byte that is not unreserved (nor reserved, nor part of a percent-encoded triplet,
    /// when `allowReserved`).
    package static func encode(_ string: String, allowReserved: Bool) -> String {
        let bytes = Array(string.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if isUnreserved(byte) || (allowReserved && isReserved(byte)) {
                output.append(byte)
            } else if allowReserved, byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHex(bytes[index + 1]),
                isHex(bytes[index + 2])
            {
                output.append(contentsOf: bytes[index...(index + 2)])
                index += 3
                continue
            } else {
                appendEscape(of: byte, to: &output)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A request target's path, query and fragment with every byte that may not stand where it is encoded (RFC 3986,
    /// section 3.3 to 3.5: `[`, `]`, spaces, `|`, a second `#`, a `%` before no two hex digits ...), and nothing
    /// else: Foundation's `URL(string:)` then keeps the text as it is. (Given a byte it must encode, it encodes
    /// every `%` as well: `?q=[x]%20` became `?q=%5Bx%5D%2520`, another query.)
    package static func encodingTarget<S: StringProtocol>(_ target: S) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(target.utf8.count)
        // 0: the path; 1: the query; 2: the fragment.
        var part = 0
        let bytes = Array(target.utf8)
        for (index, byte) in bytes.enumerated() {
            let keeps: Bool
            switch byte {
            case UInt8(ascii: "?"):
                keeps = true
                if part == 0 { part = 1 }
            case UInt8(ascii: "#"):
                keeps = part < 2
                part = 2
            case UInt8(ascii: "%"):
                keeps = index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
            case UInt8(ascii: "["), UInt8(ascii: "]"):
                keeps = false
            default:
                keeps = isUnreserved(byte) || isReserved(byte)
            }
            if keeps { output.append(byte) } else { appendEscape(of: byte, to: &output) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes percent-encoded UTF-8 bytes; a `%` not followed by two hex digits is kept as is.
    package static func decode(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(decoding: bytes, as: UTF8.self) }
        return decode(String(decoding: bytes, as: UTF8.self))
    }

    /// Decodes a form's or a query's value (`application/x-www-form-urlencoded`): `+` is a space.
    package static func decodeForm<S: StringProtocol>(_ string: S) -> String {
        guard string.utf8.contains(UInt8(ascii: "+")) else { return decode(string) }
        return decode(
            String(decoding: string.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self))
    }

    /// Decodes percent-encoded bytes; a `%` not followed by two hex digits is kept as is.
    package static func decode<S: StringProtocol>(_ string: S) -> String {
        guard string.utf8.contains(UInt8(ascii: "%")) else { return String(string) }
        let bytes = Array(string.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Upper-cases the hex digits of percent-encoded bytes, so `%c3%a9` and `%C3%A9` compare equal.
    package static func normalize(_ string: String) -> String {
        guard string.utf8.contains(UInt8(ascii: "%")) else { return string }
        var bytes = Array(string.utf8)
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), isHex(bytes[index + 1]), isHex(bytes[index + 2]) {
                for offset in 1...2 where bytes[index + offset] >= UInt8(ascii: "a") {
                    bytes[index + offset] -= 32
                }
                index += 3
            } else {
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The name-value pairs of a query or form body, `+` as space and percent-decoded: `a=1&b` gives
    /// `[("a", "1"), ("b", "")]`.
    package static func queryPairs(_ query: String?) -> [(name: String, value: String)] {
        queryPairs(query.map { Substring($0) })
    }

    /// The name-value pairs of a query or form body, as `queryPairs(_:)` of a `String` reads them.
    package static func queryPairs(_ query: Substring?) -> [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        // By bytes: splitting by characters costs a grapheme check per character.
        return query.utf8.split(separator: UInt8(ascii: "&")).map { pair in
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return (decodeForm(Substring(pair)), "") }
            return (decodeForm(Substring(pair[..<equals])), decodeForm(Substring(pair[pair.index(after: equals)...])))
        }
    }
}

extension Substring {
    /// Splits at an ASCII separator byte, keeping empty pieces. Byte-wise, so it skips the grapheme
    /// breaking that `split(separator:)` on characters does; URL delimiters are always ASCII.
    package func splitting(at separator: UInt8) -> [Substring] {
        var pieces: [Substring] = []
        var start = startIndex
        var index = utf8.startIndex
        while index < utf8.endIndex {
            if utf8[index] == separator {
                pieces.append(self[start..<index])
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        pieces.append(self[start..<endIndex])
        return pieces
    }
}
