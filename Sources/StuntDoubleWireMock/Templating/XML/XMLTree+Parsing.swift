import Foundation
import StuntDouble

// MARK: - Parsing

/// The state of one parse: the tree as built so far and the elements still open.
struct XMLTreeBuilder {
    /// An element whose end tag has not been read yet.
    struct OpenElement {
        let node: Int32
        /// Where its name is in the text, to compare it with the end tag's.
        let nameStart: Int
        let nameEnd: Int
        /// Where its start tag is, for diagnostics.
        let tagOffset: Int
        var lastChild: Int32 = -1
    }

    /// An attribute read from a start tag, before it is sorted and stored.
    struct PendingAttribute {
        let nameID: Int32
        let value: String
        let offset: Int
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Where the document starts (after a byte order mark): the only place an XML declaration may be.
    var documentStart = 0

    var kinds: [XMLNodeKind] = [.document]
    var nameIDs: [Int32] = [-1]
    var values: [String] = [""]
    var parents: [Int32] = [-1]
    var ends: [Int32] = [0]
    var previousSiblings: [Int32] = [-1]
    var names: [String] = []
    var nameTable: [String: Int32] = [:]

    var stack: [OpenElement] = []
    var documentLastChild: Int32 = -1
    var rootElementName: String?
    var sawDoctype = false
    /// Character data read since the last node, which becomes one text node.
    var pendingText: [UInt8] = []
    /// Where an attribute value with references or line ends is assembled.
    var scratch: [UInt8] = []
    var pendingAttributes: [PendingAttribute] = []

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func tree() -> XMLTree {
        XMLTree(built: self)
    }

