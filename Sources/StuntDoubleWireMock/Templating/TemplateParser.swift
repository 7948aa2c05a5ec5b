import Foundation
import StuntDouble

/// Reads Handlebars text, the syntax WireMock's response templates use: `{{expression}}`, `{{{raw}}}`,
/// `{{#block ...}}...{{else}}...{{/block}}` (with `{{else if ...}}` and `as |item|`), sub-expressions
/// `(helper ...)`, string, number, boolean and null literals, `name=value` options, comments (`{{! }}`,
/// `{{!-- --}}`), whitespace control (`{{~` and `~}}`) and `\{{` for literal braces.
struct TemplateParser {
    let bytes: [UInt8]
    var index = 0
    /// Whether a helper of this name exists (a tag naming one calls it; any other name is a path).
    private let isHelper: (String) -> Bool
    /// Why a helper WireMock has cannot be used here, or `nil`.
    private let refusal: (String) -> String?

    /// Whether `{{value}}` is escaped for HTML (WireMock 2), or written as it is (WireMock 3).
    private let escapesHTML: Bool

    init(
        _ text: String, escapesHTML: Bool = false, isHelper: @escaping (String) -> Bool,
        refusal: @escaping (String) -> String? = { _ in nil }
    ) {
        bytes = Array(text.utf8)
        self.escapesHTML = escapesHTML
        self.isHelper = { isHelper($0) || refusal($0) != nil }
        self.refusal = refusal
    }

    /// Throws when a helper is one that cannot be used.
    private func checkSupported(_ name: String, at offset: Int) throws(TemplateSyntaxError) {
        if let reason = refusal(name) { throw TemplateSyntaxError(message: reason, offset: offset) }
    }

    /// The template's parts.
    mutating func parse() throws(TemplateSyntaxError) -> [TemplateNode] {
        let (nodes, end) = try parseNodes(closing: nil)
        if let end {
            throw TemplateSyntaxError(message: "{{\(end.text)}} closes nothing that is open", offset: end.offset)
        }
        return nodes
    }

    // MARK: - Nodes

    /// What ends a run of nodes: `{{/name}}` or `{{else ...}}`.
    private struct Ending {
        enum Kind {
            case close(String)
            case otherwise(TemplateArguments?, helper: String?)
        }
        let kind: Kind
        let text: String
        let offset: Int
    }

