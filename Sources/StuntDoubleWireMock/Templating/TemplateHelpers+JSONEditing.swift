import Foundation
import StuntDouble

/// The helpers WireMock 3 added to edit JSON and lists (`jsonMerge`, `jsonArrayAdd`, `jsonRemove`, `formatJson`,
/// `toJson`, `arrayAdd`, `arrayRemove`, `arrayJoin`), as its 3.x documentation and code have them. Their errors
/// are written in the response, `[ERROR: ...]`, as WireMock's are.
extension TemplateHelpers {
    static func addJSONEditing(to table: inout [String: Helper]) {
        table["jsonMerge"] = { renderer, arguments, options in
            guard let base = arguments.first.flatMap(jsonObjectText) else {
                return .error("Base JSON parameter must be a string")
            }
            guard case .object? = JSONData.parse(base)?.kind else {
                return .error("Base JSON is not a JSON object ('\(base.prefix(100))')")
            }
            let otherText = arguments.count > 1 ? jsonObjectText(arguments[1]) : nil
            guard let otherText else { return .error("JSON to merge must be a string") }
            guard let other = JSONData.parse(otherText), case .object = other.kind else {
                return .error("JSON to merge is not a JSON object ('\(otherText.prefix(100))')")
            }
            let merged = merge(
                JSONData.parse(base) ?? .null, other, removeNulls: options["removeNulls"]?.isTruthy == true)
            return .string(JSONData.compact(merged))
        }
        table["jsonArrayAdd"] = { _, arguments, options in
            guard let base = arguments.first.flatMap(jsonObjectText), let document = JSONData.parse(base) else {
                return .error("Base JSON must be a string of valid JSON")
            }
            guard arguments.count > 1, let itemText = jsonObjectText(arguments[1]), let item = JSONData.parse(itemText)
            else { return .error("Item-to-add JSON must be a string of valid JSON") }
            var path: JSONPath?
            if let expression = options["jsonPath"]?.text {
                guard let compiled = try? JSONPath(expression) else {
                    return .error("jsonPath option is not valid JSONPath expression ('\(expression)')")
                }
                path = compiled
            }
            let flatten = options["flatten"]?.isTruthy == true
            let limit = options["maxItems"]?.integer
            let edited = editArray(in: document, at: path) { items in
                var items = items
                if flatten, case .array(let more) = item.kind { items += more } else { items.append(item) }
                // The oldest items go: the last `maxItems` stay.
                if let limit, limit >= 0, items.count > limit { items.removeFirst(items.count - limit) }
                return items
            }
            guard let edited else { return .error("Target JSON is not a JSON array ('\(base.prefix(100))')") }
            return .string(JSONData.compact(edited, escapingSlashes: true))
        }
        table["jsonRemove"] = { _, arguments, _ in
            guard let input = arguments.first.flatMap(jsonObjectText) else {
                return .error("Input JSON must be a string")
            }
            guard arguments.count == 2 else { return .error("A single JSONPath expression parameter must be supplied") }
            guard let document = JSONData.parse(input) else {
                return .error("Input JSON string is not valid JSON ('\(input.prefix(100))')")
            }
            guard let path = try? JSONPath(arguments[1].text) else {
                return .error("JSONPath parameter is not a valid JSONPath expression ('\(arguments[1].text)')")
            }
            return .string(JSONData.compact(remove(path, from: document), escapingSlashes: true))
        }
        table["formatJson"] = { _, arguments, options in
            guard let text = arguments.first.flatMap(jsonObjectText), let node = JSONData.parse(text) else {
                return .error("There was an error parsing the json. Please make sure the json is valid")
            }
            switch options["format"]?.text ?? "pretty" {
            case "pretty": return .string(JSONData.pretty(node, dropsNulls: false))
            case "compact": return .string(JSONData.compact(node))
            case let other: return .error("formatJson's format \"\(other)\" is not pretty or compact")
            }
        }
        table["toJson"] = { _, arguments, _ in
            // As WireMock's Jackson writes a value: pretty, and a map's null members left out.
            guard let value = arguments.first, !isNull(value) else { return .string("") }
            switch value {
            case .lazy(let object as JSONData): return .string(JSONData.pretty(object.node))
            default:
                let node = JSONData.parse(json(of: value).description) ?? .null
                return .string(JSONData.pretty(node))
            }
        }
        table["arrayAdd"] = { _, arguments, options in
            guard let list = arguments.first, isList(list) || list.isTruthy == false else {
                return .error("arrayAdd needs a list, such as (array 1 2)")
            }
            var items = list.items.map(\.value)
            guard arguments.count > 1 else {
                return .error("Missing required parameter: additional value to add to list")
            }
            switch position(options, count: items.count) {
            case .failure(let problem): return .error(problem.description)
            case .success(let index?): items.insert(arguments[1], at: index)
            case .success(nil): items.append(arguments[1])
            }
            return .array(items)
        }
        table["arrayRemove"] = { _, arguments, options in
            guard let list = arguments.first, isList(list) else {
                return .error("arrayRemove needs a list, such as (array 1 2)")
            }
            var items = list.items.map(\.value)
            guard !items.isEmpty else { return .array([]) }
            switch position(options, count: items.count - 1) {
            case .failure(let problem): return .error(problem.description)
            case .success(let index?): items.remove(at: index)
            case .success(nil): items.removeLast()
            }
            return .array(items)
        }
        table["arrayJoin"] = { renderer, arguments, options in
            // WireMock 3's: the separator first, then a list or the items.
            guard case .string(let separator)? = arguments.first else {
                return .error("Separator parameter must be a String")
            }
            guard arguments.count > 1 else { return .error("The parameter must be list") }
            let items = isList(arguments[1]) ? arguments[1].items.map(\.value) : Array(arguments.dropFirst())
            guard !items.isEmpty else { return .string("") }
            let prefix = options["prefix"]?.text ?? ""
            let suffix = options["suffix"]?.text ?? ""
            return .string(prefix + items.map(\.text).joined(separator: separator) + suffix)
        }
    }

