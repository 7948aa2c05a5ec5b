import Foundation
import StuntDouble

/// Compiles the schemas of a document (3.0 or 3.1) into a `SchemaTable`: each schema once, by where it is
/// written, so that references to the same schema share an index and recursion ends.
final class SchemaCompiler {
    let documents: DocumentSet
    /// OpenAPI 3.0: `nullable`, boolean `exclusiveMinimum`, `example`.
    let isVersion30: Bool
    private(set) var table = SchemaTable()
    private var indexByPlace: [Place: Int] = [:]
    private(set) var warnings: [String] = []

    private struct Place: Hashable {
        let file: Int
        let line: Int
        let column: Int
    }

    init(documents: DocumentSet, isVersion30: Bool) {
        self.documents = documents
        self.isVersion30 = isVersion30
    }

    /// Schemas given an index but not yet filled in, and whether a `compile` call is filling them.
    private var pending: [(schema: Schema, node: DocumentNode)] = []
    private var isDraining = false

    /// Compiles a schema node (or returns the index it already has).
    ///
    /// A schema met inside another (a property, an item, a `$ref`'s target) gets its index at once and is
    /// filled in later, from a work list: compiling never recurses, so a chain of 5,000 `$ref`s (each schema
    /// naming the next) compiles on any stack.
    func compile(_ node: DocumentNode, name: String? = nil) throws(OpenAPIContractError) -> Int {
        let place = Place(file: node.file, line: node.line, column: node.column)
        if let index = indexByPlace[place] { return index }
        let index = table.schemas.count
        indexByPlace[place] = index
        let schema = Schema(location: documents.location(of: node))
        schema.name = name
        table.schemas.append(schema)
        pending.append((schema, node))
        guard !isDraining else { return index }
        isDraining = true
        defer {
            isDraining = false
            pending.removeAll()
        }
        while let (next, nextNode) = pending.popLast() {
            try fillIn(next, from: nextNode)
        }
        return index
    }

    private func fillIn(_ schema: Schema, from node: DocumentNode) throws(OpenAPIContractError) {
        if let bool = node.bool {
            // `true` admits anything, `false` nothing (3.1).
            if !bool { schema.not = try compileAnything(at: node) }
            return
        }
        guard node.isMapping else {
            throw OpenAPIContractError("\(schema.location): a schema must be an object (or true/false in 3.1).")
        }
        var filled = schema
        try fill(&filled, from: node)
    }

    private func compileAnything(at node: DocumentNode) throws(OpenAPIContractError) -> Int {
        let index = table.schemas.count
        table.schemas.append(Schema(location: documents.location(of: node)))
        return index
    }

