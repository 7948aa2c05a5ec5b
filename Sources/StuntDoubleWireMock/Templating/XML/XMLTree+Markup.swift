import Foundation
import StuntDouble

/// Character data, and the markup inside content that is not an element: references, CDATA sections,
/// comments, processing instructions and the document type declaration.
extension XMLTreeBuilder {
    /// Reads character data up to the next markup or reference.
    mutating func scanText() throws(XMLSyntaxError) {
        var runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") { break }
            if byte < 0x20 {
                if byte == 0x0D {
                    pendingText.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    pendingText.append(0x0A)
                    index += 1
                    if index < bytes.count && bytes[index] == 0x0A { index += 1 }
                    runStart = index
                    continue
                }
                if Self.isForbiddenControl(byte) {
                    throw error("\(describe(index)) is not a character XML allows (in text)", at: index)
                }
            } else if byte == UInt8(ascii: "]") && hasPrefix("]]>", at: index) {
                throw error("']]>' is not allowed in text (it ends a CDATA section)", at: index)
            }
            index += 1
        }
        pendingText.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
    }

    // MARK: References

    /// Reads `&name;`, `&#n;` or `&#xh;`: the character it stands for.
    mutating func parseReference() throws(XMLSyntaxError) -> Unicode.Scalar {
        let start = index
        index += 1
        if index < bytes.count && bytes[index] == UInt8(ascii: "#") {
            index += 1
            let hexadecimal = index < bytes.count && bytes[index] == UInt8(ascii: "x")
            if hexadecimal { index += 1 }
            var value: UInt32 = 0
            var digits = 0
            while index < bytes.count {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f") where hexadecimal:
                    digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F") where hexadecimal:
                    digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: digit = UInt32.max
                }
                if digit == UInt32.max { break }
                value = min(value * (hexadecimal ? 16 : 10) + digit, 0x11_0000)
                digits += 1
                index += 1
            }
            guard digits > 0, index < bytes.count, bytes[index] == UInt8(ascii: ";") else {
                throw error("a malformed character reference (expected &#digits; or &#xhex;)", at: start)
            }
            index += 1
            guard let scalar = Unicode.Scalar(value), Self.isXMLCharacter(value) else {
                throw error("the character reference \(text(start..<index)) is not a character XML allows", at: start)
            }
            return scalar
        }
        guard let nameRange = scanName() else {
            throw error("'&' must start a reference such as &amp; (a literal '&' is written &amp;)", at: start)
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: ";") else {
            throw error("the reference to the entity \"\(text(nameRange))\" must end with ';'", at: start)
        }
        index += 1
        switch text(nameRange) {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "apos": return "'"
        case "quot": return "\""
        case let name:
            throw error(
                "the entity \"\(name)\" is not declared (only &lt; &gt; &amp; &apos; &quot; are: no DTD is read)",
                at: start)
        }
    }

    static func isXMLCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    // MARK: Other markup

    /// Reads `<![CDATA[...]]>` into the pending text.
    mutating func parseCDATA() throws(XMLSyntaxError) {
        let start = index
        index += 9
        let contentStart = index
        while index < bytes.count && !hasPrefix("]]>", at: index) { index += 1 }
        guard index < bytes.count else { throw error("the CDATA section is not closed", at: start) }
        let range = contentStart..<index
        try checkCharacters(range, in: "a CDATA section")
        index += 3
        if bytes[range].contains(0x0D) {
            pendingText.append(contentsOf: normalizedText(range).utf8)
        } else {
            pendingText.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
        }
    }

    /// Reads `<!-- ... -->`, in which `--` may not appear.
    mutating func parseComment() throws(XMLSyntaxError) {
        let start = index
        index += 4
        let contentStart = index
        while true {
            guard index + 1 < bytes.count else { throw error("the comment is not closed", at: start) }
            if bytes[index] == UInt8(ascii: "-") && bytes[index + 1] == UInt8(ascii: "-") {
                guard index + 2 < bytes.count, bytes[index + 2] == UInt8(ascii: ">") else {
                    if index + 2 >= bytes.count { throw error("the comment is not closed", at: start) }
                    throw error("'--' is not allowed inside a comment", at: index)
                }
                break
            }
            index += 1
        }
        let range = contentStart..<index
        try checkCharacters(range, in: "a comment")
        index += 3
        appendChild(.comment, value: normalizedText(range))
    }

    /// Reads `<?target data?>`, or the XML declaration at the start of the document (which leaves no node).
    mutating func parseProcessingInstruction() throws(XMLSyntaxError) {
        let start = index
        index += 2
        guard let targetRange = scanName() else {
            throw error("expected a processing instruction's target after '<?'", at: index)
        }
        let target = text(targetRange)
        let isDeclaration = target.lowercased() == "xml"
        if isDeclaration {
            guard start == documentStart else {
                throw error(
                    "the XML declaration is only allowed at the very start of the document (a processing "
                        + "instruction's target cannot be \"\(target)\")", at: start)
            }
            guard target == "xml" else { throw error("the XML declaration must be written <?xml", at: start) }
        }
        var dataStart = index
        if !hasPrefix("?>", at: index) {
            guard skipWhitespace() else {
                throw error("expected whitespace or '?>' after <?\(target), found \(describe(index))", at: index)
            }
            dataStart = index
        }
        while index < bytes.count && !hasPrefix("?>", at: index) { index += 1 }
        guard index < bytes.count else {
            throw error(isDeclaration ? "the XML declaration is not closed" : "<?\(target) is not closed", at: start)
        }
        let range = dataStart..<index
        try checkCharacters(range, in: "a processing instruction")
        index += 2
        if !isDeclaration {
            appendChild(.processingInstruction, nameID: intern(targetRange), value: normalizedText(range))
        }
    }

    /// Skips `<!DOCTYPE ...>` and its internal subset, reading nothing of it.
    mutating func skipDoctype() throws(XMLSyntaxError) {
        let start = index
        index += 9
        var inSubset = false
        while true {
            guard index < bytes.count else { throw error("the DOCTYPE declaration is not closed", at: start) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                let quoteOffset = index
                index += 1
                while index < bytes.count && bytes[index] != byte { index += 1 }
                guard index < bytes.count else {
                    throw error("a quoted string in the DOCTYPE is not closed", at: quoteOffset)
                }
            } else if inSubset && hasPrefix("<!--", at: index) {
                let commentOffset = index
                index += 4
                while index < bytes.count && !hasPrefix("-->", at: index) { index += 1 }
                guard index < bytes.count else { throw error("the comment is not closed", at: commentOffset) }
                index += 2
            } else if inSubset && hasPrefix("<?", at: index) {
                let instructionOffset = index
                while index < bytes.count && !hasPrefix("?>", at: index) { index += 1 }
                guard index < bytes.count else {
                    throw error("a processing instruction in the DOCTYPE is not closed", at: instructionOffset)
                }
                index += 1
            } else if inSubset {
                if byte == UInt8(ascii: "]") { inSubset = false }
            } else if byte == UInt8(ascii: "[") {
                inSubset = true
            } else if byte == UInt8(ascii: ">") {
                index += 1
                return
            }
            index += 1
        }
    }
}
