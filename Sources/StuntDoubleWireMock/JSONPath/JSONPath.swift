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

    /// What an expression selects in a document: values (for matchers) or JSON as written (for templates).
    enum Selection<Document> {
        /// A definite path found this value.
        case value(Document)
        /// An indefinite path selected these values (possibly none).
        case list([Document])
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
    ///   - document: What the path selects in: values, or JSON as written (a wildcard and a deep scan then walk
    ///     members in their order, as Jayway does).
    ///   - root: The whole document, which `$` in a filter names (`document` itself, but for a filter's
    ///     `@` path).
    ///   - null: What a deep scan for a name gives for each object without it (Jayway's
    ///     `DEFAULT_PATH_LEAF_TO_NULL`, which WireMock's `jsonPath` helper uses), or `nil` for nothing.
    /// - Returns: What the expression selects.
    func evaluate<Document: JSONPathDocument>(
        _ document: Document, root: JSONValue? = nil, leafToNull null: Document? = nil
    ) -> Selection<Document> {
        // Inside a filter the root is given (one per item and operand): no object is made for it then.
        let walk = Walk(root: root.map(FilterRoot.given) ?? .lazy(LazyValue(document)), null: null)
        var current = [document]
        for step in steps {
            current = current.flatMap { walk.apply(step, to: $0) }
        }
        if endsWithLength {
            // An indefinite path counts what it selected; a definite one, its array's items or its object's
            // members. As Jayway: a string, a number, a boolean or null has no length (WireMock renders nothing).
            let count = isDefinite ? current.first.flatMap { $0.items?.count ?? $0.memberCount } : current.count
            guard let count else { return .notFound }
            return .value(Document(count: count))
        }
        if isDefinite {
            return current.first.map(Selection.value) ?? .notFound
        }
        return .list(current)
    }

    /// The whole document as a value, which `$` in a filter names.
    private enum FilterRoot<Document: JSONPathDocument> {
        case given(JSONValue)
        /// Made when a filter first needs it (a template's document is JSON as written).
        case lazy(LazyValue<Document>)

        var value: JSONValue {
            switch self {
            case .given(let value): value
            case .lazy(let lazy): lazy.value
            }
        }
    }

    private final class LazyValue<Document: JSONPathDocument> {
        let document: Document
        lazy var value: JSONValue = document.value

        init(_ document: Document) {
            self.document = document
        }
    }

    /// One evaluation's steps over one document.
    private struct Walk<Document: JSONPathDocument> {
        let root: FilterRoot<Document>
        let null: Document?

        func apply(_ step: Step, to document: Document) -> [Document] {
            switch step {
            case .child(let names):
                return names.compactMap { document.member(named: $0) }
            case .wildcard:
                return document.items ?? document.memberValues ?? []
            case .indexes(let indexes):
                return pick(indexes, from: document.items ?? [])
            case .slice(let start, let end):
                return slice(document.items ?? [], from: start, to: end)
            case .filter(let filter):
                if let items = document.items {
                    return items.filter { filter.accepts($0.value, root: root.value) }
                }
                // Jayway applies a filter on an object to the object itself.
                guard document.memberCount != nil else { return [] }
                return filter.accepts(document.value, root: root.value) ? [document] : []
            case .deepScan(let inner):
                var found: [Document] = []
                deepScan(document, inner, into: &found)
                return found
            }
        }

        private func deepScan(_ document: Document, _ step: Step, into found: inout [Document]) {
            let selected = apply(step, to: document)
            if selected.isEmpty, let null, document.memberCount != nil, case .child(let names) = step,
                names.count == 1
            {
                found.append(null)
            } else {
                found += selected
            }
            for child in document.items ?? document.memberValues ?? [] {
                deepScan(child, step, into: &found)
            }
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
}

/// Why a JSONPath expression does not parse.
struct JSONPathError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
