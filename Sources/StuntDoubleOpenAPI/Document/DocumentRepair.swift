import Foundation

/// A place where a document breaks the letter of the OpenAPI specification in a way its meaning survives: read
/// for what it means (``OpenAPIContract/Deviations/tolerate``), or refused (``OpenAPIContract/Deviations/refuse``,
/// `serve --strict`).
public struct OpenAPIDeviation: Sendable, CustomStringConvertible {
    /// Where it is written.
    public let location: OpenAPISourceLocation
    /// What the document does there, and how it is read.
    public let message: String

    /// `openapi.yaml:12:7: the server variable's enum lists 8443, a number: read as the text "8443"`.
    public var description: String { "\(location): \(message)" }
}

/// Rewrites the common deviations of real documents into their valid form, in the parsed tree, noting each
/// where it is: OpenAPIKit's check and the compilers then both read the document as it means. Each rule is one
/// deviation seen in widely used public documents (Notes/openapi-deviations.md); anything else stays an error.
struct DocumentRepair {
    let documents: DocumentSet
    let isVersion30: Bool
    private(set) var deviations: [OpenAPIDeviation] = []

    private static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
    /// Keys whose values are data (examples, defaults), or the document's own extensions: never rewritten.
    private static let dataKeys: Set<String> = ["example", "examples", "default", "const", "enum", "value"]
    /// Keys whose members are named by the document (a property called `example` is a schema, not data).
    private static let nameMaps: Set<String> = [
        "properties", "patternProperties", "$defs", "definitions", "schemas", "paths", "responses", "parameters",
        "headers", "content", "callbacks", "links", "securitySchemes", "requestBodies", "pathItems", "webhooks",
        "encoding", "variables", "dependentSchemas",
    ]

    init(documents: DocumentSet, isVersion30: Bool) {
        self.documents = documents
        self.isVersion30 = isVersion30
    }

    private mutating func note(_ node: DocumentNode, _ message: String) {
        deviations.append(OpenAPIDeviation(location: documents.location(of: node), message: message))
    }

    // MARK: - The main file

    /// The main file, repaired: its version and info, servers, operations given as `$ref`s, path parameters,
    /// responses, and every schema.
    mutating func repairMain(_ root: DocumentNode) throws(OpenAPIContractError) -> DocumentNode {
        var root = repairSchemas(root, key: nil)
        if let node = root["openapi"], let text = node.text {
            let parts = text.split(separator: ".")
            if parts.count == 2, ["3.0", "3.1", "3.2"].contains(text) {
                let known = ["3.0": "3.0.4", "3.1": "3.1.2", "3.2": "3.2.0"][text]!
                note(node, "openapi \(text) has no patch version: read as \(known)")
                root = root.setting("openapi", to: node.withText(known))
            } else if node.string == nil {
                note(node, "openapi \(text) is written as a number: read as the text \"\(text)\"")
                root = root.setting("openapi", to: node.withText(text))
            }
        }
        if var info = root["info"] {
            for key in ["title", "version"] {
                guard let value = info[key], value.string == nil, let text = value.text, case .scalar = value.kind
                else { continue }
                note(value, "info.\(key) \(text) is not a string: read as the text \"\(text)\"")
                info = info.setting(key, to: value.withText(text))
            }
            root = root.setting("info", to: info)
        }
        if let servers = root["servers"] { root = root.setting("servers", to: repairServers(servers)) }
        if let paths = root["paths"] {
            var members: [(key: String, value: DocumentNode)] = []
            for (path, item) in paths.members {
                members.append((path, try repairPathItem(item, path: path)))
            }
            root = root.setting("paths", to: paths.withMembers(members))
        }
        return root
    }

    /// Another file of the document (schemas, parts named by `$ref`s): its schemas repaired.
    mutating func repairFile(_ root: DocumentNode) -> DocumentNode {
        repairSchemas(root, key: nil)
    }

