/// What an ``XMLTree`` node is.
enum XMLNodeKind: UInt8, Sendable {
    /// The document itself: the root of the tree, parent of the root element.
    case document
    case element
    case attribute
    /// Character data: adjacent text and CDATA sections are one node (as in a DOM after `normalize()`).
    case text
    case comment
    case processingInstruction
}

/// A node of an ``XMLTree``: its index in document order, so that comparing two nodes compares their positions
/// (an element's attributes come after it and before its children).
struct XMLNodeID: Hashable, Comparable, Sendable {
    /// The node's position in document order: the document node is 0.
    let index: Int

    static func < (lhs: XMLNodeID, rhs: XMLNodeID) -> Bool { lhs.index < rhs.index }
}

/// Why a text is not well-formed XML, and where.
struct XMLSyntaxError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, for a person.
    let message: String
    /// The offset in the text's UTF-8 where the problem is.
    let offset: Int

    var description: String { "\(message) (at byte \(offset))" }
}

/// A parsed XML document: immutable, its nodes in document order.
///
/// Parsed as Java's DOM parser reads a request body without namespace processing: names keep their prefixes
/// (`soap:Envelope`), `xmlns` attributes are ordinary attributes, an element's attributes are sorted by name (as
/// Xerces keeps them), line ends are normalized, a DOCTYPE is skipped without reading or expanding anything (so
/// only the five predefined entities and character references are known), and whitespace outside the root
/// element is dropped. Whitespace-only text inside elements is kept.
///
/// Nodes are stored as parallel arrays indexed by ``XMLNodeID/index``: no node is an object, nothing recurses
/// over the tree's depth, and memory is linear in the document's size.
struct XMLTree: Sendable {
    let kinds: [XMLNodeKind]
    /// Each node's name (an index in ``names``), or -1 for nodes without one (document, text, comment).
    let nameIDs: [Int32]
    /// An attribute's value, a text's characters, a comment's text, a processing instruction's data; `""` for
    /// documents and elements.
    let values: [String]
    /// Each node's parent (an attribute's is its element), -1 for the document.
    let parents: [Int32]
    /// Where each node's subtree ends: the index after its last descendant (after its attributes for an element
    /// with none).
    let ends: [Int32]
    /// Each node's previous sibling, -1 for none (attributes have no siblings).
    let previousSiblings: [Int32]
    /// The distinct names, each once: qualified names (`soap:Envelope`) of elements and attributes, and targets
    /// of processing instructions.
    let names: [String]
    /// Each name's local part (after the first colon, or the whole name), an index in ``localNames``.
    let localNameIDs: [Int32]
    /// The distinct local parts of ``names``.
    let localNames: [String]
    /// The index of each local name in ``localNames``.
    let localNameTable: [String: Int32]
    /// Whether each name is `xmlns` or `xmlns:prefix`: a namespace declaration, which XPath does not see as an
    /// attribute.
    let isNamespaceDeclaration: [Bool]
    /// For each index (and the node count), the first text node at or after it, or the node count: what an
    /// element's text content reads without walking its other descendants.
    let nextTexts: [Int32]

    /// Parses a document.
    /// - Throws: What is wrong with the text (mismatched or unclosed tags, a second root element, text outside
    ///   the root element, bad attribute syntax, an unknown entity...) and its byte offset.
    init(parsing text: String) throws(XMLSyntaxError) {
        var text = text
        let result = text.withUTF8 { bytes in
            Result { () throws(XMLSyntaxError) in
                var builder = XMLTreeBuilder(bytes: bytes)
                try builder.parseDocument()
                return builder.tree()
            }
        }
        self = try result.get()
    }

    /// A tree from its arrays (see the properties), its name tables derived from `names`.
    init(
        kinds: [XMLNodeKind], nameIDs: [Int32], values: [String], parents: [Int32], ends: [Int32],
        previousSiblings: [Int32], names: [String]
    ) {
        self.kinds = kinds
        self.nameIDs = nameIDs
        self.values = values
        self.parents = parents
        self.ends = ends
        self.previousSiblings = previousSiblings
        self.names = names
        var localNames: [String] = []
        var localNameTable: [String: Int32] = [:]
        var localNameIDs: [Int32] = []
        localNameIDs.reserveCapacity(names.count)
        for name in names {
            let local = Self.localPart(of: name)
            if let id = localNameTable[local] {
                localNameIDs.append(id)
            } else {
                let id = Int32(localNames.count)
                localNames.append(local)
                localNameTable[local] = id
                localNameIDs.append(id)
            }
        }
        self.localNames = localNames
        self.localNameTable = localNameTable
        self.localNameIDs = localNameIDs
        isNamespaceDeclaration = names.map { $0 == "xmlns" || $0.hasPrefix("xmlns:") }
        var nextTexts = [Int32](repeating: Int32(kinds.count), count: kinds.count + 1)
        for index in kinds.indices.reversed() {
            nextTexts[index] = kinds[index] == .text ? Int32(index) : nextTexts[index + 1]
        }
        self.nextTexts = nextTexts
    }

