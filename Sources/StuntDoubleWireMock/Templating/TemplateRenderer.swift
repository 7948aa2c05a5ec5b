import Foundation
import StuntDouble

/// Renders a compiled template: resolves paths in the context stack (a name not found in a block's context is
/// looked up in the enclosing ones, as Java Handlebars does), calls helpers, runs blocks.
struct TemplateRenderer {
    /// One level of context: its value, a block's data (`@index`, `@key`, `@first`, `@last`) and parameters.
    struct Scope {
        var value: TemplateValue
        var data: [String: TemplateValue] = [:]
        var parameters: [String: TemplateValue] = [:]
    }

    let environment: TemplateEnvironment
    private(set) var output = ""
    private var scopes: [Scope]
    /// What `#assign` set, for the rest of the template.
    private var variables: [String: TemplateValue] = [:]
    /// Inline partials defined so far, by name.
    private var partials: [String: [TemplateNode]] = [:]
    /// Why the response cannot be rendered, once a helper said so (the first reason is kept).
    private(set) var failure: String?

    init(root: TemplateValue, environment: TemplateEnvironment) {
        scopes = [Scope(value: root)]
        self.environment = environment
    }

    // MARK: - Nodes

    mutating func render(_ nodes: [TemplateNode]) {
        // Inline partials are defined before anything among them renders, as Handlebars' decorators.
        for case .partialDefinition(let name, let body) in nodes { partials[name] = body }
        for node in nodes {
            switch node {
            case .partialDefinition:
                break
            case .partial(let name, _):
                guard let body = partials[name] else {
                    _ = fail(
                        "there is no partial \"\(name)\": define it first with {{#*inline \"\(name)\"}}...{{/inline}}")
                    continue
                }
                render(body)
            case .text(let text):
                output += text
            case .value(let expression, let escaped):
                let text = evaluate(expression).text
                output += escaped ? Self.escape(text) : text
            case .block(let block):
                renderBlock(block)
            }
        }
    }

    /// Renders nodes into a text of their own (a block's body given to a helper).
    mutating func capture(_ nodes: [TemplateNode]) -> String {
        let saved = output
        output = ""
        render(nodes)
        let captured = output
        output = saved
        return captured
    }

    private mutating func renderBlock(_ block: TemplateBlock) {
        switch block.helper {
        case "if", "unless":
            // Java Handlebars has no `includeZero`: 0 is false.
            let value = block.arguments.positional.first.map { evaluate($0) } ?? .null
            render(value.isTruthy == (block.helper == "if") ? block.body : block.inverse)
        case "each":
            let value = block.arguments.positional.first.map { evaluate($0) } ?? .null
            let items = value.items
            guard !items.isEmpty else { return render(block.inverse) }
            for (index, item) in items.enumerated() {
                var scope = Scope(value: item.value)
                // As Java Handlebars: `@first` is the text "first" on the first item (nothing on the others), `@last`
                // "last" on the last.
                scope.data = [
                    "index": .int(index), "first": index == 0 ? .string("first") : .null,
                    "last": index == items.count - 1 ? .string("last") : .null,
                ]
                if let key = item.key { scope.data["key"] = .string(key) }
                if let name = block.blockParameters.first { scope.parameters[name] = item.value }
                if block.blockParameters.count > 1 {
                    scope.parameters[block.blockParameters[1]] = item.key.map(TemplateValue.string) ?? .int(index)
                }
                scopes.append(scope)
                render(block.body)
                scopes.removeLast()
            }
        case "with":
            let value = block.arguments.positional.first.map { evaluate($0) } ?? .null
            guard value.isTruthy else { return render(block.inverse) }
            var scope = Scope(value: value)
            if let name = block.blockParameters.first { scope.parameters[name] = value }
            scopes.append(scope)
            render(block.body)
            scopes.removeLast()
        case "assign":
            let name = block.arguments.positional.first.map { evaluate($0).text } ?? ""
            variables[name] = .string(capture(block.body))
        case "arrayJoin" where block.arguments.positional.count >= 2:
            // `{{#arrayJoin ',' list as |item|}}...{{/arrayJoin}}`: the body for each item, separated.
            let separator = evaluate(block.arguments.positional[0]).text
            let list = evaluate(block.arguments.positional[1])
            let items = TemplateHelpers.isList(list) ? list.items.map(\.value) : [list]
            let named = evaluateNamed(block.arguments)
            output += named["prefix"]?.text ?? ""
            for (index, item) in items.enumerated() {
                if index > 0 { output += separator }
                var scope = Scope(value: item)
                if let name = block.blockParameters.first { scope.parameters[name] = item }
                scopes.append(scope)
                render(block.body)
                scopes.removeLast()
            }
            output += named["suffix"]?.text ?? ""
        case "parseJson" where block.arguments.positional.count == 1:
            // `{{#parseJson 'name'}}{"a": 1}{{/parseJson}}`, then `{{name.a}}`.
            let name = evaluate(block.arguments.positional[0]).text
            let text = capture(block.body)
            guard let value = JSONData.parse(text) else {
                _ = fail("parseJson was given text that is not JSON: \(text.prefix(100))")
                return
            }
            variables[name] = TemplateValue(value)
        default:
            // Any other helper as a block: a helper that takes text gets the body's (`{{#trim}} x {{/trim}}`);
            // the body is written when the result is true (`{{#eq a b}}same{{else}}not{{/eq}}`), or the
            // result itself when it is text.
            var arguments = block.arguments.positional.map { evaluate($0) }
            let named = evaluateNamed(block.arguments)
            if arguments.isEmpty, TemplateHelpers.takesBlockText.contains(block.helper) {
                arguments = [.string(capture(block.body))]
                output += TemplateHelpers.call(block.helper, arguments, named, renderer: &self).text
                return
            }
            let result = TemplateHelpers.call(block.helper, arguments, named, renderer: &self)
            // WireMock's `matches` and `contains` as blocks write nothing when false (not their else), and `join`
            // writes its text, not the block.
            if block.helper == "matches" || block.helper == "contains", case .bool(false) = result { return }
            if block.helper == "join" {
                output += result.text
                return
            }
            switch result {
            case .bool(let value):
                render(value ? block.body : block.inverse)
            case .array, .object, .multi, .lazy:
                // A value to iterate or enter, as `#each` and `#with` would.
                if result.items.isEmpty && !result.isTruthy { return render(block.inverse) }
                scopes.append(Scope(value: result))
                render(block.body)
                scopes.removeLast()
            default:
                render(result.isTruthy ? block.body : block.inverse)
            }
        }
    }