    /// `position=`: `start`, `end` (nil) or an index from 0 to `count`.
    private static func position(_ options: [String: TemplateValue], count: Int) -> Result<Int?, PositionError> {
        guard let spec = options["position"] else { return .success(nil) }
        switch spec.text.lowercased() {
        case "start": return .success(0)
        case "end": return .success(nil)
        default:
            guard let index = spec.integer ?? Int(spec.text) else {
                return .failure(PositionError("position must be 'start', 'end' or an integer"))
            }
            guard (0...count).contains(index) else {
                return .failure(
                    PositionError(
                        "position must be greater than or equal to 0 and less than or equal to the size of the list"))
            }
            return .success(index)
        }
    }

    private struct PositionError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A value given as JSON text: a text, or JSON a helper returned.
    private static func jsonObjectText(_ value: TemplateValue) -> String? {
        switch value {
        case .string(let text): text
        case .lazy(let object as JSONData): JSONData.compact(object.node)
        case .array, .object: json(of: value).description
        default: nil
        }
    }

    /// `other` merged into `base`, as WireMock's `jsonMerge`: objects member by member (deeply), anything else
    /// replaced; with `removeNulls`, a `null` in `other` removes the member.
    static func merge(_ base: JSONNode, _ other: JSONNode, removeNulls: Bool) -> JSONNode {
        guard case .object = base.kind, case .object(let extra) = other.kind else { return other }
        var merged = base
        for member in extra {
            if case .null = member.value.kind, removeNulls {
                merged = merged.removing(member.key)
            } else if let existing = merged[member.key], case .object = existing.kind, case .object = member.value.kind
            {
                merged = merged.setting(
                    member.key, to: merge(existing, member.value, removeNulls: removeNulls), atFront: false)
            } else {
                merged = merged.setting(member.key, to: member.value, atFront: false)
            }
        }
        return merged
    }

    /// The document with the array at `path` (or the document itself) edited, or `nil` when that is no array.
    private static func editArray(
        in document: JSONNode, at path: JSONPath?, _ edit: ([JSONNode]) -> [JSONNode]
    ) -> JSONNode? {
        guard let path else {
            guard case .array(let items) = document.kind else { return nil }
            return .array(edit(items))
        }
        var found = false
        let edited = JSONPathEditing.rewrite(document, steps: path.steps[...]) { node in
            guard case .array(let items) = node.kind else { return node }
            found = true
            return .array(edit(items))
        }
        return found ? edited : nil
    }

    /// The document without what `path` selects (members of objects, items of arrays).
    private static func remove(_ path: JSONPath, from document: JSONNode) -> JSONNode {
        guard let last = path.steps.last else { return document }
        let parents = path.steps.dropLast()
        return JSONPathEditing.rewrite(document, steps: parents) { parent in
            switch (parent.kind, last) {
            case (.object, .child(let names)):
                return names.reduce(parent) { $0.removing($1) }
            case (.array(let items), .indexes(let indexes)):
                let removed = Set(indexes.map { $0 < 0 ? items.count + $0 : $0 })
                return .array(items.enumerated().filter { !removed.contains($0.offset) }.map(\.element))
            case (.array(let items), .filter(let filter)):
                let root = JSONValue(document)
                return .array(items.filter { !filter.accepts(JSONValue($0), root: root) })
            default:
                return parent
            }
        }
    }
}

/// Rewrites what a JSONPath's steps select (child names, indexes, wildcards) in a document as written.
enum JSONPathEditing {
    static func rewrite(_ node: JSONNode, steps: ArraySlice<JSONPath.Step>, _ edit: (JSONNode) -> JSONNode) -> JSONNode
    {
        guard let step = steps.first else { return edit(node) }
        let rest = steps.dropFirst()
        switch (step, node.kind) {
        case (.child(let names), .object(let members)):
            return JSONNode(
                kind: .object(
                    members.map { member in
                        names.contains(member.key)
                            ? JSONNode.Member(key: member.key, value: rewrite(member.value, steps: rest, edit)) : member
                    }), offset: node.offset)
        case (.indexes(let indexes), .array(let items)):
            let chosen = Set(indexes.map { $0 < 0 ? items.count + $0 : $0 })
            return .array(
                items.enumerated().map {
                    chosen.contains($0.offset) ? rewrite($0.element, steps: rest, edit) : $0.element
                })
        case (.wildcard, .array(let items)):
            return .array(items.map { rewrite($0, steps: rest, edit) })
        case (.wildcard, .object(let members)):
            return JSONNode(
                kind: .object(
                    members.map { JSONNode.Member(key: $0.key, value: rewrite($0.value, steps: rest, edit)) }),
                offset: node.offset)
        default:
            return node
        }
    }
}
