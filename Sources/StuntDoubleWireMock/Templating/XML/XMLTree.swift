import StuntDouble

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

    /// The tree a parse built, its document node closed and its name tables derived from the names it read.
    init(built builder: XMLTreeBuilder) {
        let kinds = builder.kinds
        self.kinds = kinds
        nameIDs = builder.nameIDs
        values = builder.values
        parents = builder.parents
        var ends = builder.ends
        ends[0] = Int32(kinds.count)
        self.ends = ends
        previousSiblings = builder.previousSiblings
        let names = builder.names
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
