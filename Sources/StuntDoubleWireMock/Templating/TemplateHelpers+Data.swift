import Foundation
import StuntDouble

/// JSON a `jsonPath` selected, as written (members in order): an object prints as WireMock prints it, pretty
/// (Jackson's printer, two spaces, `"key" : value`, members that are `null` left out), a list as compact JSON
/// (json-smart's); both are iterated and entered like any list or object.
struct JSONData: TemplateObject {
    let node: JSONNode

    var text: String {
        switch node.kind {
        case .object: Self.pretty(node)
        default: Self.compact(node, escapingSlashes: true)
        }
    }

    func member(_ name: String) -> TemplateValue? {
        switch node.kind {
        case .object(let members): members.last { $0.key == name }.map { Self.wrap($0.value) }
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
        switch node.kind {
        case .object(let members): members.map { (Optional($0.key), Self.wrap($0.value)) }
        case .array(let items): items.map { (nil, Self.wrap($0)) }
        default: []
        }
    }

    /// JSON as templates use it: containers stay JSON, scalars become plain values (numbers as Java reads
    /// them: whole numbers exact however long, decimals as doubles).
    static func wrap(_ node: JSONNode) -> TemplateValue {
        switch node.kind {
        case .object, .array: .lazy(JSONData(node: node))
        case .number(let number): scalar(number)
        default: TemplateValue(node)
        }
    }

    static func scalar(_ number: JSONNumber) -> TemplateValue {
        if let whole = Int(number.text) { return .int(whole) }
        if number.text.allSatisfy({ $0.isNumber || $0 == "-" }) { return .string(number.text) }
        return .double(Double(number.text) ?? 0)
    }

    /// JSON text as written, or `nil` when it is not JSON.
    static func parse(_ text: String) -> JSONNode? {
        JSONNode.parse(lenient: Data(text.utf8))
    }

    /// A number as Java prints what it read: whole numbers as written, decimals as doubles (`1e3` is 1000.0).
    private static func javaNumber(_ number: JSONNumber) -> String {
        scalar(number).text
    }

    /// Compact JSON: as Jackson writes it, or (`escapingSlashes`) as json-smart writes it, `/` as `\/`.
    static func compact(_ node: JSONNode, escapingSlashes: Bool = false) -> String {
        func quoted(_ text: String) -> String {
            let json = JSONValue.string(text).description
            return escapingSlashes ? json.replacingOccurrences(of: "/", with: "\\/") : json
        }
        switch node.kind {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return javaNumber(number)
        case .string(let text): return quoted(text)
        case .array(let items):
            return "[" + items.map { compact($0, escapingSlashes: escapingSlashes) }.joined(separator: ",") + "]"
        case .object(let members):
            return "{"
                + members.map { quoted($0.key) + ":" + compact($0.value, escapingSlashes: escapingSlashes) }
                .joined(separator: ",") + "}"
        }
    }

    /// Pretty JSON, as WireMock's Jackson writes a map: `null` members left out, lists on one line
    /// (`[ 1, 2 ]`) unless they hold objects or lists.
    static func pretty(_ node: JSONNode, dropsNulls: Bool = true) -> String {
        var output = ""
        writePretty(node, depth: 0, dropsNulls: dropsNulls, into: &output)
        return output
    }

    private static func writePretty(_ node: JSONNode, depth: Int, dropsNulls: Bool, into output: inout String) {
        let indent = String(repeating: "  ", count: depth + 1)
        switch node.kind {
        case .object(let members):
            let kept = members.filter { member in
                if dropsNulls, case .null = member.value.kind { return false }
                return true
            }
            guard !kept.isEmpty else {
                output += "{ }"
                return
            }
            output += "{"
            for (index, member) in kept.enumerated() {
                output += (index == 0 ? "\n" : ",\n") + indent + JSONValue.string(member.key).description + " : "
                writePretty(member.value, depth: depth + 1, dropsNulls: dropsNulls, into: &output)
            }
            output += "\n" + String(repeating: "  ", count: depth) + "}"
        case .array(let items):
            guard !items.isEmpty else {
                output += "[ ]"
                return
            }
            output += "[ "
            for (index, item) in items.enumerated() {
                if index > 0 { output += ", " }
                writePretty(item, depth: depth, dropsNulls: dropsNulls, into: &output)
            }
            output += " ]"
        default:
            output += compact(node)
        }
    }
}

extension TemplateHelpers {
    /// JSONPath expressions `jsonPath` compiled, by text.
    static let jsonPaths = CompiledCache<JSONPath>()

    static func addData(to table: inout [String: Helper]) {
        table["jsonPath"] = { _, arguments, options in
            guard arguments.count >= 2 else { return .string("[ERROR: jsonPath needs JSON and an expression]") }
            // Not JSON selects nothing (WireMock writes nothing, or the default).
            guard let document = jsonNode(of: arguments[0]) else { return options["default"] ?? .string("") }
            guard let path = jsonPaths.value(for: arguments[1].text, compile: { try? JSONPath($0) }) else {
                return .error("\(arguments[1].text) is not a valid JSONPath expression")
            }
            switch path.evaluate(document, leafToNull: .null) {
            case .value(let value): return JSONData.wrap(value)
            case .list(let values): return .lazy(JSONData(node: .array(values)))
            case .notFound: return options["default"] ?? .string("")
            }
        }
        table["parseJson"] = { renderer, arguments, _ in
            // A map or a list, as Java's: written `{a=1, b=[1, 2]}`.
            guard let text = arguments.first?.text, let value = JSONData.parse(text) else {
                return renderer.fail(
                    "parseJson was given text that is not JSON: \(arguments.first?.text.prefix(100) ?? "")")
            }
            if arguments.count >= 2 {
                renderer.assign(arguments[1].text, TemplateValue(value))
                return .string("")
            }
            return TemplateValue(value)
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
        addJSONEditing(to: &table)
    }

    static func parseValue(_ text: String) -> JSONValue? {
        try? JSONValue.parse(Data(text.utf8))
    }

    /// A value's JSON text: JSON data and parsed JSON as JSON, anything else as its text.
    static func jsonText(_ value: TemplateValue) -> String {
        switch value {
        case .lazy(let object as JSONData): JSONData.compact(object.node)
        case .array, .object: json(of: value).description
        default: value.text
        }
    }

    /// A value as a JSON document: JSON data or parsed JSON as it is, a text parsed (`nil` when it is not JSON).
    static func jsonNode(of value: TemplateValue) -> JSONNode? {
        switch value {
        case .lazy(let object as JSONData): object.node
        case .array, .object: JSONNode.parse(lenient: Data(json(of: value).description.utf8))
        default: JSONData.parse(value.text)
        }
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
            (object as? JSONData).map { JSONValue($0.node) } ?? .string(object.text)
        }
    }
}
