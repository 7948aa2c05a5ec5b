import Foundation
import StuntDouble

/// A GraphQL request as a GraphQL server reads one: a `POST` whose JSON body holds `query`, `operationName`,
/// `variables` and `extensions` (as Apollo iOS, Apollo Kotlin and most clients send it), a `POST` of
/// `application/graphql` whose body is the query, or a `GET` with those as query parameters (Apollo's
/// `useGETForQueries`, persisted-query retries). A JSON array of such objects is a batch.
public struct GraphQLRequest: Hashable, Sendable, CustomStringConvertible {
    /// The operation's name, as `operationName` says, or as the query names its only operation.
    public let operationName: String?
    /// The query text, or `nil` when the request sends only a persisted query's hash.
    public let query: String?
    /// The variables as compact JSON text with sorted keys, or `nil` when the request sends none.
    public var variablesJSON: String? { variables?.description }
    /// The SHA-256 hash of an automatic persisted query (`extensions.persistedQuery.sha256Hash`), or `nil`.
    public let persistedQueryHash: String?
    /// The variables, or `nil` when absent or `null`.
    let variables: JSONValue?
    /// Whether `operationName` was in the request (a name read from the query is not).
    let sendsOperationName: Bool

    /// `query Hero` (or `operation Hero` without a query), for reports and file names.
    public var description: String {
        let name = operationName ?? "(anonymous)"
        guard query != nil else {
            return "operation \(name), sent as a persisted query's hash only"
                + (persistedQueryHash.map { " (\($0.prefix(12))…)" } ?? "")
        }
        return ((try? operation().get())?.type ?? "operation") + " " + name
    }

    /// What a request's body and URL hold, read as GraphQL.
    enum Reading: Sendable {
        case single(GraphQLRequest)
        case batch([GraphQLRequest])
        /// Not a GraphQL request, and why.
        case notGraphQL(String)
    }

    /// Reads a request (memoized by its body and URL: every GraphQL stub of a URL reads the same request).
    static func read(_ request: HTTPIncomingRequest) -> Reading {
        let key = MemoKey(
            body: request.body ?? Data(),
            url: "\(request.method) \(request.headers["Content-Type"] ?? "") "
                + (request.method == .get ? request.url.absoluteString : ""))
        if let known = readings.withLock({ $0.value(for: key) }) { return known }
        let reading = read(method: request.method, url: request.url, headers: request.headers, body: request.body)
        readings.withLock { $0.store(reading, for: key) }
        return reading
    }

    private static let readings = Locked(Memo<Reading>(capacity: 128))

