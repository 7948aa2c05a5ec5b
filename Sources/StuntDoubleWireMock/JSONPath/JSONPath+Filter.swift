import Foundation
import StuntDouble

/// A filter's condition, `?(...)`.
indirect enum FilterExpression: Sendable {
    case exists(JSONPath)
    case not(FilterExpression)
    case and(FilterExpression, FilterExpression)
    case or(FilterExpression, FilterExpression)
    case compare(Operand, String, Operand)
    case regex(Operand, NSRegularExpressionBox)

    enum Operand: Sendable {
        case path(JSONPath)
        case literal(JSONValue)

        /// The operand's value for a filter's item, in a document (which `$` names).
        func resolve(_ item: JSONValue, root: JSONValue) -> JSONValue? {
            switch self {
            case .literal(let value):
                return value
            case .path(let path):
                switch path.evaluate(path.isRooted ? root : item, root: root) {
                case .value(let value): return value
                case .list(let values): return values.count == 1 ? values[0] : .array(values)
                case .notFound: return nil
                }
            }
        }
    }

    /// Whether the filter keeps an item of a document (which `$` names).
    func accepts(_ item: JSONValue, root: JSONValue) -> Bool {
        switch self {
        case .exists(let path):
            switch path.evaluate(path.isRooted ? root : item, root: root) {
            case .value: return true
            case .list(let values): return !values.isEmpty
            case .notFound: return false
            }
        case .not(let inner):
            return !inner.accepts(item, root: root)
        case .and(let left, let right):
            return left.accepts(item, root: root) && right.accepts(item, root: root)
        case .or(let left, let right):
            return left.accepts(item, root: root) || right.accepts(item, root: root)
        case .regex(let operand, let regex):
            guard case .string(let text)? = operand.resolve(item, root: root) else { return false }
            return regex.matchesWhole(text)
        case .compare(let left, let operation, let right):
            guard let lhs = left.resolve(item, root: root), let rhs = right.resolve(item, root: root) else {
                return operation == "!="
            }
            return Self.compare(lhs, operation, rhs)
        }
    }

    private static func compare(_ lhs: JSONValue, _ operation: String, _ rhs: JSONValue) -> Bool {
        switch operation {
        case "==": return lhs == rhs
        case "!=": return lhs != rhs
        case "in", "nin":
            guard case .array(let items) = rhs else { return false }
            return items.contains(lhs) == (operation == "in")
        default:
            break
        }
        let ordering: Int?
        switch (lhs, rhs) {
        case (.number(let a), .number(let b)):
            let (x, y) = (Double(a.text) ?? .nan, Double(b.text) ?? .nan)
            ordering = x < y ? -1 : (x > y ? 1 : (x == y ? 0 : nil))
        case (.string(let a), .string(let b)):
            ordering = a < b ? -1 : (a > b ? 1 : 0)
        default:
            ordering = nil
        }
        guard let ordering else { return false }
        switch operation {
        case "<": return ordering < 0
        case "<=": return ordering <= 0
        case ">": return ordering > 0
        case ">=": return ordering >= 0
        default: return false
        }
    }
}
