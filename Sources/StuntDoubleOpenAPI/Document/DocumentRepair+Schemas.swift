import Foundation

/// The repairs of schemas, wherever they are in a document.
extension DocumentRepair {
    // MARK: - Schemas

    /// Walks a tree, repairing every mapping that is a schema; data (examples, defaults) and extensions are left
    /// as written.
    mutating func repairSchemas(_ node: DocumentNode, key: String?) -> DocumentNode {
        switch node.kind {
        case .scalar:
            return node
        case .sequence(let items):
            return node.withItems(items.map { repairSchemas($0, key: nil) })
        case .mapping(let members):
            let namesMembers = key.map(Self.nameMaps.contains) ?? false
            if namesMembers, members.count == 1, let reference = node["$ref"]?.string,
                let target = try? documents.resolve(reference, from: node.file, at: node), target.isMapping
            {
                // A map of named things (properties, responses, content) given whole as a $ref: the spec allows
                // $refs only for the things themselves; split documents (Redocly's) write it anyway.
                note(
                    node,
                    "\(key ?? "") is a $ref to \(reference), which the specification allows only for each of its "
                        + "members: read as if written here")
                return repairSchemas(target, key: key)
            }
            // Every rewrite is noted: a subtree that added no note is kept as it is, not rebuilt.
            let before = deviations.count
            var members = members
            if let merge = members.firstIndex(where: { $0.key == "<<" }) {
                members = merged(members, at: merge)
            }
            var repaired: [(key: String, value: DocumentNode)] = []
            repaired.reserveCapacity(members.count)
            for (name, value) in members {
                if !namesMembers, Self.dataKeys.contains(name) || name.hasPrefix("x-") {
                    repaired.append((name, value))
                } else if !namesMembers, name == "description" || name == "summary",
                    value.members.count == 1, let reference = value["$ref"]?.string,
                    let target = try? documents.resolve(reference, from: value.file, at: value), target.text != nil
                {
                    // Text kept in another file (Redocly's split layout): the specification wants the text here.
                    note(
                        value,
                        "\(name) is a $ref to \(reference), where the specification wants text: read as that text")
                    repaired.append((name, target.withText(target.text ?? "")))
                } else {
                    repaired.append((name, repairSchemas(value, key: namesMembers ? nil : name)))
                }
            }
            let node = deviations.count != before ? node.withMembers(repaired) : node
            return namesMembers ? node : repairSchema(node)
        }
    }

    /// YAML's merge key (`<<: *defaults`, YAML 1.1, which the reader leaves off): the named mapping's members,
    /// then those written beside it, which win.
    private mutating func merged(_ members: [(key: String, value: DocumentNode)], at index: Int) -> [(
        key: String, value: DocumentNode
    )] {
        let source = members[index].value
        let sources = source.isMapping ? [source] : source.items.filter(\.isMapping)
        guard !sources.isEmpty else { return members }
        note(source, "a YAML merge key (<<), which YAML 1.2 does not have: read as merging its members here")
        var result = members.filter { $0.key != "<<" }
        for inherited in sources.flatMap(\.members) where !result.contains(where: { $0.key == inherited.key }) {
            result.append(inherited)
        }
        return result
    }

    /// Swagger 2's type names and spellings that are no JSON Schema type, read as the type they mean.
    private static let typeNames = [
        "int": "integer", "long": "integer", "int32": "integer", "int64": "integer", "float": "number",
        "double": "number", "decimal": "number", "bool": "boolean", "file": "string", "date": "string",
        "datetime": "string", "date-time": "string", "String": "string", "Integer": "integer", "Boolean": "boolean",
        "Number": "number", "Object": "object", "Array": "array",
    ]

