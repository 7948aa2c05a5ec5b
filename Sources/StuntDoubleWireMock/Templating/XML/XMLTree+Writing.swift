import Foundation
import StuntDouble

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

    /// What every child that is not text does first: counts itself, writes the text before it (when pretty)
    /// and closes its parent's start tag.
    mutating func beginChild() {
        if pretty {
            childCount += 1
            flushText(isText: false)
        }
        closeStartTag()
    }

    /// `ToStream.startElement` and the attributes `DOM2TO` adds after it: namespace declarations first.
    mutating func startElement(_ node: Int) {
        beginChild()
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
        beginChild()
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
        beginChild()
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