    /// A name's local part: after its first colon, or the whole name.
    static func localPart(of name: String) -> String {
        guard let colon = name.utf8.firstIndex(of: UInt8(ascii: ":")) else { return name }
        return String(name[name.utf8.index(after: colon)...])
    }

    // MARK: - Nodes

    /// The document node: the parent of the root element and of comments and processing instructions around it.
    var root: XMLNodeID { XMLNodeID(index: 0) }

    /// The root element.
    var documentElement: XMLNodeID? {
        children(of: root).first { kind(of: $0) == .element }
    }

    /// How many nodes the document has, attributes and the document node included.
    var nodeCount: Int { kinds.count }

    func kind(of node: XMLNodeID) -> XMLNodeKind { kinds[node.index] }

    /// An element's or attribute's qualified name (`soap:Envelope`), a processing instruction's target, or `""`.
    func name(of node: XMLNodeID) -> String {
        let id = nameIDs[node.index]
        return id < 0 ? "" : names[Int(id)]
    }

    /// An element's or attribute's name without its prefix, a processing instruction's target, or `""`.
    func localName(of node: XMLNodeID) -> String {
        let id = nameIDs[node.index]
        return id < 0 ? "" : localNames[Int(localNameIDs[Int(id)])]
    }

    /// An attribute's value, a text's characters, a comment's text, or a processing instruction's data; `""` for
    /// the document and elements (see ``textContent(of:)``).
    func value(of node: XMLNodeID) -> String { values[node.index] }

    /// The node's parent: an attribute's element, `nil` for the document.
    func parent(of node: XMLNodeID) -> XMLNodeID? {
        let parent = parents[node.index]
        return parent < 0 ? nil : XMLNodeID(index: Int(parent))
    }

    /// An element's attributes, sorted by name, `xmlns` declarations included (as a DOM has them).
    func attributes(of node: XMLNodeID) -> [XMLNodeID] {
        var result: [XMLNodeID] = []
        var index = node.index + 1
        while index < kinds.count && kinds[index] == .attribute && Int(parents[index]) == node.index {
            result.append(XMLNodeID(index: index))
            index += 1
        }
        return result
    }

    /// The value of an element's attribute with this (qualified) name.
    func attribute(_ name: String, of node: XMLNodeID) -> String? {
        attributes(of: node).first { self.name(of: $0) == name }.map(value(of:))
    }

    /// The node's children in document order (elements, texts, comments, processing instructions).
    func children(of node: XMLNodeID) -> [XMLNodeID] {
        var result: [XMLNodeID] = []
        var child = firstChild(of: node.index)
        while child >= 0 {
            result.append(XMLNodeID(index: child))
            child = nextSibling(of: child)
        }
        return result
    }

    /// The index of a node's first child, or -1.
    func firstChild(of index: Int) -> Int {
        let end = Int(ends[index])
        var child = index + 1
        while child < end && kinds[child] == .attribute { child += 1 }
        return child < end ? child : -1
    }

    /// The index of a node's next sibling, or -1.
    func nextSibling(of index: Int) -> Int {
        let parent = Int(parents[index])
        guard parent >= 0, kinds[index] != .attribute else { return -1 }
        let next = Int(ends[index])
        return next < Int(ends[parent]) ? next : -1
    }

    /// The text of a node as DOM's `getTextContent()` gives it (and XPath's string-value): the document's or an
    /// element's text descendants concatenated (comments and processing instructions left out), an attribute's
    /// value, a text's characters, a comment's text, a processing instruction's data.
    func textContent(of node: XMLNodeID) -> String {
        let index = node.index
        switch kinds[index] {
        case .document, .element:
            let end = Int(ends[index])
            var text = Int(nextTexts[index])
            guard text < end else { return "" }
            var result = values[text]
            text = Int(nextTexts[text + 1])
            while text < end {
                result += values[text]
                text = Int(nextTexts[text + 1])
            }
            return result
        case .attribute, .text, .comment, .processingInstruction:
            return values[index]
        }
    }
}