    /// A parameter in Swagger 2's shape (its schema's keywords beside `name` and `in`), one of a schema's
    /// properties saying `required: true` (Swagger's habit), a 3.0 `$ref` with keywords beside it, and a type name
    /// that is no JSON Schema type.
    private mutating func repairShapes(_ node: DocumentNode) -> DocumentNode {
        var node = node
        let schemaKeys = ["type", "format", "items", "enum", "minimum", "maximum", "minLength", "maxLength", "pattern"]
        // (A security scheme has name, in and type too; its type is apiKey, never a value's.)
        if node["in"] != nil, node["name"] != nil, node["schema"] == nil, node["content"] == nil,
            let type = node["type"]?.text, ["string", "integer", "number", "boolean", "array", "file"].contains(type)
        {
            let moved = node.members.filter { schemaKeys.contains($0.key) }
            note(
                node,
                "the parameter \(node["name"]?.text ?? "") gives its type beside name and in, as Swagger 2 did: read "
                    + "as its schema")
            node = node.withMembers(node.members.filter { !schemaKeys.contains($0.key) })
                .setting("schema", to: .mapping(moved, at: node))
            return node
        }
        if let type = node["type"], let name = type.string, let meant = Self.typeNames[name] {
            note(
                type,
                "type \(name) is no JSON Schema type: read as \(meant)" + (name == "file" ? ", format: binary" : ""))
            node = node.setting("type", to: type.withText(meant))
            if name == "file", node["format"] == nil { node = node.setting("format", to: .string("binary", at: type)) }
        }
        if let properties = node["properties"], properties.isMapping, node["type"]?.text != "array" {
            var required = node["required"]?.items.compactMap(\.text) ?? []
            var changed = false
            let repaired = properties.members.map { name, property -> (key: String, value: DocumentNode) in
                guard let flag = property["required"], let value = flag.bool else { return (name, property) }
                note(
                    flag,
                    "property \(name) says required: \(value) in its own schema, as Swagger's habit was; JSON Schema "
                        + "lists required properties on the object: read so")
                changed = true
                if value, !required.contains(name) { required.append(name) }
                return (name, property.removing("required"))
            }
            if changed {
                node = node.setting("properties", to: properties.withMembers(repaired))
                let at = node["required"] ?? properties
                node = node.setting("required", to: .sequence(required.map { .string($0, at: at) }, at: at))
            }
        }
        if isVersion30, let reference = node["$ref"], let target = reference.string {
            let beside = node.members.filter { Self.effectiveBeside($0.key) }.map(\.key)
            let isSchema = !target.hasPrefix("#/components/") || target.hasPrefix("#/components/schemas/")
            if !beside.isEmpty, isSchema {
                // The schema compiler applies them (as 3.1 does); the tree keeps its shape, so that JSON pointers
                // through it still lead where they did.
                note(
                    reference,
                    "keywords beside a $ref (\(beside.joined(separator: ", "))) are ignored by OpenAPI 3.0, though "
                        + "meant: read as applying with it, as 3.1 does")
            } else if !isSchema, node.members.contains(where: { $0.key != "$ref" && !$0.key.hasPrefix("x-") }) {
                let dropped = node.members.filter { $0.key != "$ref" && !$0.key.hasPrefix("x-") }.map(\.key)
                note(
                    reference,
                    "keywords beside a $ref to \(target) (\(dropped.joined(separator: ", "))), where the specification "
                        + "allows none: ignored, as 3.0 says")
                node = .mapping([("$ref", reference)], at: node)
            }
        }
        return node
    }

    /// A schema keyword beside a 3.0 `$ref` that changes what the schema accepts (a description or an example
    /// does not; neither does anything a parameter or a response reference may carry).
    private static func effectiveBeside(_ key: String) -> Bool {
        [
            "nullable", "readOnly", "writeOnly", "type", "enum", "format", "minimum", "maximum", "exclusiveMinimum",
            "exclusiveMaximum", "minLength", "maxLength", "pattern", "items", "properties", "additionalProperties",
            "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "allOf", "oneOf", "anyOf", "not",
            "multipleOf",
        ].contains(key)
    }

