import Foundation
import StuntDouble

/// JSON Schema types, as a set.
struct SchemaTypes: OptionSet, Sendable, Hashable {
    let rawValue: UInt8
    static let null = SchemaTypes(rawValue: 1)
    static let boolean = SchemaTypes(rawValue: 2)
    static let integer = SchemaTypes(rawValue: 4)
    static let number = SchemaTypes(rawValue: 8)
    static let string = SchemaTypes(rawValue: 16)
    static let array = SchemaTypes(rawValue: 32)
    static let object = SchemaTypes(rawValue: 64)
    static let all: SchemaTypes = [.null, .boolean, .integer, .number, .string, .array, .object]

    init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The types by their names in a schema, in the order a message lists them.
    private static let named: [(SchemaTypes, String)] = [
        (.object, "object"), (.array, "array"), (.string, "string"), (.number, "number"),
        (.integer, "integer"), (.boolean, "boolean"), (.null, "null"),
    ]

    init?(name: String) {
        guard let type = Self.named.first(where: { $0.1 == name }) else { return nil }
        self = type.0
    }

    var names: [String] {
        Self.named.filter { contains($0.0) }.map(\.1)
    }

    func admits(_ value: SchemaValue) -> Bool {
        switch value {
        case .null: contains(.null)
        case .bool: contains(.boolean)
        case .number(let number, _):
            contains(.number) || (contains(.integer) && number.rounded() == number && number.isFinite)
        case .string: contains(.string)
        case .array: contains(.array)
        case .object: contains(.object)
        }
    }
}

/// One compiled schema of a contract. Schemas live in one array (`SchemaTable`) and refer to each other by
/// index, so that recursive schemas (a tree's node holding nodes) are a cycle of indexes, not of objects.
///
/// A class: checking a value reads a schema per member, and copying a struct of this many fields cost a sixth
/// of a check. It is changed only while the compiler fills it in, before the table is shared.
final class Schema: @unchecked Sendable {
    enum Additional: Sendable {
        case allowed
        case forbidden
        case schema(Int)
    }

    /// Where the schema is written.
    var location: OpenAPISourceLocation
    /// `nil`: any type.
    var types: SchemaTypes?
    /// Another schema this one is (a `$ref`); its other keywords apply too (OpenAPI 3.1).
    var reference: Int?
    var enumValues: [SchemaValue]?
    var constant: SchemaValue?
    var format: String?
    var minimum: Double?
    var maximum: Double?
    var exclusiveMinimum: Double?
    var exclusiveMaximum: Double?
    var multipleOf: Double?
    var minLength: Int?
    var maxLength: Int?
    var pattern: RegexBox?
    var items: Int?
    var prefixItems: [Int] = []
    var minItems: Int?
    var maxItems: Int?
    var uniqueItems = false
    var properties: [(name: String, schema: Int)] = []
    /// `patternProperties`: members whose names match.
    var patternProperties: [(pattern: RegexBox, schema: Int)] = []
    var required: [String] = []
    var additional = Additional.allowed
    var minProperties: Int?
    var maxProperties: Int?
    var allOf: [Int] = []
    var anyOf: [Int] = []
    var oneOf: [Int] = []
    var not: Int?
    var discriminator: (property: String, mapping: [String: Int])?
    /// OpenAPI 3.0's `nullable: true`: `null` passes whatever the other keywords say.
    var isNullable = false
    var readOnly = false
    var writeOnly = false
    var example: SchemaValue?
    var defaultValue: SchemaValue?
    /// A name for messages: the component's (`Pet`), when it is one.
    var name: String?

    init(location: OpenAPISourceLocation) {
        self.location = location
    }

    func property(_ name: String) -> Int? {
        properties.first { $0.name == name }?.schema
    }
}

/// A regular expression as a sendable value (an ECMA-262 `pattern`, run as ICU reads it).
struct RegexBox: @unchecked Sendable {
    let source: String
    // NSRegularExpression is immutable and documented thread-safe.
    let expression: NSRegularExpression

    /// Whether the text matches; a pattern that backtracks past the budget on this text counts as a match
    /// (a rule that cannot be decided in time is not held against a request).
    func matches(_ text: String) -> Bool {
        RegexBudget.boundedMatch(expression, in: text) ?? true
    }
}

/// Every schema of a contract.
struct SchemaTable: Sendable {
    var schemas: [Schema] = []

    subscript(index: Int) -> Schema { schemas[index] }

    /// The types a value of a schema may have, through references and `allOf` (`nil`: any).
    func types(of index: Int, depth: Int = 0) -> SchemaTypes? {
        let schema = schemas[index]
        guard depth < 32 else { return schema.types }
        var types = schema.types
        if let reference = schema.reference, let referred = self.types(of: reference, depth: depth + 1) {
            types = types.map { $0.intersection(referred) } ?? referred
        }
        for part in schema.allOf {
            if let partTypes = self.types(of: part, depth: depth + 1) {
                types = types.map { $0.intersection(partTypes) } ?? partTypes
            }
        }
        if types == nil, !(schema.oneOf + schema.anyOf).isEmpty {
            var union: SchemaTypes = []
            for branch in schema.oneOf + schema.anyOf {
                guard let branchTypes = self.types(of: branch, depth: depth + 1) else { return nil }
                union.formUnion(branchTypes)
            }
            types = union
        }
        return types
    }

    /// The schema of an array's items, through references and `allOf`.
    func itemSchema(of index: Int, depth: Int = 0) -> Int? {
        let schema = schemas[index]
        if let items = schema.items { return items }
        guard depth < 32 else { return nil }
        for next in [schema.reference].compactMap({ $0 }) + schema.allOf {
            if let found = itemSchema(of: next, depth: depth + 1) { return found }
        }
        return nil
    }

    /// The schema of an object's property, through references, `allOf`, `oneOf` and `anyOf` (the first that
    /// declares it), else of `additionalProperties`.
    func propertySchema(_ name: String, of index: Int, depth: Int = 0) -> Int? {
        let schema = schemas[index]
        if let found = schema.property(name) { return found }
        guard depth < 32 else { return nil }
        for next in [schema.reference].compactMap({ $0 }) + schema.allOf + schema.oneOf + schema.anyOf {
            if let found = propertySchema(name, of: next, depth: depth + 1) { return found }
        }
        if case .schema(let additional) = schema.additional { return additional }
        return nil
    }
}