// MARK: - Parsing

/// The state of one parse: the tree as built so far and the elements still open.
private struct XMLTreeBuilder {
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
        var ends = ends
        ends[0] = Int32(kinds.count)
        return XMLTree(
            kinds: kinds, nameIDs: nameIDs, values: values, parents: parents, ends: ends,
            previousSiblings: previousSiblings, names: names)
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

// MARK: - Serializing

extension XMLTree {
    /// Writes a node as XML, as WireMock writes one with Java's `Transformer`.
    ///
    /// With `pretty`, as with `INDENT=yes`, an indent amount of 2 and no XML declaration: an element whose
    /// children include markup puts each child on a line of its own, indented by two spaces a level (text among
    /// elements too), and an element with only text keeps it inline; the whole ends with a line feed (unless it
    /// ends with text). Without `pretty`, nothing is added. Either way, whitespace-only text in an element with
    /// markup children is left out (except under `xml:space="preserve"`), attributes are written in the order of
    /// their names with `xmlns` declarations first (the first element's own prefix's first of all; a declaration
    /// already in effect in what is written is left out), text escapes `& < >` and a carriage return, attribute values escape `& < > "` and tabs and line
    /// ends, and control characters and characters beyond U+FFFF are written as references (`&#128512;`), as the
    /// JDK's serializer writes them.
    ///
    /// The document node writes its children (the root element, comments and processing instructions around it);
    /// a text writes its escaped characters; an attribute writes `name="value"`.
    func serialized(_ node: XMLNodeID, pretty: Bool) -> String {
        var writer = XMLWriter(tree: self, pretty: pretty)
        let index = node.index
        if kinds[index] == .attribute {
            writer.append(names[Int(nameIDs[index])])
            writer.append("=\"")
            writer.appendEscaped(values[index], inAttribute: true)
            writer.append("\"")
            return writer.result
        }
        /// The elements written but not ended, and whether each drops whitespace-only text.
        var open: [(node: Int, dropsBlankText: Bool)] = []
        let end = Int(ends[index])
        var position = kinds[index] == .document ? index + 1 : index
        while position < end {
            while let top = open.last, Int(ends[top.node]) <= position {
                writer.endElement(top.node)
                open.removeLast()
            }
            switch kinds[position] {
            case .element:
                writer.startElement(position)
                open.append((position, hasMarkupChild(position)))
            case .text:
                let value = values[position]
                let dropped = (open.last?.dropsBlankText ?? false) && !writer.preservesSpace && Self.isBlank(value)
                if !dropped { writer.characters(value) }
            case .comment:
                writer.comment(values[position])
            case .processingInstruction:
                writer.processingInstruction(names[Int(nameIDs[position])], values[position])
            case .attribute, .document:
                break
            }
            position += 1
        }
        while let top = open.popLast() { writer.endElement(top.node) }
        writer.endDocument()
        return writer.result
    }

    /// Whether a node has a child element, comment or processing instruction.
    func hasMarkupChild(_ index: Int) -> Bool {
        var child = firstChild(of: index)
        while child >= 0 {
            if kinds[child] != .text { return true }
            child = nextSibling(of: child)
        }
        return false
    }

    static func isBlank(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }
    }
}

/// The JDK's XML serializer (`ToStream` fed by `DOM2TO`), its indentation rules included: the same events, the
/// same state, the same output.
private struct XMLWriter {
    /// A namespace declaration written, in effect until its element ends.
    struct NamespaceMapping {
        let prefix: String
        let uri: String
        let depth: Int
    }

    let tree: XMLTree
    /// Whether to indent (`INDENT=yes`).
    let pretty: Bool
    var output: [UInt8] = []
    /// How many elements are open.
    var depth = 0
    /// How many children of the innermost open element were written (text counted when flushed).
    var childCount = 0
    var childCounts: [Int] = []
    var previousWasText = false
    var startsNewLine = false
    var startTagOpen = false
    /// Text held back until the next node decides whether it goes on a line of its own.
    var bufferedText: [String] = []
    /// Whether the innermost element has `xml:space="preserve"` (inherited).
    var preservesSpace = false
    var preservesSpaceStack: [Bool] = []
    /// Whether no element was written yet: the first one (`ToUnknownStream`'s first tag) writes the declaration
    /// of its own prefix before its other ones.
    var isFirstElement = true
    var namespaces = [
        NamespaceMapping(prefix: "", uri: "", depth: -1),
        NamespaceMapping(prefix: "xml", uri: "http://www.w3.org/XML/1998/namespace", depth: -1),
    ]

