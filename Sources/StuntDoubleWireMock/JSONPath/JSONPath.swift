import Foundation
import StuntDouble

/// A JSONPath expression, the subset that WireMock stub files use (Jayway JsonPath's syntax and results):
/// `$.a.b`, `$['a']`, `$.items[0]`, `$.items[-1]`, `$.items[0,2]`, `$.items[1:3]`, `$.items[*]`, `$.*`,
/// `$..name`, filters such as `$.items[?(@.price < 10 && @.name =~ /pen.*/i)]` and `[?(@.id)]` (in which `@` is
/// the item and `$` the whole document), a bracket after a dot (`$.[?(...)]`, `$.['a']`), and `length()` /
/// `size()` at the end.
struct JSONPath: Sendable, CustomStringConvertible {
    /// The expression as written.
    let expression: String
    let steps: [Step]
    /// Whether the path ends with `length()` (or `size()`): the result is the selection's size.
    let endsWithLength: Bool

    indirect enum Step: Sendable {
        case child([String])
        case wildcard
        case indexes([Int])
        case slice(start: Int?, end: Int?)
        case filter(FilterExpression)
        case deepScan(Step)
    }

    /// Whether the expression selects one value (Jayway's "definite" path) rather than a list.
    var isDefinite: Bool {
        steps.allSatisfy { step in
            switch step {
            case .child(let names): names.count == 1
            case .indexes(let indexes): indexes.count == 1
            default: false
            }
        }
    }

    var description: String { expression }

    /// Whether the expression starts at the document (`$`) rather than at a filter's item (`@`).
    var isRooted: Bool { expression.utf8.first == UInt8(ascii: "$") }

    /// What an expression selects in a document.
    enum Result: Sendable {
        /// A definite path found this value.
        case value(JSONValue)
        /// An indefinite path selected these values (possibly none).
        case list([JSONValue])
        /// A definite path found nothing.
        case notFound
    }

    /// Parses an expression.
    /// - Throws: A message naming what is wrong and where.
    init(_ expression: String) throws(JSONPathError) {
        self.expression = expression
        var parser = JSONPathParser(Array(expression.utf8))
        (steps, endsWithLength) = try parser.parsePath()
    }

    init(expression: String, steps: [Step], endsWithLength: Bool) {
        self.expression = expression
        self.steps = steps
        self.endsWithLength = endsWithLength
    }

    /// Evaluates the expression on a document.
    /// - Parameters:
    ///   - document: What the path selects in.
    ///   - root: The whole document, which `$` in a filter names (`document` itself, but for a filter's
    ///     `@` path).
    /// - Returns: What the expression selects.
    func evaluate(_ document: JSONValue, root: JSONValue? = nil) -> Result {
        let root = root ?? document
        var current = [document]
        for step in steps {
            current = current.flatMap { Self.apply(step, to: $0, root: root) }
        }
        if endsWithLength {
            guard let value = isDefinite ? current.first : .array(current) else { return .notFound }
            switch value {
            case .array(let items): return .value(.number(JSONNumber(text: String(items.count))))
            case .object(let members): return .value(.number(JSONNumber(text: String(members.count))))
            // As Jayway: a string, a number, a boolean or null has no length (WireMock renders nothing).
            default: return .notFound
            }
        }
        if isDefinite {
            return current.first.map(Result.value) ?? .notFound
        }
        return .list(current)
    }

    private static func apply(_ step: Step, to value: JSONValue, root: JSONValue) -> [JSONValue] {
        switch step {
        case .child(let names):
            guard case .object(let members) = value else { return [] }
            return names.compactMap { members[$0] }
        case .wildcard:
            switch value {
            case .array(let items): return items
            case .object(let members): return members.keys.sorted().compactMap { members[$0] }
            default: return []
            }
        case .indexes(let indexes):
            guard case .array(let items) = value else { return [] }
            return pick(indexes, from: items)
        case .slice(let start, let end):
            guard case .array(let items) = value else { return [] }
            return slice(items, from: start, to: end)
        case .filter(let filter):
            switch value {
            case .array(let items): return items.filter { filter.accepts($0, root: root) }
            // Jayway applies a filter on an object to the object itself.
            case .object: return filter.accepts(value, root: root) ? [value] : []
            default: return []
            }
        case .deepScan(let inner):
            var found: [JSONValue] = []
            deepScan(value, inner, root: root, into: &found)
            return found
        }
    }

    /// The items at the indexes (negative ones from the end), those that exist.
    static func pick<Item>(_ indexes: [Int], from items: [Item]) -> [Item] {
        indexes.compactMap { index in
            let resolved = index < 0 ? items.count + index : index
            return items.indices.contains(resolved) ? items[resolved] : nil
        }
    }

    /// `[start:end]` of the items (negative bounds from the end, clamped).
    static func slice<Item>(_ items: [Item], from start: Int?, to end: Int?) -> [Item] {
        func resolve(_ bound: Int?, _ fallback: Int) -> Int {
            guard let bound else { return fallback }
            return min(max(bound < 0 ? items.count + bound : bound, 0), items.count)
        }
        let lower = resolve(start, 0)
        let upper = resolve(end, items.count)
        return lower < upper ? Array(items[lower..<upper]) : []
    }

    private static func deepScan(_ value: JSONValue, _ step: Step, root: JSONValue, into found: inout [JSONValue]) {
        found += apply(step, to: value, root: root)
        switch value {
        case .array(let items):
            for item in items { deepScan(item, step, root: root, into: &found) }
        case .object(let members):
            for key in members.keys.sorted() {
                if let member = members[key] { deepScan(member, step, root: root, into: &found) }
            }
        default:
            break
        }
    }
}

/// Why a JSONPath expression does not parse.
struct JSONPathError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
