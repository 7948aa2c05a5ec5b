import Foundation
import StuntDouble

/// What `xPath` and `soapXPath` select: the first node written, each node iterated, as WireMock's
/// `ListOrSingle<XmlNode>`.
struct XMLSelection: TemplateObject {
    let tree: XMLTree
    let nodes: [XMLNodeID]

    var text: String { nodes.first.map { XMLNodeValue(tree: tree, node: $0).text } ?? "" }

    func member(_ name: String) -> TemplateValue? {
        if let index = Int(name), nodes.indices.contains(index) {
            return .lazy(XMLNodeValue(tree: tree, node: nodes[index]))
        }
        return nodes.first.flatMap { XMLNodeValue(tree: tree, node: $0).member(name) }
    }

    var items: [(key: String?, value: TemplateValue)] {
        nodes.map { (nil, .lazy(XMLNodeValue(tree: tree, node: $0))) }
    }
}

/// One XML node, as WireMock's `XmlNode`: a text or an attribute writes its text, an element its XML (indented by
/// two, ending with a line break, as Java's transformer writes it); `name`, `text` and `attributes` are its members.
struct XMLNodeValue: TemplateObject {
    let tree: XMLTree
    let node: XMLNodeID

    var text: String {
        switch tree.kind(of: node) {
        case .element, .document: JavaXMLWriter.write(tree, node, pretty: true, dropsBlankText: false)
        default: tree.textContent(of: node)
        }
    }

    func member(_ name: String) -> TemplateValue? {
        switch name {
        case "name": .string(tree.name(of: node))
        case "text": .string(tree.textContent(of: node))
        case "attributes":
            .object(
                tree.attributes(of: node).map { (tree.name(of: $0), TemplateValue.string(tree.value(of: $0))) }
                    .sorted { $0.0 < $1.0 })
        default: nil
        }
    }

    var items: [(key: String?, value: TemplateValue)] { [] }
}

extension TemplateHelpers {
    /// XPath expressions compiled, by text.
    static let xPaths = CompiledCache<XPathExpression>()

    static func addXML(to table: inout [String: Helper]) {
        table["xPath"] = xPath(prefix: "")
        // WireMock's soapXPath: the expression below the envelope's body (so `/Item` is any `Item` below it).
        table["soapXPath"] = xPath(prefix: "/Envelope/Body/")
        table["formatXml"] = { _, arguments, options in
            // WireMock 3's: blank text between elements removed, then indented by two (or written compactly).
            guard let text = arguments.first?.text, let tree = try? XMLTree(parsing: text) else {
                return .error("Input is not valid XML")
            }
            switch options["format"]?.text ?? "pretty" {
            case "pretty": return .string(JavaXMLWriter.write(tree, tree.root, pretty: true, dropsBlankText: true))
            case "compact": return .string(JavaXMLWriter.write(tree, tree.root, pretty: false, dropsBlankText: true))
            case let other: return .error("formatXml: format [\(other)] should be one of [pretty, compact]")
            }
        }
    }

    private static func xPath(prefix: String) -> Helper {
        { _, arguments, _ in
            guard let input = arguments.first, !isNull(input) else { return .string("") }
            guard arguments.count > 1 else { return .error("The XPath expression cannot be empty") }
            let expressionText = arguments[1].text
            guard let tree = try? XMLTree(parsing: input.text) else {
                return .error("\(input.text.prefix(200)) is not valid XML")
            }
            guard let expression = xPaths.value(for: prefix + expressionText, compile: { try? XPathExpression($0) })
            else { return .error("\(expressionText) is not a valid XPath expression") }
            switch expression.evaluate(in: tree) {
            case .nodes(let nodes): return nodes.isEmpty ? .string("") : .lazy(XMLSelection(tree: tree, nodes: nodes))
            case .string(let text): return .string(text)
            case .boolean(let flag): return .string(flag ? "true" : "false")
            case .number(let number): return .string(javaNumberFormat(number))
            }
        }
    }