    init(tree: XMLTree, pretty: Bool) {
        self.tree = tree
        self.pretty = pretty
    }

    var result: String { String(decoding: output, as: UTF8.self) }

    var formatsOutput: Bool { pretty && !preservesSpace }
    var indents: Bool { formatsOutput && depth > 0 }

    mutating func append(_ text: String) { output.append(contentsOf: text.utf8) }

    mutating func indent(_ level: Int) {
        if startsNewLine { output.append(0x0A) }
        output.append(contentsOf: repeatElement(0x20, count: level * 2))
    }

    mutating func closeStartTag() {
        if startTagOpen {
            output.append(UInt8(ascii: ">"))
            startTagOpen = false
        }
    }

    /// `ToStream.startElement` and the attributes `DOM2TO` adds after it: namespace declarations first.
    mutating func startElement(_ node: Int) {
        if pretty {
            childCount += 1
            flushText(isText: false)
        }
        closeStartTag()
        if indents && startsNewLine { indent(depth) }
        startsNewLine = true
        output.append(UInt8(ascii: "<"))
        append(tree.names[Int(tree.nameIDs[node])])
        if pretty {
            preservesSpace = preservesSpaceStack.last ?? false
            preservesSpaceStack.append(preservesSpace)
            childCounts.append(childCount)
            childCount = 0
        }
        depth += 1
        startTagOpen = true
        previousWasText = false
        let attributes = tree.attributes(of: XMLNodeID(index: node))
        if isFirstElement {
            isFirstElement = false
            let name = tree.names[Int(tree.nameIDs[node])]
            let declaration = name.utf8.firstIndex(of: UInt8(ascii: ":")).map { "xmlns:" + name[..<$0] } ?? "xmlns"
            if let own = attributes.first(where: { tree.name(of: $0) == declaration }) {
                declareNamespace(declaration, tree.value(of: own))
            }
        }
        for attribute in attributes where tree.name(of: attribute).hasPrefix("xmlns") {
            declareNamespace(tree.name(of: attribute), tree.value(of: attribute))
        }
        for attribute in attributes where !tree.name(of: attribute).hasPrefix("xmlns") {
            let name = tree.name(of: attribute)
            let value = tree.value(of: attribute)
            writeAttribute(name, value)
            if pretty && name == "xml:space" && (value == "preserve" || value == "default") {
                preservesSpace = value == "preserve"
                preservesSpaceStack[preservesSpaceStack.count - 1] = preservesSpace
            }
        }
    }

    /// Writes a namespace declaration unless the same one is in effect (or its prefix starts with `xml`, or it
    /// binds a prefix to nothing). As `DOM2TO` reads them, an attribute whose name starts with `xmlns` declares the
    /// prefix after its last colon, or the default namespace.
    mutating func declareNamespace(_ name: String, _ uri: String) {
        let prefix =
            name.utf8.lastIndex(of: UInt8(ascii: ":")).map { String(name[name.utf8.index(after: $0)...]) } ?? ""
        guard !prefix.hasPrefix("xml") else { return }
        if let current = namespaces.last(where: { $0.prefix == prefix }), current.uri == uri || current.depth == depth {
            return
        }
        namespaces.append(NamespaceMapping(prefix: prefix, uri: uri, depth: depth))
        if prefix.isEmpty {
            writeAttribute("xmlns", uri)
        } else if !uri.isEmpty {
            writeAttribute("xmlns:\(prefix)", uri)
        }
    }

    mutating func writeAttribute(_ name: String, _ value: String) {
        output.append(0x20)
        append(name)
        append("=\"")
        appendEscaped(value, inAttribute: true)
        output.append(UInt8(ascii: "\""))
    }

    /// `ToStream.endElement`: `/>` if nothing was written inside, otherwise the end tag, on a line of its own
    /// unless the element's only child was text.
    mutating func endElement(_ node: Int) {
        if pretty { flushText(isText: false) }
        while let last = namespaces.last, last.depth == depth { namespaces.removeLast() }
        if startTagOpen {
            append("/>")
            startTagOpen = false
        } else {
            if indents && (childCount > 1 || !previousWasText) { indent(depth - 1) }
            append("</")
            append(tree.names[Int(tree.nameIDs[node])])
            output.append(UInt8(ascii: ">"))
        }
        if pretty {
            preservesSpaceStack.removeLast()
            preservesSpace = preservesSpaceStack.last ?? false
            childCount = childCounts.removeLast()
            previousWasText = false
        }
        depth -= 1
    }

