import StuntDouble

/// Reads a document's paths, operations, parameters, bodies, responses and security into
/// `ContractOperation`s.
struct ContractCompiler {
    let documents: DocumentSet
    let schemas: SchemaCompiler

    private static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    func operations() throws(OpenAPIContractError) -> [ContractOperation] {
        let root = documents.main
        let securitySchemes = try self.securitySchemes()
        let globalSecurity = try security(root["security"], schemes: securitySchemes)
        var operations: [ContractOperation] = []
        for (path, item) in root["paths"]?.members ?? [] {
            guard path.hasPrefix("/") else {
                throw OpenAPIContractError(
                    "\(documents.location(of: item)): path \"\(path)\" must start with /.")
            }
            let pathItem = try documents.dereference(item)
            operations += try self.operations(
                of: pathItem, at: path, securitySchemes: securitySchemes, globalSecurity: globalSecurity,
                isDocumentPath: true)
        }
        return operations
    }

    /// The operations of a path item: the document's paths', or a callback's or webhook's (whose "path" is a
    /// runtime expression or a name, and whose own callbacks are not read).
    private func operations(
        of pathItem: DocumentNode, at path: String, securitySchemes: [String: ContractOperation.SecurityScheme],
        globalSecurity: [ContractOperation.SecurityRequirement], isDocumentPath: Bool
    ) throws(OpenAPIContractError) -> [ContractOperation] {
        let root = documents.main
        let shared = try parameters(pathItem["parameters"])
        var operations: [ContractOperation] = []
        for (method, operation) in pathItem.members where Self.methods.contains(method) {
            let own = try parameters(operation["parameters"])
            // An operation's parameter replaces the path item's of the same name and place.
            let merged =
                shared.filter { common in !own.contains { $0.name == common.name && $0.place == common.place } }
                + own
            if isDocumentPath { try checkPathParameters(path, merged, operation) }
            let requirements =
                operation["security"] != nil
                ? try security(operation["security"], schemes: securitySchemes) : globalSecurity
            operations.append(
                ContractOperation(
                    method: HTTPMethod(rawValue: method), path: path, operationID: operation["operationId"]?.text,
                    parameters: merged, body: try body(operation["requestBody"]),
                    responses: try responses(operation["responses"]), security: requirements,
                    location: documents.location(of: operation),
                    securityLocation: documents.location(of: operation["security"] ?? root["security"] ?? operation),
                    pathVariables: isDocumentPath ? PathTemplate.variables(in: path) : [],
                    extensions: Self.extensions(of: pathItem, operation),
                    callbacks: isDocumentPath
                        ? try callbacks(operation["callbacks"], securitySchemes: securitySchemes) : []))
        }
        return operations
    }

    /// An operation's callbacks: for each name, each runtime expression and the operations its path item has.
    private func callbacks(_ node: DocumentNode?, securitySchemes: [String: ContractOperation.SecurityScheme])
        throws(OpenAPIContractError) -> [ContractCallback]
    {
        var found: [ContractCallback] = []
        for (name, item) in node?.members ?? [] {
            let callback = try documents.dereference(item)
            for (expression, pathItemNode) in callback.members where !expression.hasPrefix("x-") {
                let pathItem = try documents.dereference(pathItemNode)
                for operation in try operations(
                    of: pathItem, at: expression, securitySchemes: securitySchemes, globalSecurity: [],
                    isDocumentPath: false)
                {
                    found.append(ContractCallback(name: name, expression: expression, operation: operation))
                }
            }
        }
        return found
    }

    /// The document's `webhooks` (OpenAPI 3.1): for each name, the operations its path item has.
    func webhooks() throws(OpenAPIContractError) -> [ContractCallback] {
        let securitySchemes = try self.securitySchemes()
        var found: [ContractCallback] = []
        for (name, item) in documents.main["webhooks"]?.members ?? [] where !name.hasPrefix("x-") {
            let pathItem = try documents.dereference(item)
            for operation in try operations(
                of: pathItem, at: name, securitySchemes: securitySchemes, globalSecurity: [], isDocumentPath: false)
            {
                found.append(ContractCallback(name: name, expression: "", operation: operation))
            }
        }
        return found
    }

    /// The `x-stuntdouble-*` members of a path item and of one of its operations (the operation's win).
    private static func extensions(of pathItem: DocumentNode, _ operation: DocumentNode) -> [String: SchemaValue] {
        var found: [String: SchemaValue] = [:]
        for node in [pathItem, operation] {
            for (key, value) in node.members where key.hasPrefix("x-stuntdouble-") {
                found[key] = value.value
            }
        }
        return found
    }

    private func checkPathParameters(
        _ path: String, _ parameters: [ContractOperation.Parameter], _ operation: DocumentNode
    ) throws(OpenAPIContractError) {
        for name in PathTemplate.variables(in: path)
        where !parameters.contains(where: { $0.place == .path && $0.name == name }) {
            throw OpenAPIContractError(
                "\(documents.location(of: operation)): path \"\(path)\" has {\(name)} but the operation declares no "
                    + "path parameter \"\(name)\". Add it to parameters (in: path, required: true).")
        }
    }

    /// A parameter's or an apiKey scheme's `name` and `in`, when it has both and `in` names a place.
    private func nameAndPlace(_ node: DocumentNode) -> (name: String, place: ContractOperation.Parameter.Place)? {
        guard let name = node["name"]?.text, let text = node["in"]?.text,
            let place = ContractOperation.Parameter.Place(rawValue: text)
        else { return nil }
        return (name, place)
    }

