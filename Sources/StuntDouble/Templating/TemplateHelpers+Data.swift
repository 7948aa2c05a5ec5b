import Foundation

/// JSON data a helper returned (`jsonPath`, `parseJson`): written as compact JSON, iterated and entered like
/// any list or object.
struct JSONData: TemplateObject {
    let value: JSONValue

    var text: String { value.description }

    func member(_ name: String) -> TemplateValue? {
        switch value {
        case .object(let members): members[name].map(Self.wrap)
        case .array(let items):
            if name == "size" || name == "length" {
                .int(items.count)
            } else if let index = Int(name), items.indices.contains(index < 0 ? items.count + index : index) {
                Self.wrap(items[index < 0 ? items.count + index : index])
            } else {
                nil
            }
        default: nil
        }
    }

    var items: [(key: String?, value: TemplateValue)] {
        switch value {
        case .object(let members): members.keys.sorted().map { (Optional($0), Self.wrap(members[$0] ?? .null)) }
        case .array(let items): items.map { (nil, Self.wrap($0)) }
        default: []
        }
    }

    /// A JSON value as templates use it: containers stay JSON, scalars become plain values.
    static func wrap(_ value: JSONValue) -> TemplateValue {
        switch value {
        case .object, .array: .lazy(JSONData(value: value))
        default: TemplateValue(value)
        }
    }

    /// JSON text as a value, or `nil` when it is not JSON.
    static func parse(_ text: String) -> JSONValue? {
        try? JSONValue.parse(Data(text.utf8))
    }
}

extension TemplateHelpers {
    /// JSONPath expressions `jsonPath` compiled, by text.
    static let jsonPaths = CompiledCache<JSONPath>()

    static func addData(to table: inout [String: Helper]) {
        table["jsonPath"] = { _, arguments, options in
            guard arguments.count >= 2 else { return .string("[ERROR: jsonPath needs JSON and an expression]") }
            let document: JSONValue
            if case .lazy(let object) = arguments[0], let data = object as? JSONData {
                document = data.value
            } else if let parsed = JSONData.parse(arguments[0].text) {
                document = parsed
            } else {
                return .string("[ERROR: \(arguments[0].text.prefix(100)) is not valid JSON]")
            }
            guard let path = jsonPaths.value(for: arguments[1].text, compile: { try? JSONPath($0) }) else {
                return .string("[ERROR: \(arguments[1].text) is not a valid JSONPath expression]")
            }
            switch path.evaluate(document) {
            case .value(let value): return JSONData.wrap(value)
            case .list(let values): return .lazy(JSONData(value: .array(values)))
            case .notFound: return options["default"] ?? .string("")
            }
        }
        table["parseJson"] = { renderer, arguments, _ in
            guard let text = arguments.first?.text, let value = JSONData.parse(text) else {
                return .string("[ERROR: not valid JSON]")
            }
            if arguments.count >= 2 {
                renderer.assign(arguments[1].text, JSONData.wrap(value))
                return .string("")
            }
            return JSONData.wrap(value)
        }
        table["toJson"] = { _, arguments, _ in
            .string(arguments.first.map(Self.json(of:))?.description ?? "null")
        }
        table["formData"] = { renderer, arguments, options in
            // `{{formData request.body 'form' urlDecode=true}}{{form.name}}`.
            guard arguments.count >= 2 else { return .string("[ERROR: formData needs a body and a variable name]") }
            let decode = options["urlDecode"]?.isTruthy == true
            var fields: [(key: String, value: [String])] = []
            for pair in arguments[0].text.split(separator: "&") {
                let pieces = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                func clean(_ text: Substring) -> String {
                    decode ? PercentEncoding.decodeForm(text) : String(text)
                }
                let name = clean(pieces[0])
                let value = pieces.count > 1 ? clean(pieces[1]) : ""
                if let index = fields.firstIndex(where: { $0.key == name }) {
                    fields[index].value.append(value)
                } else {
                    fields.append((name, [value]))
                }
            }
            renderer.assign(arguments[1].text, .object(fields.map { ($0.key, .multi($0.value)) }))
            return .string("")
        }
        table["array"] = { _, arguments, _ in .array(arguments) }
        table["jsonArrayAdd"] = { _, arguments, options in
            guard arguments.count >= 2, case .array(var items)? = JSONData.parse(jsonText(arguments[0])) else {
                return .string("[ERROR: jsonArrayAdd needs a JSON array and an item]")
            }
            let item = JSONData.parse(jsonText(arguments[1])) ?? .string(arguments[1].text)
            if case .array(let more) = item, options["flatten"]?.isTruthy == true {
                items += more
            } else {
                items.append(item)
            }
            if let limit = options["maxItems"]?.integer, items.count > limit {
                items = Array(items.prefix(limit))
            }
            return .lazy(JSONData(value: .array(items)))
        }
        table["jsonMerge"] = { _, arguments, _ in
            guard arguments.count >= 2, let base = JSONData.parse(jsonText(arguments[0])),
                let other = JSONData.parse(jsonText(arguments[1]))
            else { return .string("[ERROR: jsonMerge needs two JSON objects]") }
            return .lazy(JSONData(value: merge(base, other)))
        }
    }

    /// A value's JSON text: JSON data as it is, anything else as its text.
    private static func jsonText(_ value: TemplateValue) -> String {
        if case .lazy(let object) = value, object is JSONData { return object.text }
        return value.text
    }

    /// A value as JSON.
    static func json(of value: TemplateValue) -> JSONValue {
        switch value {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .int(let number): .number(JSONNumber(text: String(number)))
        case .double(let number): .number(JSONNumber(text: "\(number)"))
        case .string(let text): .string(text)
        case .array(let items): .array(items.map(json(of:)))
        case .multi(let values): values.count == 1 ? .string(values[0]) : .array(values.map(JSONValue.string))
        case .object(let members):
            .object(Dictionary(members.map { ($0.key, json(of: $0.value)) }, uniquingKeysWith: { $1 }))
        case .lazy(let object):
            (object as? JSONData)?.value ?? .string(object.text)
        }
    }

    /// `other` merged into `base`: objects member by member (deeply), anything else replaced.
    private static func merge(_ base: JSONValue, _ other: JSONValue) -> JSONValue {
        guard case .object(var members) = base, case .object(let extra) = other else { return other }
        for (key, value) in extra {
            members[key] = members[key].map { merge($0, value) } ?? value
        }
        return .object(members)
    }
}
