import Foundation
import StuntDouble

/// The template parser's scanning: tags' ends, comments, whitespace, names and literal words.
extension TemplateParser {

    mutating func closeTag(triple: Bool, tagStart: Int) throws(TemplateSyntaxError) {
        skipSpaces()
        var stripAfter = false
        if bytes[safe: index] == UInt8(ascii: "~") {
            stripAfter = true
            index += 1
        }
        let end = triple ? "}}}" : "}}"
        guard starts(with: end) else {
            throw TemplateSyntaxError(message: "expected \(end) to close the tag", offset: index)
        }
        index += end.utf8.count
        if stripAfter {
            while let byte = bytes[safe: index], Self.isSpace(byte) { index += 1 }
        }
    }

    mutating func skipComment(from tagStart: Int) throws(TemplateSyntaxError) {
        let long = starts(with: "!--")
        let end = long ? "--}}" : "}}"
        while index < bytes.count {
            if starts(with: end) {
                index += end.utf8.count
                return
            }
            index += 1
        }
        throw TemplateSyntaxError(message: "a comment is never closed with \(end)", offset: tagStart)
    }

    func peekTagEnd() -> Bool {
        starts(with: "}}") || starts(with: "~}}")
    }

    func startsBlockParameters() -> Bool {
        guard starts(with: "as") else { return false }
        var next = index + 2
        guard let after = bytes[safe: next], Self.isSpace(after) else { return false }
        while let byte = bytes[safe: next], Self.isSpace(byte) { next += 1 }
        return bytes[safe: next] == UInt8(ascii: "|")
    }

    /// `name=` at the current place, or `nil`.
    func peekOptionName() -> String? {
        var end = index
        while let byte = bytes[safe: end], Self.isWordByte(byte) { end += 1 }
        guard end > index, bytes[safe: end] == UInt8(ascii: "=") else { return nil }
        return String(decoding: bytes[index..<end], as: UTF8.self)
    }

    mutating func matchWord(_ word: String) -> Bool {
        guard starts(with: word) else { return false }
        let after = bytes[safe: index + word.utf8.count]
        if let after, Self.isWordByte(after) || after == UInt8(ascii: ".") || after == UInt8(ascii: "/") {
            return false
        }
        index += word.utf8.count
        return true
    }

    func peek(_ byte: UInt8) -> Bool { bytes[safe: index] == byte }

    func starts(with text: String) -> Bool {
        var position = index
        for byte in text.utf8 {
            guard bytes[safe: position] == byte else { return false }
            position += 1
        }
        return true
    }

    mutating func skipSpaces() {
        while let byte = bytes[safe: index], Self.isSpace(byte) { index += 1 }
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Bytes of a name: anything but spaces, quotes and the characters that delimit paths and tags.
    static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "{"), UInt8(ascii: "}"),
            UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "="),
            UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "|"), UInt8(ascii: "~"):
            false
        default:
            true
        }
    }
}
