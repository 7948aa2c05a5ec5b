import Foundation
import StuntDouble
import StuntDoubleWireMock

extension StubFileExtension {
    /// WireMock's GraphQL extension (wiremock-graphql-extension, `graphql-body-matcher`): stub files written for
    /// it work unchanged.
    ///
    /// ```json
    /// {
    ///   "request": {
    ///     "urlPath": "/graphql", "method": "POST",
    ///     "customMatcher": {
    ///       "name": "graphql-body-matcher",
    ///       "parameters": {
    ///         "query": "query Hero($episode: Episode) { hero(episode: $episode) { name } }",
    ///         "variables": {"episode": "JEDI"},
    ///         "operationName": "Hero"
    ///       }
    ///     }
    ///   },
    ///   "response": {"status": 200, "jsonBody": {"data": {"hero": {"name": "R2-D2"}}}}
    /// }
    /// ```
    ///
    /// Its parameters mean what they mean to the extension (0.9): `query` is required and compared as GraphQL
    /// (``GraphQLOperation``); without `variables`, a request must send none (or `null`); without
    /// `operationName`, a request must send none. Older files' one parameter, `expectedJson` (0.5 to 0.8: a string
    /// holding `{"query": ..., "variables": ...}`) or `expectedQuery` (0.4), is read as those versions read it:
    /// variables left out mean none or `{}`, and the operation name is not compared unless given.
    ///
    /// In a recording (`HTTPRecording.Options.extensions`), a GraphQL operation is written with this matcher:
    /// its query, variables and operation name as sent, the mapping and its file named after the operation
    /// (`post-graphql-query-hero.json`), and identical operations replayed in order as a scenario of their own.
    /// An operation sent as a persisted query's hash only is written as a body pattern of its name and
    /// variables; a batch, as any other request.
    public static let graphQL = StubFileExtension(
        name: "graphql-body-matcher", module: "StuntDoubleGraphQL", recordRequest: GraphQLStubFileParameters.recorded
    ) { parameters throws(Problem) in
        try GraphQLStubFileParameters.matcher(from: parameters)
    }
}

/// Reads `graphql-body-matcher`'s parameters, and writes them for recorded requests.
enum GraphQLStubFileParameters {
    /// How a recording writes a GraphQL request: `nil` for a batch or a request that is not GraphQL.
    @Sendable static func recorded(_ request: HTTPIncomingRequest) -> StubFileExtension.RecordedRequest? {
        guard case .single(let graphQL) = GraphQLRequest.read(request) else { return nil }
        var members: [(String, JSONNode)] = []
        if graphQL.sendsOperationName, let name = graphQL.operationName {
            members.append(("operationName", .string(name)))
        }
        if let variables = graphQL.variables {
            members.append(("variables", node(variables)))
        }
        guard let query = graphQL.query else {
            // A persisted query's hash only: its name and variables, whatever the extensions say.
            members.append(("extensions", .string("${json-unit.ignore}")))
            return .init(label: graphQL.description, pattern: .body(.object([("equalToJson", .object(members))])))
        }
        members.append(("query", .string(query)))
        return .init(label: graphQL.description, pattern: .parameters(.object(members.sorted { $0.0 < $1.0 })))
    }

    /// A JSON value as a node, keys sorted.
    static func node(_ value: JSONValue) -> JSONNode {
        switch value {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .number(let number): .number(text: number.text)
        case .string(let text): .string(text)
        case .array(let items): .array(items.map(node))
        case .object(let members): .object(members.sorted { $0.key < $1.key }.map { ($0.key, node($0.value)) })
        }
    }

    static func matcher(from parameters: JSONNode) throws(StubFileExtension.Problem) -> GraphQLMatcher {
        guard case .object(let members) = parameters.kind else {
            throw .init("expected an object of parameters", at: parameters)
        }
        var fields: [String: JSONNode] = [:]
        for member in members { fields[member.key] = member.value }
        if fields["query"] == nil,
            let legacyKey = ["expectedJson", "expectedQuery"].first(where: { fields[$0] != nil }),
            let legacy = fields[legacyKey]
        {
            return try legacyMatcher(legacy, key: legacyKey)
        }
        guard let queryNode = fields["query"] else {
            throw .init(
                "graphql-body-matcher needs a query parameter: the GraphQL query, such as \"{ hero { name } }\"",
                at: parameters)
        }
        guard case .string(let query) = queryNode.kind else {
            throw .init("expected the query as a string", at: queryNode, path: ["query"])
        }
        var operationName: GraphQLMatcher.Expectation<String> = .absent
        if let node = fields["operationName"] {
            switch node.kind {
            case .string(let name): operationName = .equal(name)
            case .null: break
            default: throw .init("expected the operationName as a string", at: node, path: ["operationName"])
            }
        }
        var variables: GraphQLMatcher.Expectation<JSONValue> = .absent
        if let node = fields["variables"] {
            switch node.kind {
            case .object: variables = .equal(JSONValue(node))
            case .null: break
            default: throw .init("expected the variables as a JSON object", at: node, path: ["variables"])
            }
        }
        let matcher = GraphQLMatcher(operationName: operationName, query: query, variables: variables, problem: nil)
        if let problem = matcher.problem {
            throw .init(problem.message, at: queryNode, path: ["query"])
        }
        return matcher
    }

    /// `expectedJson` (a string holding `{"query", "variables", "operationName"}`) or `expectedQuery`.
    private static func legacyMatcher(_ node: JSONNode, key: String) throws(StubFileExtension.Problem)
        -> GraphQLMatcher
    {
        guard case .string(let text) = node.kind else {
            throw .init("expected \(key) as a string holding JSON", at: node, path: [key])
        }
        var query = text
        var operationName: GraphQLMatcher.Expectation<String> = .any
        var variables: GraphQLMatcher.Expectation<JSONValue> = .equal(.object([:]))
        if let json = try? JSONValue.parse(Data(text.utf8)) {
            guard case .object(let object) = json, case .string(let embedded)? = object["query"] else {
                throw .init("\(key) holds JSON without a query string", at: node, path: [key])
            }
            query = embedded
            if case .string(let name)? = object["operationName"] { operationName = .equal(name) }
            switch object["variables"] {
            case .object?: variables = .equal(object["variables"] ?? .object([:]))
            case nil, .null?: break
            default: throw .init("the variables in \(key) are not a JSON object", at: node, path: [key])
            }
        } else if key == "expectedJson" {
            throw .init(
                "expectedJson is not JSON: give {\"query\": \"...\", \"variables\": {...}}", at: node, path: [key])
        }
        let matcher = GraphQLMatcher(operationName: operationName, query: query, variables: variables, problem: nil)
        if let problem = matcher.problem {
            throw .init(problem.message, at: node, path: [key])
        }
        return matcher
    }
}
