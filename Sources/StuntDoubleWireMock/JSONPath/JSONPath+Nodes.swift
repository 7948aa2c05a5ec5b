import Foundation
import StuntDouble

/// JSONPath on JSON as written: members in their order (a wildcard and a deep scan walk them as written, as
/// Jayway does), for templates, which print what they select.
extension JSONPath {
    /// What an expression selects in a document as written.
    enum NodeResult {
        /// A definite path found this value.
        case value(JSONNode)
        /// An indefinite path selected these values (possibly none).
        case list([JSONNode])
        /// A definite path found nothing.
        case notFound
    }

    /// Evaluates the expression on a document as written.
    /// - Parameters:
    ///   - document: What the path selects in.
    ///   - leafToNull: Whether a deep scan for a name gives `null` for each object without it (Jayway's
    ///     `DEFAULT_PATH_LEAF_TO_NULL`, which WireMock's `jsonPath` helper uses).
    /// - Returns: What the expression selects.
    func evaluate(node document: JSONNode, leafToNull: Bool) -> NodeResult {
        // Filters compare values: they see the document, and each item, as values.
        let root = Root(node: document)
        var current = [document]
        for step in steps {
            current = current.flatMap { Self.apply(step, to: $0, root: root, leafToNull: leafToNull) }
        }
        if endsWithLength {
            guard let value = isDefinite ? current.first : .array(current) else { return .notFound }
            switch value.kind {
            case .array(let items): return .value(.number(text: String(items.count)))
            case .object(let members): return .value(.number(text: String(members.count)))
            // As Jayway: a string, a number, a boolean or null has no length (WireMock renders nothing).
            default: return .notFound
            }
        }
        if isDefinite {
            return current.first.map(NodeResult.value) ?? .notFound
        }
        return .list(current)
    }

    /// The document as a value, made when a filter first needs it.
    private final class Root {
        let node: JSONNode
        lazy var value = JSONValue(node)
        init(node: JSONNode) { self.node = node }
    }

    private static func apply(_ step: Step, to node: JSONNode, root: Root, leafToNull: Bool) -> [JSONNode] {
        switch step {
        case .child(let names):
            guard let members = node.members else { return [] }
            return names.compactMap { name in members.last { $0.key == name }?.value }
        case .wildcard:
            switch node.kind {
            case .array(let items): return items
            case .object(let members): return members.map(\.value)
            default: return []
            }
        case .indexes(let indexes):
            return pick(indexes, from: node.items ?? [])
        case .slice(let start, let end):
            return slice(node.items ?? [], from: start, to: end)
        case .filter(let filter):
            switch node.kind {
            case .array(let items): return items.filter { filter.accepts(JSONValue($0), root: root.value) }
            case .object: return filter.accepts(JSONValue(node), root: root.value) ? [node] : []
            default: return []
            }
        case .deepScan(let inner):
            var found: [JSONNode] = []
            deepScan(node, inner, root: root, leafToNull: leafToNull, into: &found)
            return found
        }
    }

    private static func deepScan(
        _ node: JSONNode, _ step: Step, root: Root, leafToNull: Bool, into found: inout [JSONNode]
    ) {
        let selected = apply(step, to: node, root: root, leafToNull: leafToNull)
        if selected.isEmpty, leafToNull, node.members != nil, case .child(let names) = step, names.count == 1 {
            found.append(.null)
        } else {
            found += selected
        }
        switch node.kind {
        case .array(let items):
            for item in items { deepScan(item, step, root: root, leafToNull: leafToNull, into: &found) }
        case .object(let members):
            for member in members { deepScan(member.value, step, root: root, leafToNull: leafToNull, into: &found) }
        default:
            break
        }
    }
}
