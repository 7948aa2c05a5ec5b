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
    static let dataKeys: Set<String> = ["example", "examples", "default", "const", "enum", "value"]
    /// Keys whose members are named by the document (a property called `example` is a schema, not data).
    static let nameMaps: Set<String> = [
        "properties", "patternProperties", "$defs", "definitions", "schemas", "paths", "responses", "parameters",
        "headers", "content", "callbacks", "links", "securitySchemes", "requestBodies", "pathItems", "webhooks",
        "encoding", "variables", "dependentSchemas",
    ]

    init(documents: DocumentSet, isVersion30: Bool) {
        self.documents = documents
        self.isVersion30 = isVersion30
    }

    mutating func note(_ node: DocumentNode, _ message: String) {
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
        root = repairMetadataURLs(root)
        if let security = root["security"] { root = root.setting("security", to: repairSecurity(security)) }
        for (kind, map) in root["components"]?.members ?? [] where kind != "extensions" && !kind.hasPrefix("x-") {
            for (name, value) in map.members where !Self.isComponentName(name) {
                note(
                    value,
                    "components.\(kind) name \"\(name)\" has characters the specification does not allow in one (it "
                        + "allows A-Z, a-z, 0-9, ., - and _): read as written, and $refs to it work")
            }
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

    /// Whether a component's name is one the specification allows (`^[a-zA-Z0-9.\-_]+$`).
    static func isComponentName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                    || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            }
    }

    /// The document as OpenAPIKit's check reads it: components whose names the specification does not allow
    /// renamed (the check follows no `$ref`), and ``DocumentNode/forStructureCheck``.
    static func forStructureCheck(_ root: DocumentNode) -> DocumentNode {
        guard let components = root["components"],
            components.members.contains(where: { kind, map in
                map.members.contains { !isComponentName($0.key) }
            })
        else { return root.forStructureCheck }
        let renamed = components.members.map { kind, map -> (key: String, value: DocumentNode) in
            guard map.isMapping, !kind.hasPrefix("x-") else { return (kind, map) }
            return (
                kind,
                map.withMembers(
                    map.members.map { name, value in
                        (
                            isComponentName(name) ? name : String(name.map { isComponentName(String($0)) ? $0 : "_" }),
                            value
                        )
                    })
            )
        }
        return root.setting("components", to: components.withMembers(renamed)).forStructureCheck
    }

    /// URL fields of the document's metadata left empty or holding no URL: left out.
    private mutating func repairMetadataURLs(_ root: DocumentNode) -> DocumentNode {
        func cleaned(_ node: DocumentNode, _ key: String, _ label: String) -> DocumentNode {
            guard let value = node[key], let text = value.text,
                text.trimmingCharacters(in: .whitespaces).isEmpty || text.contains(" ")
            else { return node }
            note(value, "\(label) \"\(text)\" is no URL: left out")
            return node.removing(key)
        }
        var root = root
        if var info = root["info"] {
            info = cleaned(info, "termsOfService", "info.termsOfService")
            for part in ["contact", "license"] {
                if let object = info[part] { info = info.setting(part, to: cleaned(object, "url", "info.\(part).url")) }
            }
            root = root.setting("info", to: info)
        }
        if let docs = root["externalDocs"] {
            root = root.setting("externalDocs", to: cleaned(docs, "url", "externalDocs.url"))
        }
        return root
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
        if operation["responses"] == nil {
            note(
                operation,
                "the operation has no responses, which the specification requires: read as any response, undocumented")
            let at = operation
            operation = operation.setting(
                "responses",
                to: .mapping([("default", .mapping([("description", .string("", at: at))], at: at))], at: at))
        }
        if let responses = operation["responses"] {
            let repaired = responses.members.map { code, response -> (key: String, value: DocumentNode) in
                var response = response
                if let reference = response["$ref"]?.string, reference.hasPrefix("#/components/"),
                    !reference.hasPrefix("#/components/responses/"),
                    let target = try? documents.resolve(reference, from: response.file, at: response), target.isMapping
                {
                    note(
                        response,
                        "the \(code) response is a $ref to \(reference), which is no response: read as a response "
                            + "written here")
                    response = target.withMembers(target.members)
                }
                if ["204", "205", "304"].contains(code) || code.hasPrefix("1"), let content = response["content"],
                    !content.members.isEmpty
                {
                    // Stoplight's exports give each 204 an empty JSON object's schema.
                    note(
                        content,
                        "the \(code) response has content, which HTTP does not let a \(code) carry: read as none")
                    response = response.removing("content")
                }
                guard response.isMapping, response["$ref"] == nil, response["description"] == nil else {
                    return (code, response)
                }
                note(
                    response, "the \(code) response has no description, which the specification requires: read as empty"
                )
                return (code, response.setting("description", to: .string("", at: response)))
            }
            operation = operation.setting("responses", to: responses.withMembers(splittingCodes(repaired)))
        }
        if let servers = operation["servers"] { operation = operation.setting("servers", to: repairServers(servers)) }
        if let security = operation["security"] {
            operation = operation.setting("security", to: repairSecurity(security))
        }
        return operation
    }

    /// Response keys that name several codes (`404/596`, TomTom's; `400, 404`): one response for each code, a
    /// code written on its own winning over the same code in such a key.
    private mutating func splittingCodes(_ responses: [(key: String, value: DocumentNode)])
        -> [(key: String, value: DocumentNode)]
    {
        func isCode(_ text: Substring) -> Bool {
            text.count == 3 && text.first.map { "12345".contains($0) } == true
                && text.dropFirst().allSatisfy { $0.isASCII && ($0.isNumber || $0 == "X" || $0 == "x") }
        }
        let written = Set(responses.map(\.key))
        var split: [(key: String, value: DocumentNode)] = []
        for (key, response) in responses {
            let codes = key.split(whereSeparator: { $0 == "/" || $0 == "," }).map {
                $0.trimmingCharacters(in: .whitespaces)[...]
            }
            if codes.count == 1, let code = Self.leadingCode(key, isCode: isCode) {
                // A code with its name after it: `204 NO_CONTENT` (a Java enum's name), `200 OK`.
                let isOwn = !written.contains(code) && !split.contains { $0.key == code }
                note(
                    response,
                    "the response key \"\(key)\" has text after its code: "
                        + (isOwn ? "read as \(code)" : "left out, as \(code) is written on its own too"))
                if isOwn { split.append((code, response)) }
                continue
            }
            guard codes.count > 1, codes.allSatisfy(isCode) else {
                split.append((key, response))
                continue
            }
            let own = codes.map(String.init).filter { code in
                !written.contains(code) && !split.contains { $0.key == code }
            }
            note(
                response,
                "the response key \"\(key)\" names several codes: read as one response for each ("
                    + codes.joined(separator: ", ") + ")")
            split += own.map { ($0, response) }
        }
        return split
    }

    /// The code of a response key that has text after it (`204 NO_CONTENT`, `200 - OK`), or `nil`.
    private static func leadingCode(_ key: String, isCode: (Substring) -> Bool) -> String? {
        let code = key.prefix(3)
        let rest = key.dropFirst(3)
        guard isCode(code), let separator = rest.first, " _-:".contains(separator),
            rest.contains(where: \.isLetter)
        else { return nil }
        return String(code)
    }

    /// Ways of authenticating that name a scheme `components.securitySchemes` does not define (a misspelt or
    /// renamed scheme): left out, since nothing can check them. The others stay; when none does, the operation
    /// needs no authentication.
    private mutating func repairSecurity(_ security: DocumentNode) -> DocumentNode {
        guard case .sequence = security.kind else { return security }
        let schemes = (try? documents.main["components"]?["securitySchemes"].map { try documents.dereference($0) })
        let defined = Set((schemes ?? nil)?.members.map(\.key) ?? [])
        var kept: [DocumentNode] = []
        for var alternative in security.items {
            // A name that differs from a defined one only in case (`BearerAuth` for `bearerAuth`) is that one.
            let renamed = alternative.members.map { name, value -> (key: String, value: DocumentNode) in
                guard !defined.contains(name),
                    let match = defined.first(where: { $0.lowercased() == name.lowercased() })
                else { return (name, value) }
                note(
                    alternative,
                    "security names \"\(name)\", which differs only in case from the scheme \"\(match)\": read as it")
                return (match, value)
            }
            if alternative.isMapping { alternative = alternative.withMembers(renamed) }
            let unknown = alternative.members.map(\.key).filter { !defined.contains($0) }
            guard !unknown.isEmpty else {
                kept.append(alternative)
                continue
            }
            note(
                alternative,
                "security names " + unknown.map { "\"\($0)\"" }.joined(separator: ", ")
                    + ", which components.securitySchemes does not define: this way of authenticating is left out "
                    + "(nothing could check it)"
                    + (security.items.count == 1 ? ", and no authentication is needed" : ""))
        }
        return security.withItems(kept)
    }

    /// Path parameters are required: one that says otherwise (or nothing) is read as required. A parameter with
    /// neither `schema` nor `content` (L5-Swagger's, for a parameter it knows only by name) takes any value.
    private mutating func repairPathParameters(_ parameters: DocumentNode) -> DocumentNode {
        parameters.withItems(
            parameters.items.map { parameter in
                guard parameter.isMapping, parameter["$ref"] == nil else { return parameter }
                var parameter = parameter
                if parameter["schema"] == nil, parameter["content"] == nil, parameter["type"] == nil,
                    let name = parameter["name"]?.text
                {
                    note(
                        parameter,
                        "parameter \(name) has neither schema nor content, one of which the specification requires: "
                            + "read as taking any value")
                    parameter = parameter.setting("schema", to: .mapping([], at: parameter))
                }
                guard parameter["in"]?.text == "path", parameter["required"]?.bool != true else { return parameter }
                note(
                    parameter,
                    "path parameter \(parameter["name"]?.text ?? "") is not marked required: true, which every path "
                        + "parameter is: read as required")
                return parameter.setting("required", to: .bool(true, at: parameter))
            })
    }
}
