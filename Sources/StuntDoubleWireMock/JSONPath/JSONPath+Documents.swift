import Foundation
import StuntDouble

/// What JSONPath walks: JSON as values (matchers compare them) or as written (templates print what they select,
/// members in their order, as Jayway keeps them).
protocol JSONPathDocument {
    /// The member of that name (the last one written, when an object repeats it), or `nil`.
    func member(named name: String) -> Self?
    /// An object's members' values, in the order a wildcard and a deep scan walk them; `nil` for others.
    var memberValues: [Self]? { get }
    /// An object's number of members; `nil` for others (so: whether it is an object), without listing them.
    var memberCount: Int? { get }
    /// An array's items; `nil` for others.
    var items: [Self]? { get }
    /// The document as a value, for filters to compare.
    var value: JSONValue { get }
    /// The number `length()` gives.
    init(count: Int)
}

extension JSONValue: JSONPathDocument {
    func member(named name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[name]
    }

    /// By name: a dictionary has no order of its own.
    var memberValues: [JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return members.keys.sorted().compactMap { members[$0] }
    }

    var memberCount: Int? {
        guard case .object(let members) = self else { return nil }
        return members.count
    }

    var items: [JSONValue]? {
        guard case .array(let items) = self else { return nil }
        return items
    }

    var value: JSONValue { self }

    init(count: Int) {
        self = .number(JSONNumber(text: String(count)))
    }
}

extension JSONNode: JSONPathDocument {
    func member(named name: String) -> JSONNode? {
        members?.last { $0.key == name }?.value
    }

    var memberValues: [JSONNode]? {
        members?.map(\.value)
    }

    var memberCount: Int? { members?.count }

    var value: JSONValue { JSONValue(self) }

    init(count: Int) {
        self = .number(text: String(count))
    }
}