    /// Nodes up to the end, or (in a block, opened at `opening`) up to its `{{else}}` or closing tag.
    private mutating func parseNodes(closing block: String?, opening: Int = 0) throws(TemplateSyntaxError) -> (
        [TemplateNode], Ending?
    ) {
        var nodes: [TemplateNode] = []
        var text: [UInt8] = []
        func flush() {
            if !text.isEmpty {
                nodes.append(.text(String(decoding: text, as: UTF8.self)))
                text.removeAll()
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\"), starts(with: "\\{{{") {
                throw TemplateSyntaxError(
                    message: "\\{{{ cannot be escaped (Java Handlebars refuses it): write \\{{ and a third { after it",
                    offset: index)
            }
            if byte == UInt8(ascii: "\\"), starts(with: "\\{{") {
                text += Array("{{".utf8)
                index += 3
                continue
            }
            guard byte == UInt8(ascii: "{"), starts(with: "{{") else {
                text.append(byte)
                index += 1
                continue
            }
            let tagStart = index
            index += 2
            let triple = peek(UInt8(ascii: "{"))
            if triple { index += 1 }
            let stripBefore = peek(UInt8(ascii: "~"))
            if stripBefore {
                index += 1
                while let last = text.last, Self.isSpace(last) { text.removeLast() }
            }
            if !triple, peek(UInt8(ascii: "!")) {
                try skipComment(from: tagStart)
                flush()
                continue
            }
            flush()
            if triple {
                let expression = try parseTagExpression(tagStart: tagStart)
                try closeTag(triple: true, tagStart: tagStart)
                nodes.append(.value(expression, escaped: false))
                continue
            }
            skipSpaces()
            switch bytes[safe: index] {
            case UInt8(ascii: "#") where bytes[safe: index + 1] == UInt8(ascii: "*"):
                index += 2
                nodes.append(try parsePartialDefinition(tagStart: tagStart))
            case UInt8(ascii: "#"):
                index += 1
                nodes.append(.block(try parseBlock(tagStart: tagStart)))
            case UInt8(ascii: "/"):
                index += 1
                skipSpaces()
                let name = try parseName(tagStart: tagStart)
                try closeTag(triple: false, tagStart: tagStart)
                return (nodes, Ending(kind: .close(name), text: "/" + name, offset: tagStart))
            case UInt8(ascii: ">"):
                index += 1
                skipSpaces()
                let name: String
                if let quote = bytes[safe: index], quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                    name = try parseString(tagStart: tagStart)
                } else {
                    name = try parseName(tagStart: tagStart)
                }
                try closeTag(triple: false, tagStart: tagStart)
                nodes.append(.partial(name, offset: tagStart))
            case UInt8(ascii: "&"):
                index += 1
                let expression = try parseTagExpression(tagStart: tagStart)
                try closeTag(triple: false, tagStart: tagStart)
                nodes.append(.value(expression, escaped: false))
            default:
                if block != nil, matchWord("else") {
                    skipSpaces()
                    if peekTagEnd() {
                        try closeTag(triple: false, tagStart: tagStart)
                        return (nodes, Ending(kind: .otherwise(nil, helper: nil), text: "else", offset: tagStart))
                    }
                    // `{{else if ...}}`: the rest of the chain is a block of its own in the inverse.
                    let helper = try parseName(tagStart: tagStart)
                    let arguments = try parseArguments(tagStart: tagStart)
                    try closeTag(triple: false, tagStart: tagStart)
                    return (
                        nodes,
                        Ending(kind: .otherwise(arguments, helper: helper), text: "else \(helper)", offset: tagStart)
                    )
                }
                let expression = try parseTagExpression(tagStart: tagStart)
                try closeTag(triple: false, tagStart: tagStart)
                nodes.append(.value(expression, escaped: escapesHTML))
            }
        }
        flush()
        if let block {
            throw TemplateSyntaxError(message: "{{#\(block)}} is never closed: add {{/\(block)}}", offset: opening)
        }
        return (nodes, nil)
    }

    /// `{{#helper arguments as |a b|}}`, then the body, `{{else}}` and `{{/helper}}`.
    private mutating func parseBlock(tagStart: Int) throws(TemplateSyntaxError) -> TemplateBlock {
        skipSpaces()
        let helper = try parseName(tagStart: tagStart)
        let arguments = try parseArguments(tagStart: tagStart)
        let parameters = try parseBlockParameters(tagStart: tagStart)
        try closeTag(triple: false, tagStart: tagStart)
        return try parseBlockRest(helper: helper, arguments: arguments, parameters: parameters, offset: tagStart)
    }

    private mutating func parseBlockRest(
        helper: String, arguments: TemplateArguments, parameters: [String], offset: Int
    ) throws(TemplateSyntaxError) -> TemplateBlock {
        guard isHelper(helper) else {
            throw TemplateSyntaxError(message: "{{#\(helper)}}: there is no helper \"\(helper)\"", offset: offset)
        }
        try checkSupported(helper, at: offset)
        let (body, ending) = try parseNodes(closing: helper, opening: offset)
        var inverse: [TemplateNode] = []
        switch ending?.kind {
        case .close(let name)?:
            guard name == helper else {
                throw TemplateSyntaxError(
                    message: "{{/\(name)}} closes {{#\(helper)}}: write {{/\(helper)}}",
                    offset: ending?.offset ?? offset)
            }
        case .otherwise(nil, _)?:
            let (rest, end) = try parseNodes(closing: helper, opening: offset)
            guard case .close(let name)? = end?.kind, name == helper else {
                throw TemplateSyntaxError(message: "{{#\(helper)}} is never closed", offset: offset)
            }
            inverse = rest
        case .otherwise(let chained?, let chainedHelper?)?:
            // `{{else if x}}...{{/if}}`: a nested block that the outer one's closing tag also closes.
            let nested = try parseBlockRest(
                helper: chainedHelper, arguments: chained, parameters: [], offset: ending?.offset ?? offset)
            inverse = [.block(nested)]
        default:
            throw TemplateSyntaxError(message: "{{#\(helper)}} is never closed", offset: offset)
        }
        return TemplateBlock(
            helper: helper, arguments: arguments, blockParameters: parameters, body: body, inverse: inverse,
            offset: offset)
    }

    /// `{{#*inline "name"}}`, then the body and `{{/inline}}`.
    private mutating func parsePartialDefinition(tagStart: Int) throws(TemplateSyntaxError) -> TemplateNode {
        skipSpaces()
        guard matchWord("inline") else {
            throw TemplateSyntaxError(
                message: "the only decorator is {{#*inline \"name\"}} (an inline partial)", offset: tagStart)
        }
        skipSpaces()
        guard let quote = bytes[safe: index], quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw TemplateSyntaxError(
                message: "{{#*inline}} needs a name in quotes: {{#*inline \"name\"}}", offset: tagStart)
        }
        let name = try parseString(tagStart: tagStart)
        try closeTag(triple: false, tagStart: tagStart)
        let (body, ending) = try parseNodes(closing: "inline", opening: tagStart)
        guard case .close("inline")? = ending?.kind else {
            throw TemplateSyntaxError(
                message: "{{#*inline \"\(name)\"}} is never closed: add {{/inline}}", offset: tagStart)
        }
        return .partialDefinition(name, body)
    }

    // MARK: - Expressions

    /// The expression of a `{{...}}` tag: a helper call (`{{now}}`, `{{upper x}}`) or a path.
    private mutating func parseTagExpression(tagStart: Int) throws(TemplateSyntaxError) -> TemplateExpression {
        skipSpaces()
        let first = try parseOperand(tagStart: tagStart)
        let arguments = try parseArguments(tagStart: tagStart)
        if case .path(let path) = first, path.up == 0, !path.isData, path.segments.count == 1,
            isHelper(path.segments[0])
        {
            try checkSupported(path.segments[0], at: tagStart)
            return .call(path.segments[0], arguments, offset: tagStart)
        }
        guard arguments.isEmpty else {
            let name: String
            if case .path(let path) = first { name = path.segments.joined(separator: ".") } else { name = "a value" }
            throw TemplateSyntaxError(
                message: "there is no helper \"\(name)\" to give arguments to (see the list of helpers)",
                offset: tagStart)
        }
        return first
    }

    /// Arguments up to the tag's end, a `)` or `as |`.
    private mutating func parseArguments(tagStart: Int) throws(TemplateSyntaxError) -> TemplateArguments {
        var arguments = TemplateArguments()
        while true {
            skipSpaces()
            guard let byte = bytes[safe: index] else {
                throw TemplateSyntaxError(message: "the tag is never closed with }}", offset: tagStart)
            }
            if byte == UInt8(ascii: ")") || peekTagEnd() || startsBlockParameters() { return arguments }
            if let name = peekOptionName() {
                index += name.utf8.count + 1
                skipSpaces()
                arguments.named.append((name, try parseOperand(tagStart: tagStart)))
            } else {
                arguments.positional.append(try parseOperand(tagStart: tagStart))
            }
        }
    }

    /// A literal, a path or a sub-expression.
    private mutating func parseOperand(tagStart: Int) throws(TemplateSyntaxError) -> TemplateExpression {
        skipSpaces()
        guard let byte = bytes[safe: index] else {
            throw TemplateSyntaxError(message: "the tag is never closed with }}", offset: tagStart)
        }
        switch byte {
        case UInt8(ascii: "("):
            let start = index
            index += 1
            skipSpaces()
            let name = try parseName(tagStart: tagStart)
            guard isHelper(name) else {
                throw TemplateSyntaxError(message: "(\(name) ...): there is no helper \"\(name)\"", offset: start)
            }
            try checkSupported(name, at: start)
            let arguments = try parseArguments(tagStart: tagStart)
            guard bytes[safe: index] == UInt8(ascii: ")") else {
                throw TemplateSyntaxError(message: "a sub-expression is never closed with )", offset: start)
            }
            index += 1
            return .call(name, arguments, offset: start)
        case UInt8(ascii: "'"), UInt8(ascii: "\""):
            let start = index
            let text = try parseString(tagStart: tagStart)
            if let next = bytes[safe: index], !Self.isSpace(next), next != UInt8(ascii: ")"),
                next != UInt8(ascii: "}"), next != UInt8(ascii: "~")
            {
                throw TemplateSyntaxError(
                    message: "a string ends inside a value: write a quote inside a string as \\' or use the other "
                        + "quote around it", offset: start)
            }
            return .literal(.string(text))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            index += 1
            while let next = bytes[safe: index],
                Self.isWordByte(next)
                    || (next == UInt8(ascii: ".") && (bytes[safe: index + 1].map(Self.isDigit) ?? false))
            {
                index += 1
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if let int = Int(text) { return .literal(.int(int)) }
            if let double = Double(text) { return .literal(.double(double)) }
            index = start
            return .path(try parsePath(tagStart: tagStart))
        default:
            let start = index
            for (word, value) in [
                ("true", TemplateValue.bool(true)), ("false", .bool(false)), ("null", .null), ("undefined", .null),
            ] where matchWord(word) {
                return .literal(value)
            }
            index = start
            return .path(try parsePath(tagStart: tagStart))
        }
    }

    /// `a.b.[0]`, `a/b`, `../a`, `this`, `this.a`, `@index`, `[a key]`.
    private mutating func parsePath(tagStart: Int) throws(TemplateSyntaxError) -> TemplatePath {
        var path = TemplatePath()
        if bytes[safe: index] == UInt8(ascii: "@") {
            path.isData = true
            index += 1
        }
        while starts(with: "../") {
            path.up += 1
            index += 3
        }
        var expectingSegment = true
        while let byte = bytes[safe: index] {
            if expectingSegment {
                if byte == UInt8(ascii: "[") {
                    let start = index + 1
                    guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "]")) else {
                        throw TemplateSyntaxError(message: "a [segment] is never closed with ]", offset: index)
                    }
                    path.segments.append(String(decoding: bytes[start..<end], as: UTF8.self))
                    index = end + 1
                } else {
                    let start = index
                    while let next = bytes[safe: index], Self.isWordByte(next) { index += 1 }
                    guard index > start else {
                        throw TemplateSyntaxError(
                            message: "expected a name, a value or (a helper ...) here", offset: index)
                    }
                    path.segments.append(String(decoding: bytes[start..<index], as: UTF8.self))
                }
                expectingSegment = false
            } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/") {
                index += 1
                expectingSegment = true
            } else {
                break
            }
        }
        if expectingSegment, !path.segments.isEmpty {
            throw TemplateSyntaxError(message: "a path ends with a separator", offset: index)
        }
        if path.segments.first == "this" || path.segments.first == "." { path.segments.removeFirst() }
        return path
    }

    /// `'text'` or `"text"`, with `\` escaping the quote.
    private mutating func parseString(tagStart: Int) throws(TemplateSyntaxError) -> String {
        let quote = bytes[index]
        let start = index
        index += 1
        var text: [UInt8] = []
        while let byte = bytes[safe: index] {
            index += 1
            if byte == UInt8(ascii: "\\"), let next = bytes[safe: index], next == quote || next == byte {
                text.append(next)
                index += 1
            } else if byte == quote {
                return String(decoding: text, as: UTF8.self)
            } else {
                text.append(byte)
            }
        }
        throw TemplateSyntaxError(message: "a string is never closed with its quote", offset: start)
    }

    /// A helper's or block's name.
    private mutating func parseName(tagStart: Int) throws(TemplateSyntaxError) -> String {
        let start = index
        while let byte = bytes[safe: index], Self.isWordByte(byte) || byte == UInt8(ascii: ".") { index += 1 }
        guard index > start else { throw TemplateSyntaxError(message: "expected a name here", offset: index) }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// `as |a b|`.
    private mutating func parseBlockParameters(tagStart: Int) throws(TemplateSyntaxError) -> [String] {
        skipSpaces()
        guard startsBlockParameters() else { return [] }
        index += 2
        skipSpaces()
        index += 1  // |
        var names: [String] = []
        while true {
            skipSpaces()
            if bytes[safe: index] == UInt8(ascii: "|") {
                index += 1
                return names
            }
            names.append(try parseName(tagStart: tagStart))
        }
    }
}

extension Array {
    /// The element at `index`, or `nil` past the ends.
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