    /// `ToStream.characters`: text is held back while indenting.
    mutating func characters(_ text: String) {
        guard !text.isEmpty else { return }
        closeStartTag()
        if formatsOutput {
            bufferedText.append(text)
        } else {
            appendEscaped(text, inAttribute: false)
            previousWasText = true
        }
    }

    /// Writes the text held back, on a line of its own when it is not an element's first child.
    mutating func flushText(isText: Bool) {
        defer { bufferedText.removeAll() }
        guard formatsOutput, !bufferedText.isEmpty else { return }
        if !isText { childCount += 1 }
        var skipsNewlines = false
        if indents && childCount > 1 {
            indent(depth)
            startsNewLine = true
            skipsNewlines = true
        }
        for text in bufferedText {
            var start = text.utf8.startIndex
            if skipsNewlines {
                while start < text.utf8.endIndex && text.utf8[start] == 0x0A { start = text.utf8.index(after: start) }
                if start == text.utf8.endIndex { continue }
            }
            appendEscaped(String(text[start...]), inAttribute: false)
            previousWasText = true
            skipsNewlines = false
        }
    }

    /// `ToStream.comment`: `--` written `- -`, on a line of its own inside an element.
    mutating func comment(_ text: String) {
        if pretty {
            childCount += 1
            flushText(isText: false)
        }
        closeStartTag()
        if indents { indent(depth) }
        append("<!--")
        var previousWasDash = false
        for byte in text.utf8 {
            if previousWasDash && byte == UInt8(ascii: "-") { output.append(0x20) }
            output.append(byte)
            previousWasDash = byte == UInt8(ascii: "-")
        }
        if previousWasDash { output.append(0x20) }
        append("-->")
        startsNewLine = true
    }

    /// `ToXMLStream.processingInstruction`, on a line of its own inside an element.
    mutating func processingInstruction(_ target: String, _ data: String) {
        if pretty {
            childCount += 1
            flushText(isText: false)
        }
        closeStartTag()
        if indents { indent(depth) }
        append("<?")
        append(target)
        if let first = data.unicodeScalars.first, !Self.isSpaceCharacter(first) { output.append(0x20) }
        var remaining = Substring(data)
        while let marker = remaining.firstRange(of: "?>") {
            append(String(remaining[..<marker.lowerBound]))
            append("? >")
            remaining = remaining[marker.upperBound...]
        }
        append(String(remaining))
        append("?>")
        startsNewLine = true
    }

    /// Java's `Character.isSpaceChar`: a space, line or paragraph separator.
    static func isSpaceCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .spaceSeparator, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// `ToXMLStream.endDocument`: a final line feed when indenting, unless text came last.
    mutating func endDocument() {
        if pretty {
            flushText(isText: false)
            if !previousWasText { output.append(0x0A) }
        }
    }

    /// Appends text escaped as the JDK's serializer escapes it, in a text node or in an attribute value.
    mutating func appendEscaped(_ text: String, inAttribute: Bool) {
        var text = text
        text.withUTF8 { bytes in
            var position = 0
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "&"): append("&amp;")
                case UInt8(ascii: "<"): append("&lt;")
                case UInt8(ascii: ">"): append("&gt;")
                case UInt8(ascii: "\"") where inAttribute: append("&quot;")
                case 0x0A where !inAttribute: output.append(0x0A)
                case 0x09 where !inAttribute: output.append(0x09)
                // Outside any element (a text written alone), the JDK writes a carriage return as it is.
                case 0x0D where !inAttribute && depth == 0: output.append(0x0D)
                case 0..<0x20, 0x7F: appendReference(UInt32(byte))
                case 0xC2 where position + 1 < bytes.count && (0x80...0x9F).contains(bytes[position + 1]):
                    appendReference(UInt32(bytes[position + 1]))
                    position += 1
                case 0xF0...0xF4 where position + 3 < bytes.count:
                    let value =
                        UInt32(byte & 0x07) << 18 | UInt32(bytes[position + 1] & 0x3F) << 12
                        | UInt32(bytes[position + 2] & 0x3F) << 6 | UInt32(bytes[position + 3] & 0x3F)
                    appendReference(value)
                    position += 3
                default: output.append(byte)
                }
                position += 1
            }
        }
    }

    mutating func appendReference(_ value: UInt32) {
        append("&#\(value);")
    }
}