    private mutating func repairServers(_ servers: DocumentNode) -> DocumentNode {
        servers.withItems(
            servers.items.map { server in
                guard let variables = server["variables"] else { return server }
                let repaired = variables.members.map { name, variable -> (key: String, value: DocumentNode) in
                    var variable = variable
                    if let value = variable["default"], value.string == nil, let text = value.text {
                        note(value, "server variable \(name)'s default \(text) is not a string: read as \"\(text)\"")
                        variable = variable.setting("default", to: value.withText(text))
                    }
                    if let list = variable["enum"], list.items.contains(where: { $0.string == nil }) {
                        let items = list.items.map { item -> DocumentNode in
                            guard item.string == nil, let text = item.text else { return item }
                            note(
                                item, "server variable \(name)'s enum lists \(text), not a string: read as \"\(text)\"")
                            return item.withText(text)
                        }
                        variable = variable.setting("enum", to: list.withItems(items))
                    }
                    return (name, variable)
                }
                return server.setting("variables", to: variables.withMembers(repaired))
            })
    }

    private mutating func repairPathItem(_ item: DocumentNode, path: String) throws(OpenAPIContractError)
        -> DocumentNode
    {
        guard item.isMapping, item["$ref"] == nil else { return item }
        var item = item
        var members: [(key: String, value: DocumentNode)] = []
        for (key, value) in item.members {
            guard Self.methods.contains(key) else {
                members.append((key, value))
                continue
            }
            var operation = value
            if let reference = value["$ref"]?.string, value.members.count == 1 {
                operation = try documents.resolve(reference, from: value.file, at: value)
                note(
                    value,
                    "the \(key.uppercased()) operation of \(path) is a $ref to \(reference), which the specification "
                        + "allows only for whole path items (Redocly's bundler inlines it): read as if written here")
                operation = repairSchemas(operation, key: nil)
            }
            members.append((key, repairOperation(operation, path: path, shared: item["parameters"])))
        }
        item = item.withMembers(members)
        if let parameters = item["parameters"] {
            item = item.setting("parameters", to: repairPathParameters(parameters))
        }
        if let servers = item["servers"] { item = item.setting("servers", to: repairServers(servers)) }
        return item
    }

    private mutating func repairOperation(_ operation: DocumentNode, path: String, shared: DocumentNode?)
        -> DocumentNode
    {
        guard operation.isMapping else { return operation }
        var operation = operation
        var parameters = operation["parameters"].map { repairPathParameters($0) }
        // A {name} in the path that no parameter declares: a string path parameter.
        let declared = Set(
            ((shared?.items ?? []) + (parameters?.items ?? [])).compactMap { item -> String? in
                let parameter = (try? documents.dereference(item)) ?? item
                return parameter["in"]?.text == "path" ? parameter["name"]?.text : nil
            })
        for name in PathTemplate.variables(in: path) where !declared.contains(name) {
            note(
                operation,
                "the path \(path) has {\(name)}, which the operation declares no path parameter for: read as a "
                    + "required string path parameter")
            let at = operation
            let added = DocumentNode.mapping(
                [
                    ("name", DocumentNode.string(name, at: at)), ("in", DocumentNode.string("path", at: at)),
                    ("required", DocumentNode.bool(true, at: at)),
                    ("schema", DocumentNode.mapping([("type", DocumentNode.string("string", at: at))], at: at)),
                ], at: at)
            parameters = (parameters ?? DocumentNode.sequence([], at: operation)).appending(added)
        }
        if let parameters { operation = operation.setting("parameters", to: parameters) }
        if let responses = operation["responses"] {
            let repaired = responses.members.map { code, response -> (key: String, value: DocumentNode) in
                guard response.isMapping, response["$ref"] == nil, response["description"] == nil else {
                    return (code, response)
                }
                note(
                    response, "the \(code) response has no description, which the specification requires: read as empty"
                )
                return (code, response.setting("description", to: .string("", at: response)))
            }
            operation = operation.setting("responses", to: responses.withMembers(repaired))
        }
        if let servers = operation["servers"] { operation = operation.setting("servers", to: repairServers(servers)) }
        return operation
    }