    static func read(method: HTTPMethod, url: URL, headers: HTTPHeaders, body: Data?) -> Reading {
        if method == .get {
            // As a form (GraphQL over HTTP): `+` is a space.
            let pairs = (URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
                .split(separator: "&").map { pair in
                    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    return (
                        PercentEncoding.decodeForm(parts[0]),
                        parts.count > 1 ? PercentEncoding.decodeForm(parts[1]) : ""
                    )
                }
            func item(_ name: String) -> String? { pairs.last { $0.0 == name }?.1 }
            guard item("query") != nil || item("extensions") != nil || item("operationName") != nil else {
                return .notGraphQL("a GET without query, operationName or extensions parameters")
            }
            var object: [String: JSONValue] = [:]
            if let query = item("query") { object["query"] = .string(query) }
            if let name = item("operationName") { object["operationName"] = .string(name) }
            for name in ["variables", "extensions"] {
                guard let text = item(name) else { continue }
                guard let value = try? JSONValue.parse(Data(text.utf8)) else {
                    return .notGraphQL("its \(name) parameter is not JSON: \(text.prefix(80))")
                }
                object[name] = value
            }
            return single(object)
        }
        guard let body, !body.isEmpty else { return .notGraphQL("the request has no body") }
        let contentType = headers["Content-Type"]?.lowercased() ?? ""
        if contentType.hasPrefix("application/graphql") && !contentType.hasPrefix("application/graphql-response") {
            return single(["query": .string(String(decoding: body, as: UTF8.self))])
        }
        guard let json = try? JSONValue.parse(body) else { return .notGraphQL("the body is not JSON") }
        switch json {
        case .object(let object):
            return single(object)
        case .array(let items):
            var requests: [GraphQLRequest] = []
            for (index, item) in items.enumerated() {
                guard case .object(let object) = item else {
                    return .notGraphQL("item \(index) of the batch is not a JSON object")
                }
                switch single(object) {
                case .single(let request): requests.append(request)
                case .notGraphQL(let why): return .notGraphQL("item \(index) of the batch: \(why)")
                case .batch: return .notGraphQL("item \(index) of the batch is a batch")
                }
            }
            return requests.isEmpty ? .notGraphQL("the body is an empty array") : .batch(requests)
        default:
            return .notGraphQL("the body is JSON but not an object")
        }
    }

    private static func single(_ object: [String: JSONValue]) -> Reading {
        var query: String? = nil
        switch object["query"] {
        case .string(let text): query = text
        case nil, .null?: break
        default: return .notGraphQL("its query is not a string")
        }
        var name: String? = nil
        switch object["operationName"] {
        case .string(let text): name = text
        case nil, .null?: break
        default: return .notGraphQL("its operationName is not a string")
        }
        var variables: JSONValue? = nil
        switch object["variables"] {
        case .object?: variables = object["variables"]
        case nil, .null?: break
        default: return .notGraphQL("its variables are not a JSON object")
        }
        var hash: String? = nil
        if case .object(let extensions)? = object["extensions"],
            case .object(let persisted)? =
                extensions["persistedQuery"], case .string(let sha)? = persisted["sha256Hash"]
        {
            hash = sha
        }
        guard query != nil || hash != nil else {
            return .notGraphQL("it has neither a query nor a persisted query's hash")
        }
        let request = GraphQLRequest(
            operationName: name, query: query, persistedQueryHash: hash, variables: variables,
            sendsOperationName: name != nil)
        guard name == nil, query != nil else { return .single(request) }
        // The name of the query's only operation: the parse is the one `operation()` keeps for matching.
        return .single(
            GraphQLRequest(
                operationName: try? request.operation().get().name, query: query, persistedQueryHash: hash,
                variables: variables, sendsOperationName: false))
    }

    /// `query Hero` for a request of one operation; `the operation` for anything else.
    static func label(of request: HTTPIncomingRequest) -> String {
        if case .single(let graphQL) = read(request) { graphQL.description } else { "the operation" }
    }

    /// The canonical form of the operation the request runs.
    func operation() -> Result<GraphQLOperation, GraphQLDocumentReader.Problem> {
        guard let query else {
            return .failure(.init(message: "the request sends no query, only a persisted query's hash"))
        }
        let key = MemoKey(body: Data(query.utf8), url: sendsOperationName ? "name " + (operationName ?? "") : "")
        if let known = Self.operations.withLock({ $0.value(for: key) }) { return known }
        let result: Result<GraphQLOperation, GraphQLDocumentReader.Problem>
        do {
            result = .success(
                try GraphQLDocumentReader.operation(in: query, named: sendsOperationName ? operationName : nil))
        } catch {
            result = .failure(error)
        }
        Self.operations.withLock { $0.store(result, for: key) }
        return result
    }

    private static let operations = Locked(
        Memo<Result<GraphQLOperation, GraphQLDocumentReader.Problem>>(capacity: 128))

}

/// What a memo keeps a reading under: a body, and a URL or an operation name.
struct MemoKey: Hashable, Sendable {
    let body: Data
    let url: String
}

/// A small memo: the last `capacity` values, the oldest forgotten first.
struct Memo<Value: Sendable>: Sendable {
    typealias Key = MemoKey

    let capacity: Int
    private var values: [Key: Value] = [:]
    private var order: [Key] = []

    init(capacity: Int) {
        self.capacity = capacity
    }

    func value(for key: Key) -> Value? { values[key] }

    mutating func store(_ value: Value, for key: Key) {
        if values.updateValue(value, forKey: key) == nil {
            order.append(key)
            if order.count > capacity {
                values[order.removeFirst()] = nil
            }
        }
    }
}