    private func parameters(_ node: DocumentNode?) throws(OpenAPIContractError) -> [ContractOperation.Parameter] {
        guard let node else { return [] }
        var found: [ContractOperation.Parameter] = []
        for item in node.items {
            let parameter = try documents.dereference(item)
            guard let (name, place) = nameAndPlace(parameter) else {
                throw OpenAPIContractError(
                    "\(documents.location(of: parameter)): a parameter needs a name and \"in\" (path, query, header "
                        + "or cookie).")
            }
            var schema: Int?
            var isJSON = false
            var example = parameter["example"]?.value
            if let schemaNode = parameter["schema"] {
                schema = try schemas.compile(schemaNode)
            } else if let content = parameter["content"]?.members.first {
                isJSON = true
                schema = try content.value["schema"].map { node throws(OpenAPIContractError) in
                    try schemas.compile(node)
                }
                example = example ?? content.value["example"]?.value
            }
            if example == nil, let first = parameter["examples"]?.members.first {
                example = try documents.dereference(first.value)["value"]?.value
            }
            found.append(
                ContractOperation.Parameter(
                    name: name, place: place, isRequired: place == .path || parameter["required"]?.bool == true,
                    serialization: .init(of: parameter, in: place), schema: schema, isJSON: isJSON,
                    location: documents.location(of: parameter), example: example))
        }
        return found
    }

    private func body(_ node: DocumentNode?) throws(OpenAPIContractError) -> ContractOperation.Body? {
        guard let node else { return nil }
        let body = try documents.dereference(node)
        return ContractOperation.Body(
            isRequired: body["required"]?.bool ?? false, contents: try mediaTypes(body["content"]),
            location: documents.location(of: body))
    }

    private func mediaTypes(_ node: DocumentNode?) throws(OpenAPIContractError) -> [ContractOperation.MediaType] {
        var found: [ContractOperation.MediaType] = []
        for (name, media) in node?.members ?? [] {
            var examples: [(String, SchemaValue, OpenAPISourceLocation)] = []
            for (exampleName, example) in media["examples"]?.members ?? [] {
                let resolved = try documents.dereference(example)
                if let value = resolved["value"] {
                    examples.append((exampleName, value.value, documents.location(of: value)))
                }
            }
            found.append(
                ContractOperation.MediaType(
                    name: name.lowercased(),
                    schema: try media["schema"].map { node throws(OpenAPIContractError) in try schemas.compile(node) },
                    examples: examples, example: media["example"].map { ($0.value, documents.location(of: $0)) },
                    location: documents.location(of: media)))
        }
        return found
    }

    private func responses(_ node: DocumentNode?) throws(OpenAPIContractError) -> [ContractOperation.Response] {
        var found: [ContractOperation.Response] = []
        for (code, item) in node?.members ?? [] {
            let response = try documents.dereference(item)
            var headers: [ContractOperation.Header] = []
            for (name, headerItem) in response["headers"]?.members ?? [] {
                let header = try documents.dereference(headerItem)
                let schemaNode = header["schema"] ?? header["content"]?.members.first?.value["schema"]
                headers.append(
                    ContractOperation.Header(
                        name: name, isRequired: header["required"]?.bool ?? false,
                        schema: try schemaNode.map { node throws(OpenAPIContractError) in try schemas.compile(node) },
                        example: header["example"]?.value))
            }
            found.append(
                ContractOperation.Response(
                    code: code, contents: try mediaTypes(response["content"]), headers: headers,
                    location: documents.location(of: response)))
        }
        return found
    }

    private func securitySchemes() throws(OpenAPIContractError) -> [String: ContractOperation.SecurityScheme] {
        var schemes: [String: ContractOperation.SecurityScheme] = [:]
        for (name, item) in documents.main["components"]?["securitySchemes"]?.members ?? [] {
            let scheme = try documents.dereference(item)
            let kind: ContractOperation.SecurityScheme.Kind
            switch scheme["type"]?.text {
            case "apiKey":
                guard let (keyName, parameterPlace) = nameAndPlace(scheme) else {
                    throw OpenAPIContractError(
                        "\(documents.location(of: scheme)): apiKey scheme \"\(name)\" needs name and in (header, "
                            + "query or cookie).")
                }
                kind = .apiKey(name: keyName, place: parameterPlace)
            case "http": kind = .http(scheme: (scheme["scheme"]?.text ?? "bearer").lowercased())
            case "oauth2", "openIdConnect": kind = .bearerToken
            case "mutualTLS": kind = .mutualTLS
            default:
                throw OpenAPIContractError(
                    "\(documents.location(of: scheme)): security scheme \"\(name)\" has type "
                        + "\"\(scheme["type"]?.text ?? "")\"; expected apiKey, http, oauth2, openIdConnect or mutualTLS."
                )
            }
            schemes[name] = ContractOperation.SecurityScheme(name: name, kind: kind)
        }
        return schemes
    }

    private func security(_ node: DocumentNode?, schemes: [String: ContractOperation.SecurityScheme])
        throws(OpenAPIContractError) -> [ContractOperation.SecurityRequirement]
    {
        guard let node else { return [] }
        var requirements: [ContractOperation.SecurityRequirement] = []
        for alternative in node.items {
            var needed: [ContractOperation.SecurityScheme] = []
            for (name, _) in alternative.members {
                guard let scheme = schemes[name] else {
                    throw OpenAPIContractError(
                        "\(documents.location(of: alternative)): security names \"\(name)\", which "
                            + "components.securitySchemes does not define.")
                }
                needed.append(scheme)
            }
            // `{}` among the alternatives: no authentication is one way.
            if needed.isEmpty { return [] }
            requirements.append(ContractOperation.SecurityRequirement(schemes: needed))
        }
        return requirements
    }
}
