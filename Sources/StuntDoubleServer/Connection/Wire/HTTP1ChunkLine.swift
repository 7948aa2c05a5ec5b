/// A chunked body's size lines, as the parser reads them (RFC 9112, section 7.1.1).
extension HTTP1RequestParser {
    /// A chunk's size: hexadecimal digits, then extensions (`;name` or `;name=value`, the value a token or a quoted
    /// string), which are read past; `nil` for anything else (RFC 9112, section 7.1.1).
    static func chunkSize(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        var size = 0
        var index = range.lowerBound
        while index < range.upperBound, let digit = hexValue(bytes[index]) {
            guard size <= (Int.max >> 8) else { return nil }
            size = size << 4 | digit
            index += 1
        }
        guard index > range.lowerBound else { return nil }
        func skipSpaces() {
            while index < range.upperBound, bytes[index] == sp || bytes[index] == ht { index += 1 }
        }
        // Whitespace only before a `;` (RFC 9112's BWS), not at the line's end: "0 " is refused, as SwiftNIO does.
        func skipSpacesBeforeSemicolon() -> Bool {
            let start = index
            skipSpaces()
            return index == start || index < range.upperBound && bytes[index] == UInt8(ascii: ";")
        }
        func token() -> Bool {
            let start = index
            while index < range.upperBound, isTokenByte(bytes[index]) { index += 1 }
            return index > start
        }
        guard skipSpacesBeforeSemicolon() else { return nil }
        while index < range.upperBound {
            guard bytes[index] == UInt8(ascii: ";") else { return nil }
            index += 1
            skipSpaces()
            guard token() else { return nil }
            let nameEnd = index
            skipSpaces()
            if index < range.upperBound, bytes[index] == UInt8(ascii: "=") {
                index += 1
                skipSpaces()
                if index < range.upperBound, bytes[index] == UInt8(ascii: "\"") {
                    guard let end = quotedStringEnd(bytes, from: index, to: range.upperBound) else { return nil }
                    index = end
                } else if !token() {
                    return nil
                }
            } else {
                index = nameEnd
            }
            guard skipSpacesBeforeSemicolon() else { return nil }
        }
        return size
    }

    /// The index after a quoted string starting at `start` (its opening quote), or `nil` when it does not close or
    /// holds a control character.
    static func quotedStringEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        var index = start + 1
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return index + 1 }
            if byte < 0x20 && byte != ht || byte == 0x7F { return nil }
            // A quoted pair: the backslash and the byte after it.
            index += byte == UInt8(ascii: "\\") ? 2 : 1
        }
        return nil
    }
}
