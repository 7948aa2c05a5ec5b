import Foundation
import StuntDouble

/// A JSON value as the contract sees it: members in the order written (for answers that read as the document
/// does), numbers with their text (for answers that keep it).
enum SchemaValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double, text: String)
    case string(String)
    case array([SchemaValue])
    case object([(String, SchemaValue)])

    static func number(_ value: Double) -> SchemaValue {
        .number(value, text: JSONText.format(value))
    }

    static func == (lhs: SchemaValue, rhs: SchemaValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.number(let left, _), .number(let right, _)): left == right
        case (.string(let left), .string(let right)): left == right
        case (.array(let left), .array(let right)): left == right
        case (.object(let left), .object(let right)):
            left.count == right.count
                && left.allSatisfy { member in right.contains { $0.0 == member.0 && $0.1 == member.1 } }
        default: false
        }
    }

    /// Parses JSON text.
    static func parse(_ data: Data) throws(JSONParseError) -> SchemaValue {
        SchemaValue(try JSONNode.parse(Array(data)))
    }

    init(_ node: JSONNode) {
        switch node.kind {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let number): self = .number(Double(number.text) ?? .nan, text: number.text)
        case .string(let string): self = .string(string)
        case .array(let items): self = .array(items.map(SchemaValue.init))
        case .object(let members): self = .object(members.map { ($0.key, SchemaValue($0.value)) })
        }
    }

    subscript(key: String) -> SchemaValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.0 == key }?.1
    }

    /// The JSON type name, as JSON Schema's `type` words it (`integer` for whole numbers).
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number(let value, _): value.rounded() == value && value.isFinite ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Compact JSON text, members in order.
    var jsonText: String {
        JSONWriter.text(of: self)
    }

    /// JSON text that equal values share: object members sorted by name, numbers written from their value.
    var canonicalText: String {
        switch self {
        case .null, .bool, .string: jsonText
        case .number(let value, _): value.isFinite ? JSONText.format(value) : "null"
        case .array(let items): "[" + items.map(\.canonicalText).joined(separator: ",") + "]"
        case .object(let members):
            "{"
                + members.sorted { $0.0 < $1.0 }.map { SchemaValue.string($0.0).jsonText + ":" + $0.1.canonicalText }
                .joined(separator: ",") + "}"
        }
    }

    /// A short excerpt for messages.
    var excerpt: String {
        let text = jsonText
        return text.count > 60 ? String(text.prefix(57)) + "..." : text
    }
}

extension SchemaValue: JSONWritable {
    /// Members in order; a number that is not finite is `null`.
    var jsonShape: JSONShape<SchemaValue> {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .number(let value, let text): value.isFinite ? .number(text) : .null
        case .string(let string): .string(string)
        case .array(let items): .array(items)
        case .object(let members): .object(members)
        }
    }
}