    // MARK: - Expressions

    mutating func evaluate(_ expression: TemplateExpression) -> TemplateValue {
        switch expression {
        case .literal(let value):
            return value
        case .path(let path):
            return resolve(path)
        case .call(let name, let arguments, _):
            let positional = arguments.positional.map { evaluate($0) }
            return TemplateHelpers.call(name, positional, evaluateNamed(arguments), renderer: &self)
        }
    }

    private mutating func evaluateNamed(_ arguments: TemplateArguments) -> [String: TemplateValue] {
        var named: [String: TemplateValue] = [:]
        for (name, value) in arguments.named { named[name] = evaluate(value) }
        return named
    }

    /// A path's value: block data, block parameters, assigned variables, then the contexts from the innermost.
    func resolve(_ path: TemplatePath) -> TemplateValue {
        let depth = max(0, scopes.count - 1 - path.up)
        if path.isData {
            guard let name = path.segments.first else { return .null }
            let value = scopes[depth].data[name] ?? (name == "root" ? scopes[0].value : nil) ?? .null
            return Self.walk(value, path.segments.dropFirst())
        }
        guard let first = path.segments.first else { return scopes[depth].value }
        if path.up == 0 {
            for scope in scopes.reversed() {
                if let value = scope.parameters[first] { return Self.walk(value, path.segments.dropFirst()) }
            }
            if let value = variables[first] { return Self.walk(value, path.segments.dropFirst()) }
        }
        for scope in scopes[...depth].reversed() {
            if let value = scope.value.member(first) { return Self.walk(value, path.segments.dropFirst()) }
        }
        return .null
    }

    private static func walk(_ value: TemplateValue, _ segments: ArraySlice<String>) -> TemplateValue {
        var current = value
        for segment in segments {
            guard let next = current.member(segment) else { return .null }
            current = next
        }
        return current
    }

    /// Fails the rendering, as a Java exception in WireMock's helpers fails the response (500); the first
    /// reason is kept.
    mutating func fail(_ message: String) -> TemplateValue {
        if failure == nil { failure = message }
        return .null
    }

    mutating func assign(_ name: String, _ value: TemplateValue) {
        variables[name] = value
    }

    /// HTML escaping, as Java Handlebars escapes `{{...}}` (WireMock's default): `&<>"'` and `` ` `` and `=`.
    static func escape(_ text: String) -> String {
        let bytes = text.utf8
        guard bytes.contains(where: { Self.entities[$0] != nil }) else { return text }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(bytes.count + 16)
        for byte in bytes {
            if let entity = Self.entities[byte] {
                escaped += entity.utf8
            } else {
                escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    /// Java Handlebars' entities, by the ASCII byte each replaces (no byte of a multi-byte character is one).
    private static let entities: [UInt8: String] = [
        UInt8(ascii: "&"): "&amp;", UInt8(ascii: "<"): "&lt;", UInt8(ascii: ">"): "&gt;", UInt8(ascii: "\""): "&quot;",
        UInt8(ascii: "'"): "&#x27;", UInt8(ascii: "`"): "&#x60;", UInt8(ascii: "="): "&#x3D;",
    ]
}