    /// A number as Java's `NumberFormat.getInstance()` writes it in `en_US`: grouped, at most 3 decimals.
    static func javaNumberFormat(_ number: Double) -> String {
        guard number.isFinite else { return number.isNaN ? "NaN" : (number < 0 ? "-∞" : "∞") }
        return NumberFormats.shared.format(number, NumberFormats.Settings(style: nil, locale: "en_US"))
            ?? TemplateValue.javaText(number)
    }
}

/// XML written as Java's transformer writes it (WireMock's `XmlNode`, `formatXml`): attributes by name, `&`, `<`
/// and `>` escaped in text, and (pretty) each child of an element that has elements on a line of its own,
/// indented by two; an element of text alone stays on one line.
enum JavaXMLWriter {
    /// How deep this writer recurses before handing a subtree to `XMLTree.serialized` (a request's XML may nest
    /// 100,000 deep; a thread's stack does not).
    static let maximumDepth = 400

    static func write(_ tree: XMLTree, _ node: XMLNodeID, pretty: Bool, dropsBlankText: Bool) -> String {
        var output = ""
        if tree.kind(of: node) == .document {
            for child in tree.children(of: node) {
                if tree.kind(of: child) == .text { continue }
                write(tree, child, depth: 0, pretty: pretty, dropsBlankText: dropsBlankText, into: &output)
                if pretty { output += "\n" }
            }
            return output
        }
        write(tree, node, depth: 0, pretty: pretty, dropsBlankText: dropsBlankText, into: &output)
        if pretty { output += "\n" }
        return output
    }

    private static func write(
        _ tree: XMLTree, _ node: XMLNodeID, depth: Int, pretty: Bool, dropsBlankText: Bool, into output: inout String
    ) {
        switch tree.kind(of: node) {
        case .text:
            output += escapeText(tree.value(of: node))
        case .comment:
            output += "<!--" + tree.value(of: node) + "-->"
        case .processingInstruction:
            let value = tree.value(of: node)
            output += "<?" + tree.name(of: node) + (value.isEmpty ? "" : " " + value) + "?>"
        case .attribute:
            output += tree.value(of: node)
        case .document:
            for child in tree.children(of: node) {
                write(tree, child, depth: depth, pretty: pretty, dropsBlankText: dropsBlankText, into: &output)
            }
        case .element where depth >= maximumDepth:
            // Deeper than this, the tree's own writer (which does not recurse) writes the rest.
            output += tree.serialized(node, pretty: pretty)
        case .element:
            let name = tree.name(of: node)
            output += "<" + name
            let attributes = tree.attributes(of: node).map { (tree.name(of: $0), tree.value(of: $0)) }
            for (attribute, value) in attributes.sorted(by: { $0.0 < $1.0 }) {
                output += " " + attribute + "=\"" + escapeAttribute(value) + "\""
            }
            var children = tree.children(of: node)
            if dropsBlankText {
                children.removeAll { tree.kind(of: $0) == .text && isBlank(tree.value(of: $0)) }
            }
            guard !children.isEmpty else {
                output += "/>"
                return
            }
            output += ">"
            let hasElements = children.contains { tree.kind(of: $0) == .element }
            if pretty, hasElements {
                let indent = String(repeating: "  ", count: depth + 1)
                for child in children {
                    output += "\n" + indent
                    if tree.kind(of: child) == .text {
                        // Java 9+ writes blank text on a line of its own, less its first line break.
                        var text = tree.value(of: child)
                        if text.hasPrefix("\n") { text.removeFirst() }
                        output += escapeText(text)
                    } else {
                        write(
                            tree, child, depth: depth + 1, pretty: true, dropsBlankText: dropsBlankText, into: &output)
                    }
                }
                output += "\n" + String(repeating: "  ", count: depth)
            } else {
                for child in children {
                    write(tree, child, depth: depth + 1, pretty: pretty, dropsBlankText: dropsBlankText, into: &output)
                }
            }
            output += "</" + name + ">"
        }
    }

    private static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
    }

    private static func escapeText(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    private static func escapeAttribute(_ text: String) -> String {
        escapeText(text).replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "\n", with: "&#10;")
            .replacingOccurrences(of: "\r", with: "&#13;").replacingOccurrences(of: "\t", with: "&#9;")
    }
}
