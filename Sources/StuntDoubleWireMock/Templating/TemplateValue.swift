import Foundation
import StuntDouble

/// A value a response template works with: what a path names (`request.path`, `this`, a block's item), what
/// a literal says, what a helper returns. Rendered as WireMock's Java Handlebars renders it: `null` as nothing,
/// whole numbers without a fraction, lists as `[a, b]`.
indirect enum TemplateValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([TemplateValue])
    /// Members in order (a JSON object, `request.query`).
    case object([(key: String, value: TemplateValue)])
    /// Values of one name written more than once (a query parameter, a header): the first when rendered,
    /// each one by index (`request.query.id.[1]`).
    case multi([String])
    /// A value that works out its members when asked (the request, and its headers and cookies).
    case lazy(any TemplateObject)

    /// An error written in the response where the value would be, as WireMock's helpers write theirs.
    static func error(_ message: String) -> TemplateValue { .string("[ERROR: \(message)]") }

    /// The text a template writes for the value.
    var text: String {
        switch self {
        case .null: ""
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): Self.javaText(value)
        case .string(let value): value
        case .array(let items): "[" + items.map(\.nestedText).joined(separator: ", ") + "]"
        case .object(let members):
            "{" + members.map { "\($0.key)=\($0.value.nestedText)" }.joined(separator: ", ") + "}"
        case .multi(let values): values.first ?? ""
        case .lazy(let object): object.text
        }
    }

    /// The text of a value inside a list or a map, as Java's `toString` writes it: `null` is "null".
    private var nestedText: String {
        if case .null = self { return "null" }
        return text
    }

    /// A double as Java prints it: `2.0`, `0.5`, `1.0E10`.
    static func javaText(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        if value == value.rounded(), abs(value) < 1e7 { return String(format: "%.1f", value) }
        return "\(value)"
    }

    /// Whether `#if` takes the value as true: not null, false, empty (text, list, object) or zero, as in Java
    /// Handlebars.
    var isTruthy: Bool {
        switch self {
        case .null: false
        case .bool(let value): value
        case .int(let value): value != 0
        case .double(let value): value != 0
        case .string(let value): !value.isEmpty
        case .array(let items): !items.isEmpty
        case .object(let members): !members.isEmpty
        case .multi(let values): !values.isEmpty
        case .lazy: true
        }
    }

    /// A member by name: an object's member, a list's item by index (`0`, `[0]`), a lazy value's member.
    func member(_ name: String) -> TemplateValue? {
        switch self {
        case .object(let members):
            return members.last { $0.key == name }?.value
        case .array(let items):
            if name == "length" || name == "size" { return .int(items.count) }
            return Self.index(name, count: items.count).map { items[$0] }
        case .multi(let values):
            switch name {
            case "length", "size": return .int(values.count)
            case "first": return values.first.map(TemplateValue.string)
            case "last": return values.last.map(TemplateValue.string)
            default: return Self.index(name, count: values.count).map { .string(values[$0]) }
            }
        case .lazy(let object):
            return object.member(name)
        case .string(let text):
            return name == "length" ? .int(text.count) : nil
        default:
            return nil
        }
    }

    private static func index(_ name: String, count: Int) -> Int? {
        guard let index = Int(name) else { return nil }
        let resolved = index < 0 ? count + index : index
        return (0..<count).contains(resolved) ? resolved : nil
    }

    /// The items a block iterates (`#each`): a list's, a repeated value's, an object's members (with keys).
    var items: [(key: String?, value: TemplateValue)] {
        switch self {
        case .array(let items): items.map { (nil, $0) }
        case .multi(let values): values.map { (nil, .string($0)) }
        case .object(let members): members.map { ($0.key, $0.value) }
        case .lazy(let object): object.items
        default: []
        }
    }

    /// The value as a number, when it is one or reads as one.
    var number: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        case .string(let text): Double(text.trimmingCharacters(in: .whitespaces))
        case .multi(let values): values.first.flatMap { Double($0) }
        case .bool(let value): value ? 1 : 0
        default: nil
        }
    }

    /// The value as a whole number, when it is one that fits (never a trap for `1e300` or `NaN`).
    var integer: Int? {
        if case .int(let value) = self { return value }
        guard let number, number.isFinite, abs(number) < 9e15 else { return nil }
        return Int(number.rounded(.towardZero))
    }

    /// The value from JSON.
    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let number):
            if let int = Int(number.text) {
                self = .int(int)
            } else {
                self = .double(Double(number.text) ?? 0)
            }
        case .string(let value): self = .string(value)
        case .array(let items): self = .array(items.map(TemplateValue.init))
        case .object(let members):
            self = .object(members.keys.sorted().map { ($0, TemplateValue(members[$0] ?? .null)) })
        }
    }

    /// The value from JSON as written (keys in their order).
    init(_ node: JSONNode) {
        switch node.kind {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let number):
            self = JSONData.scalar(number)
        case .string(let value): self = .string(value)
        case .array(let items): self = .array(items.map(TemplateValue.init))
        case .object(let members): self = .object(members.map { ($0.key, TemplateValue($0.value)) })
        }
    }
}

/// A value that works out its members when a template asks for them.
protocol TemplateObject: Sendable {
    /// The text written for the value itself.
    var text: String { get }
    /// A member by name, or `nil`.
    func member(_ name: String) -> TemplateValue?
    /// What `#each` iterates.
    var items: [(key: String?, value: TemplateValue)] { get }
}