    private func fill(_ schema: inout Schema, from node: DocumentNode) throws(OpenAPIContractError) {
        if let reference = node["$ref"]?.string {
            let target = try documents.resolve(reference, from: node.file, at: node)
            let name = reference.split(separator: "/").last.map(String.init)
            schema.reference = try compile(target, name: name)
            // 3.0 ignores a $ref's siblings, 3.1 applies them; a 3.0 document with siblings that change what the
            // schema accepts means them (a deviation, noted by DocumentRepair), so they apply in both.
        }
        if let typeNode = node["type"] {
            var types: SchemaTypes = []
            for name in typeNode.items.isEmpty ? [typeNode] : typeNode.items {
                guard let text = name.string, let type = SchemaTypes(name: text) else {
                    throw OpenAPIContractError(
                        "\(documents.location(of: name)): \(name.text.map { "\"\($0)\"" } ?? "this value") is not a JSON "
                            + "Schema type (object, array, string, number, integer, boolean, null).")
                }
                types.insert(type)
            }
            if types.contains(.number) { types.insert(.integer) }
            schema.types = types
        }
        if node["nullable"]?.bool == true {
            schema.types?.insert(.null)
            schema.isNullable = true
        }
        if let values = node["enum"]?.items {
            schema.enumValues = values.map(\.value)
            if node["nullable"]?.bool == true { schema.enumValues?.append(.null) }
        }
        if let constant = node["const"] { schema.constant = constant.value }
        schema.format = node["format"]?.text
        schema.minimum = node["minimum"]?.finiteNumber
        schema.maximum = node["maximum"]?.finiteNumber
        if let exclusive = node["exclusiveMinimum"] {
            if let flag = exclusive.bool {
                if flag { schema.exclusiveMinimum = schema.minimum; schema.minimum = nil }
            } else {
                schema.exclusiveMinimum = exclusive.finiteNumber
            }
        }
        if let exclusive = node["exclusiveMaximum"] {
            if let flag = exclusive.bool {
                if flag { schema.exclusiveMaximum = schema.maximum; schema.maximum = nil }
            } else {
                schema.exclusiveMaximum = exclusive.finiteNumber
            }
        }
        schema.multipleOf = node["multipleOf"]?.finiteNumber.flatMap { $0 > 0 ? $0 : nil }
        schema.minLength = node["minLength"]?.integer
        schema.maxLength = node["maxLength"]?.integer
        if let patternNode = node["pattern"], let pattern = patternNode.text {
            do {
                schema.pattern = RegexBox(source: pattern, expression: try NSRegularExpression(pattern: pattern))
            } catch {
                warnings.append(
                    "\(documents.location(of: patternNode)): pattern \"\(pattern)\" is not a regular expression "
                        + "this platform reads; it is not checked.")
            }
        }
        if let items = node["items"] {
            if items.items.isEmpty, !items.isMapping, items.bool == nil {
                throw OpenAPIContractError("\(documents.location(of: items)): items must be a schema.")
            }
            if case .sequence(let tuple) = items.kind {
                schema.prefixItems = try tuple.map { node throws(OpenAPIContractError) in try compile(node) }
            } else {
                schema.items = try compile(items)
            }
        }
        if let prefix = node["prefixItems"]?.items {
            schema.prefixItems = try prefix.map { node throws(OpenAPIContractError) in try compile(node) }
        }
        schema.minItems = node["minItems"]?.integer
        schema.maxItems = node["maxItems"]?.integer
        schema.uniqueItems = node["uniqueItems"]?.bool ?? false
        for member in node["properties"]?.members ?? [] {
            schema.properties.append((member.key, try compile(member.value)))
        }
        for member in node["patternProperties"]?.members ?? [] {
            if let expression = try? NSRegularExpression(pattern: member.key) {
                schema.patternProperties.append(
                    (RegexBox(source: member.key, expression: expression), try compile(member.value)))
            } else {
                warnings.append(
                    "\(documents.location(of: member.value)): patternProperties \"\(member.key)\" is not a regular "
                        + "expression this platform reads; members it would name are checked as additionalProperties.")
            }
        }
        for keyword in Self.unsupported where node[keyword] != nil {
            warnings.append(
                "\(documents.location(of: node[keyword] ?? node)): \(keyword) is not checked (StuntDouble does not support "
                    + "it yet); values are checked against the schema's other keywords.")
        }
        schema.required = node["required"]?.items.compactMap(\.text) ?? []
        if let additional = node["additionalProperties"] {
            if let flag = additional.bool {
                schema.additional = flag ? .allowed : .forbidden
            } else {
                schema.additional = .schema(try compile(additional))
            }
        }
        schema.minProperties = node["minProperties"]?.integer
        schema.maxProperties = node["maxProperties"]?.integer
        schema.allOf = try compileList(node["allOf"])
        schema.anyOf = try compileList(node["anyOf"])
        schema.oneOf = try compileList(node["oneOf"])
        if let not = node["not"] { schema.not = try compile(not) }
        if let discriminator = node["discriminator"], let property = discriminator["propertyName"]?.text {
            var mapping: [String: Int] = [:]
            for member in discriminator["mapping"]?.members ?? [] {
                guard let reference = member.value.text else { continue }
                let target =
                    reference.contains("#") || reference.contains("/") || reference.hasSuffix(".yaml")
                        || reference.hasSuffix(".yml") || reference.hasSuffix(".json")
                    ? reference : "#/components/schemas/\(reference)"
                let resolved = try documents.resolve(target, from: member.value.file, at: member.value)
                mapping[member.key] = try compile(resolved, name: target.split(separator: "/").last.map(String.init))
            }
            schema.discriminator = (property, mapping)
        }
        schema.readOnly = node["readOnly"]?.bool ?? false
        schema.writeOnly = node["writeOnly"]?.bool ?? false
        if let example = node["example"] {
            schema.example = example.value
        } else if let first = node["examples"]?.items.first {
            schema.example = first.value
        }
        if let value = node["default"] { schema.defaultValue = value.value }
    }

    /// Keywords that validate but are not checked yet: each one in a document is a warning.
    private static let unsupported = [
        "propertyNames", "contains", "minContains", "maxContains", "dependentRequired", "dependentSchemas", "if",
        "unevaluatedItems", "$dynamicRef",
    ]

    private func compileList(_ node: DocumentNode?) throws(OpenAPIContractError) -> [Int] {
        guard let node else { return [] }
        guard case .sequence(let items) = node.kind else {
            throw OpenAPIContractError(
                "\(documents.location(of: node)): allOf, anyOf and oneOf take a list of schemas.")
        }
        return try items.map { item throws(OpenAPIContractError) in try compile(item) }
    }
}