    /// Path parameters are required: one that says otherwise (or nothing) is read as required.
    private mutating func repairPathParameters(_ parameters: DocumentNode) -> DocumentNode {
        parameters.withItems(
            parameters.items.map { parameter in
                guard parameter["in"]?.text == "path", parameter["$ref"] == nil, parameter["required"]?.bool != true
                else { return parameter }
                note(
                    parameter,
                    "path parameter \(parameter["name"]?.text ?? "") is not marked required: true, which every path "
                        + "parameter is: read as required")
                return parameter.setting("required", to: .bool(true, at: parameter))
            })
    }

    // MARK: - Schemas

    /// Walks a tree, repairing every mapping that is a schema; data (examples, defaults) and extensions are left
    /// as written.
    private mutating func repairSchemas(_ node: DocumentNode, key: String?) -> DocumentNode {
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

    /// One schema's own keywords: bounds in the other version's shape, `type` lists, enum members of the wrong
    /// kind, `nullable` in 3.1.
    private mutating func repairSchema(_ schema: DocumentNode) -> DocumentNode {
        var schema = schema
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
        if !isVersion30, let nullable = schema["nullable"], nullable.bool == true {
            note(nullable, "nullable is OpenAPI 3.0's; 3.1 writes type: [..., \"null\"]: read as allowing null")
        }
        return schema
    }
}

extension DocumentNode {
    /// The node as OpenAPIKit's check reads it, where OpenAPIKit is narrower than JSON Schema (not the
    /// document's deviations): integers beyond what a `Double` holds exactly (an int64 bound) are written as the
    /// largest it does, and `null` enum members are left out (OpenAPIKit wants them non-null).
    var forStructureCheck: DocumentNode {
        switch kind {
        case .scalar(let text, .integer):
            guard let value = Double(text), abs(value) > 9_007_199_254_740_991 else { return self }
            return DocumentNode(
                kind: .scalar(value < 0 ? "-9007199254740991" : "9007199254740991", .integer), file: file, line: line,
                column: column)
        case .scalar:
            return self
        case .sequence(let items):
            return withItems(items.map(\.forStructureCheck))
        case .mapping(let members):
            return withMembers(
                members.map { key, value in
                    guard key == "enum", case .sequence(let items) = value.kind, items.contains(where: \.isNull) else {
                        return (key, value.forStructureCheck)
                    }
                    return (key, value.withItems(items.filter { !$0.isNull }.map(\.forStructureCheck)))
                })
        }
    }

    static func string(_ text: String, at node: DocumentNode) -> DocumentNode {
        DocumentNode(kind: .scalar(text, .string), file: node.file, line: node.line, column: node.column)
    }

    static func bool(_ flag: Bool, at node: DocumentNode) -> DocumentNode {
        DocumentNode(
            kind: .scalar(flag ? "true" : "false", .bool), file: node.file, line: node.line, column: node.column)
    }

    static func mapping(_ members: [(key: String, value: DocumentNode)], at node: DocumentNode) -> DocumentNode {
        DocumentNode(kind: .mapping(members), file: node.file, line: node.line, column: node.column)
    }

    static func sequence(_ items: [DocumentNode], at node: DocumentNode) -> DocumentNode {
        DocumentNode(kind: .sequence(items), file: node.file, line: node.line, column: node.column)
    }

    var isNull: Bool {
        if case .scalar(_, .null) = kind { true } else { false }
    }

    var isContainer: Bool {
        if case .scalar = kind { false } else { true }
    }

    /// The scalar as a string of this text, where it was.
    func withText(_ text: String) -> DocumentNode {
        DocumentNode(kind: .scalar(text, .string), file: file, line: line, column: column)
    }

    func withMembers(_ members: [(key: String, value: DocumentNode)]) -> DocumentNode {
        DocumentNode(kind: .mapping(members), file: file, line: line, column: column)
    }

    func withItems(_ items: [DocumentNode]) -> DocumentNode {
        DocumentNode(kind: .sequence(items), file: file, line: line, column: column)
    }

    func appending(_ item: DocumentNode) -> DocumentNode {
        withItems(items + [item])
    }

    /// The mapping with a member set (in its place, or added last).
    func setting(_ key: String, to value: DocumentNode) -> DocumentNode {
        var members = self.members
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append((key, value))
        }
        return withMembers(members)
    }

    func removing(_ key: String) -> DocumentNode {
        withMembers(members.filter { $0.key != key })
    }

}