    // MARK: Bytes

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    static func isNameStart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
            UInt8(ascii: ":"), 0x80...:
            true
        default: false
        }
    }

    static func isNameCharacter(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    /// A control character that XML 1.0 does not allow anywhere (all below 0x20 but tab, line feed and return).
    static func isForbiddenControl(_ byte: UInt8) -> Bool {
        byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D
    }

    /// A byte as a diagnostic shows it.
    func describe(_ offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the document" }
        let byte = bytes[offset]
        return (0x21...0x7E).contains(byte)
            ? "'\(Character(UnicodeScalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    func hasPrefix(_ prefix: StaticString, at offset: Int) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        let start = prefix.utf8Start
        for position in 0..<count where bytes[offset + position] != start[position] { return false }
        return true
    }

    func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    func error(_ message: String, at offset: Int) -> XMLSyntaxError {
        XMLSyntaxError(message: message, offset: offset)
    }

    mutating func skipWhitespace() -> Bool {
        let start = index
        while index < bytes.count && Self.isWhitespace(bytes[index]) { index += 1 }
        return index > start
    }

    /// Reads a name, or returns `nil` (reading nothing) when none starts here.
    mutating func scanName() -> Range<Int>? {
        guard index < bytes.count, Self.isNameStart(bytes[index]) else { return nil }
        let start = index
        index += 1
        while index < bytes.count && Self.isNameCharacter(bytes[index]) { index += 1 }
        return start..<index
    }

    mutating func intern(_ range: Range<Int>) -> Int32 {
        let name = text(range)
        if let id = nameTable[name] { return id }
        let id = Int32(names.count)
        names.append(name)
        nameTable[name] = id
        return id
    }

    /// Decodes a range as text, with line ends normalized (`\r\n` and `\r` become `\n`).
    func normalizedText(_ range: Range<Int>) -> String {
        guard bytes[range].contains(0x0D) else { return text(range) }
        var result: [UInt8] = []
        result.reserveCapacity(range.count)
        var position = range.lowerBound
        while position < range.upperBound {
            let byte = bytes[position]
            position += 1
            if byte == 0x0D {
                result.append(0x0A)
                if position < range.upperBound && bytes[position] == 0x0A { position += 1 }
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    func checkCharacters(_ range: Range<Int>, in what: String) throws(XMLSyntaxError) {
        for position in range where Self.isForbiddenControl(bytes[position]) {
            throw error("\(describe(position)) is not a character XML allows (in \(what))", at: position)
        }
    }

    // MARK: Nodes

    /// Adds a node as the next child of the innermost open element (or of the document).
    @discardableResult
    mutating func appendChild(_ kind: XMLNodeKind, nameID: Int32 = -1, value: String = "") -> Int32 {
        let node = Int32(kinds.count)
        kinds.append(kind)
        nameIDs.append(nameID)
        values.append(value)
        ends.append(node + 1)
        if stack.isEmpty {
            parents.append(0)
            previousSiblings.append(documentLastChild)
            documentLastChild = node
        } else {
            parents.append(stack[stack.count - 1].node)
            previousSiblings.append(stack[stack.count - 1].lastChild)
            stack[stack.count - 1].lastChild = node
        }
        return node
    }

    mutating func flushText() {
        guard !pendingText.isEmpty else { return }
        appendChild(.text, value: String(decoding: pendingText, as: UTF8.self))
        pendingText.removeAll(keepingCapacity: true)
    }

    // MARK: Document

    /// Reads the whole text: the prolog, the root element, and what follows it.
    mutating func parseDocument() throws(XMLSyntaxError) {
        guard bytes.count < Int(Int32.max) else { throw error("the document is too large", at: 0) }
        if hasPrefix("\u{FEFF}", at: 0) { index = 3 }
        documentStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if stack.isEmpty {
                try parseOutsideRoot(byte)
            } else if byte == UInt8(ascii: "<") {
                try parseMarkupInContent()
            } else if byte == UInt8(ascii: "&") {
                pendingText.append(contentsOf: UTF8.encode(try parseReference())!)
            } else {
                try scanText()
            }
        }
        if let open = stack.last {
            throw error(
                "the document ends before the end tag of <\(text(open.nameStart..<open.nameEnd))> (opened at byte "
                    + "\(open.tagOffset))", at: bytes.count)
        }
        guard rootElementName != nil else { throw error("the document has no root element", at: bytes.count) }
    }

    /// Reads what may come before or after the root element: whitespace, comments, processing instructions,
    /// a DOCTYPE, and the root element itself.
    mutating func parseOutsideRoot(_ byte: UInt8) throws(XMLSyntaxError) {
        if Self.isWhitespace(byte) {
            index += 1
        } else if hasPrefix("<?", at: index) {
            try parseProcessingInstruction()
        } else if hasPrefix("<!--", at: index) {
            try parseComment()
        } else if hasPrefix("<!DOCTYPE", at: index) {
            guard rootElementName == nil, !sawDoctype else {
                throw error(
                    rootElementName == nil
                        ? "a second DOCTYPE declaration" : "a DOCTYPE declaration after the root element",
                    at: index)
            }
            sawDoctype = true
            try skipDoctype()
        } else if hasPrefix("</", at: index) {
            throw error("an end tag with no element open", at: index)
        } else if byte == UInt8(ascii: "<") && index + 1 < bytes.count && Self.isNameStart(bytes[index + 1]) {
            if let root = rootElementName {
                throw error(
                    "a second root element: a document has one root element, and <\(root)> has ended", at: index)
            }
            try parseStartTag()
        } else if byte == UInt8(ascii: "<") {
            throw error("unexpected \(describe(index + 1)) after '<'", at: index + 1)
        } else if let root = rootElementName {
            throw error("text after the root element <\(root)> has ended", at: index)
        } else {
            throw error("text before the root element (a document must start with markup)", at: index)
        }
    }

    /// Reads markup inside an element: an end tag, a comment, a CDATA section, a processing instruction, or a
    /// start tag (text read until then becomes a node first, except before a CDATA section, which it joins).
    mutating func parseMarkupInContent() throws(XMLSyntaxError) {
        if hasPrefix("</", at: index) {
            flushText()
            try parseEndTag()
        } else if hasPrefix("<!--", at: index) {
            flushText()
            try parseComment()
        } else if hasPrefix("<![CDATA[", at: index) {
            try parseCDATA()
        } else if hasPrefix("<?", at: index) {
            flushText()
            try parseProcessingInstruction()
        } else if hasPrefix("<!DOCTYPE", at: index) {
            throw error("a DOCTYPE declaration inside an element", at: index)
        } else if index + 1 < bytes.count && Self.isNameStart(bytes[index + 1]) {
            flushText()
            try parseStartTag()
        } else {
            throw error("unexpected \(describe(index + 1)) after '<' (a literal '<' is written &lt;)", at: index + 1)
        }
    }

    // MARK: Tags

    /// Reads `<name attributes>` or `<name attributes/>`: the element and its attributes (sorted by name, each
    /// once) become nodes.
    mutating func parseStartTag() throws(XMLSyntaxError) {
        let tagOffset = index
        index += 1
        guard let nameRange = scanName() else { throw error("expected an element name after '<'", at: index) }
        let elementName = text(nameRange)
        let nameID = intern(nameRange)
        pendingAttributes.removeAll(keepingCapacity: true)
        var selfClosing = false
        while true {
            let hadSpace = skipWhitespace()
            guard index < bytes.count else {
                throw error("the start tag <\(elementName)> (at byte \(tagOffset)) is not closed", at: index)
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: ">") {
                index += 1
                break
            }
            if byte == UInt8(ascii: "/") {
                guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ">") else {
                    throw error("expected '>' after '/' in the start tag <\(elementName)>", at: index + 1)
                }
                index += 2
                selfClosing = true
                break
            }
            guard hadSpace else {
                throw error(
                    "expected whitespace, '>' or '/>' in the start tag <\(elementName)>, found \(describe(index))",
                    at: index)
            }
            try parseAttribute(of: elementName)
        }
        if stack.isEmpty { rootElementName = elementName }
        let node = appendChild(.element, nameID: nameID)
        if pendingAttributes.count > 1 {
            let names = names
            pendingAttributes.sort {
                names[Int($0.nameID)].utf16.lexicographicallyPrecedes(names[Int($1.nameID)].utf16)
            }
            for position in 1..<pendingAttributes.count
            where pendingAttributes[position].nameID == pendingAttributes[position - 1].nameID {
                let later = max(pendingAttributes[position].offset, pendingAttributes[position - 1].offset)
                throw error(
                    "the attribute \"\(names[Int(pendingAttributes[position].nameID)])\" appears twice in "
                        + "<\(elementName)>", at: later)
            }
        }
        for attribute in pendingAttributes {
            kinds.append(.attribute)
            nameIDs.append(attribute.nameID)
            values.append(attribute.value)
            parents.append(node)
            ends.append(Int32(kinds.count))
            previousSiblings.append(-1)
        }
        if selfClosing {
            ends[Int(node)] = Int32(kinds.count)
        } else {
            stack.append(
                OpenElement(
                    node: node, nameStart: nameRange.lowerBound, nameEnd: nameRange.upperBound, tagOffset: tagOffset))
        }
    }

    /// Reads `name = "value"` in a start tag.
    mutating func parseAttribute(of elementName: String) throws(XMLSyntaxError) {
        let offset = index
        guard let nameRange = scanName() else {
            throw error("expected an attribute name in <\(elementName)>, found \(describe(index))", at: index)
        }
        let attributeName = text(nameRange)
        _ = skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
            throw error(
                "expected '=' after the attribute name \"\(attributeName)\" in <\(elementName)>, found "
                    + describe(index), at: index)
        }
        index += 1
        _ = skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            throw error(
                "the value of the attribute \"\(attributeName)\" in <\(elementName)> must be in quotes, found "
                    + describe(index), at: index)
        }
        let value = try scanAttributeValue(attributeName)
        pendingAttributes.append(PendingAttribute(nameID: intern(nameRange), value: value, offset: offset))
    }

    /// Reads a quoted attribute value: references replaced, each tab, line end or line feed one space.
    mutating func scanAttributeValue(_ attributeName: String) throws(XMLSyntaxError) -> String {
        let quote = bytes[index]
        let valueOffset = index
        index += 1
        var runStart = index
        var assembled = false
        scratch.removeAll(keepingCapacity: true)
        while true {
            guard index < bytes.count else {
                throw error("the value of the attribute \"\(attributeName)\" is not closed", at: valueOffset)
            }
            let byte = bytes[index]
            if byte == quote { break }
            switch byte {
            case UInt8(ascii: "<"):
                throw error("'<' is not allowed in the value of the attribute \"\(attributeName)\"", at: index)
            case UInt8(ascii: "&"):
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                let scalar = try parseReference()
                scratch.append(contentsOf: UTF8.encode(scalar)!)
                runStart = index
                assembled = true
            case 0x09, 0x0A, 0x0D:
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                scratch.append(0x20)
                index += 1
                if byte == 0x0D && index < bytes.count && bytes[index] == 0x0A { index += 1 }
                runStart = index
                assembled = true
            case 0..<0x20:
                throw error(
                    "\(describe(index)) is not a character XML allows (in the attribute \"\(attributeName)\")",
                    at: index)
            default:
                index += 1
            }
        }
        defer { index += 1 }
        guard assembled else { return text(runStart..<index) }
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
        return String(decoding: scratch, as: UTF8.self)
    }

    /// Reads `</name>`, which must close the innermost open element.
    mutating func parseEndTag() throws(XMLSyntaxError) {
        let tagOffset = index
        index += 2
        guard let nameRange = scanName() else { throw error("expected an element name after '</'", at: index) }
        _ = skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else {
            throw error("expected '>' to end the end tag </\(text(nameRange))>, found \(describe(index))", at: index)
        }
        index += 1
        let open = stack[stack.count - 1]
        let matches =
            nameRange.count == open.nameEnd - open.nameStart
            && bytes[nameRange].elementsEqual(bytes[open.nameStart..<open.nameEnd])
        guard matches else {
            throw error(
                "the end tag </\(text(nameRange))> does not match the start tag "
                    + "<\(text(open.nameStart..<open.nameEnd))> (at byte \(open.tagOffset))", at: tagOffset)
        }
        stack.removeLast()
        ends[Int(open.node)] = Int32(kinds.count)
    }
}