    /// One schema's own keywords: bounds in the other version's shape, `type` lists, enum members of the wrong
    /// kind, `nullable` in 3.1.
    private mutating func repairSchema(_ schema: DocumentNode) -> DocumentNode {
        var schema = repairShapes(schema)
        for (bound, limit) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
            guard let value = schema[bound], case .scalar(_, let type) = value.kind else { continue }
            if !isVersion30, type == .bool {
                if value.bool == true, let number = schema[limit], number.number != nil {
                    note(
                        value,
                        "\(bound): true is OpenAPI 3.0's form; in 3.1 the bound is the number: read as \(bound): \(number.text ?? "")"
                    )
                    schema = schema.setting(bound, to: number).removing(limit)
                } else {
                    note(value, "\(bound): \(value.text ?? "") is OpenAPI 3.0's form, with no effect here: ignored")
                    schema = schema.removing(bound)
                }
            } else if isVersion30, type == .integer || type == .number {
                note(
                    value,
                    "\(bound): \(value.text ?? "") is OpenAPI 3.1's form; in 3.0 it is \(limit) with \(bound): true: read so"
                )
                schema = schema.setting(limit, to: value).setting(bound, to: .bool(true, at: value))
            }
        }
        if let type = schema["type"], case .sequence(let items) = type.kind {
            if !isVersion30, items.contains(where: { $0.isNull }) {
                note(type, "a type list names null (no quotes), which YAML reads as nothing: read as \"null\"")
                schema = schema.setting("type", to: type.withItems(items.map { $0.isNull ? $0.withText("null") : $0 }))
            } else if isVersion30 {
                let named = items.filter { !$0.isNull && $0.text != "null" }
                if named.count == 1, let only = named.first {
                    let nullable = named.count < items.count
                    note(
                        type,
                        "a list of types is OpenAPI 3.1's form; 3.0 has one type"
                            + (nullable
                                ? " and nullable: read as type: \(only.text ?? ""), nullable: true"
                                : ": read as its one type"))
                    schema = schema.setting("type", to: only)
                    if nullable { schema = schema.setting("nullable", to: .bool(true, at: type)) }
                }
            }
        }
        if schema["type"]?.text == "string", let list = schema["enum"],
            list.items.contains(where: { $0.string == nil && !$0.isNull && !$0.isContainer })
        {
            note(
                list,
                "a string schema's enum lists values that are not strings: read as their text (so a JSON number is refused)"
            )
            schema = schema.setting(
                "enum",
                to: list.withItems(
                    list.items.map {
                        $0.string == nil && !$0.isNull && !$0.isContainer ? $0.withText($0.text ?? "") : $0
                    }))
        }
        if let list = schema["enum"], list.items.contains(where: \.isNull), let type = schema["type"]?.string,
            type != "null", schema["nullable"]?.bool != true
        {
            // null listed in an enum whose type excludes it: the schema means "or null".
            if isVersion30 {
                note(list, "the enum lists null, which type \(type) excludes without nullable: read as nullable: true")
                schema = schema.setting("nullable", to: .bool(true, at: list))
            } else {
                note(list, "the enum lists null, which type \(type) excludes: read as type: [\(type), \"null\"]")
                let type = schema["type"]!
                schema = schema.setting("type", to: .sequence([type, type.withText("null")], at: type))
            }
        }
        if let items = schema["items"], case .sequence(let tuple) = items.kind {
            // JSON Schema's tuple form until draft 2019-09, which generators still write; 2020-12 (OpenAPI 3.1)
            // names it prefixItems, and items is then what follows the tuple (additionalItems before).
            let additional = schema["additionalItems"]
            note(
                items,
                "items is a list of schemas, JSON Schema's tuple form before 2020-12 (OpenAPI 3.1 writes prefixItems): "
                    + "read as prefixItems" + (additional == nil ? "" : ", and additionalItems as items"))
            schema = schema.removing("items").removing("additionalItems").setting("prefixItems", to: items)
            if let additional {
                if additional.bool == false {
                    if schema["maxItems"] == nil {
                        schema = schema.setting("maxItems", to: .integer(tuple.count, at: additional))
                    }
                } else if additional.isMapping {
                    schema = schema.setting("items", to: additional)
                }
            }
        }
        for key in ["oneOf", "anyOf"] where isVersion30 {
            // A branch of type null (rswag's), which 3.0 does not have: the schema is nullable.
            guard let branches = schema[key], case .sequence(let items) = branches.kind else { continue }
            let isNullType = { (branch: DocumentNode) -> Bool in
                guard let type = branch["type"] else { return false }
                return (type.isNull || type.text == "null")
                    && branch.members.allSatisfy {
                        ["type", "description", "title"].contains($0.key) || $0.key.hasPrefix("x-")
                    }
            }
            guard let null = items.first(where: isNullType) else { continue }
            note(null, "a \(key) branch of type null, which OpenAPI 3.0 does not have: read as nullable: true")
            schema = schema.setting(key, to: branches.withItems(items.filter { !isNullType($0) }))
                .setting("nullable", to: .bool(true, at: null))
        }
        if let required = schema["required"], case .sequence(let names) = required.kind,
            case (let kept, let twice) = Self.onceEach(names, by: \.string), !twice.isEmpty
        {
            // Names listed twice (OpenAI's document repeats five): JSON Schema wants each once.
            note(required, "required lists \(twice.joined(separator: ", ")) more than once: read once")
            schema = schema.setting("required", to: required.withItems(kept))
        }
        // The same $ref twice (openapi-python-client's fixtures): every value matches both, so none can match
        // exactly one. Read once, the schema means what its writer meant.
        if let branches = schema["oneOf"], case .sequence(let items) = branches.kind,
            case (let kept, let twice) = Self.onceEach(items, by: { $0.members.count == 1 ? $0["$ref"]?.string : nil }),
            !twice.isEmpty
        {
            note(
                branches,
                "oneOf lists \(twice.joined(separator: ", ")) more than once, so no value can match exactly one branch: "
                    + "read once")
            schema = schema.setting("oneOf", to: branches.withItems(kept))
        }
        if !isVersion30, let nullable = schema["nullable"], nullable.bool == true {
            note(nullable, "nullable is OpenAPI 3.0's; 3.1 writes type: [..., \"null\"]: read as allowing null")
        }
        return schema
    }

    /// The items with each key once (the first kept; items without a key all kept), and the keys listed more than
    /// once, sorted.
    private static func onceEach(_ items: [DocumentNode], by key: (DocumentNode) -> String?) -> (
        kept: [DocumentNode], twice: [String]
    ) {
        var seen: Set<String> = []
        var twice: Set<String> = []
        let kept = items.filter { item in
            guard let key = key(item) else { return true }
            if seen.insert(key).inserted { return true }
            twice.insert(key)
            return false
        }
        return (kept, twice.sorted())
    }
}
