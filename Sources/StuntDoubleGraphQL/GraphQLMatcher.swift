import Foundation
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Matches a GraphQL request by its operation: its name, its query compared as GraphQL, its variables as JSON.
///
/// Every operation of a GraphQL API is a `POST /graphql`: URL matchers cannot tell them apart. This matcher
/// reads the request as a GraphQL server does (``GraphQLRequest``) and checks what it is given:
///
/// - `operationName`: equal to the request's (its `operationName`, or the name of the query's only operation).
///   A name alone is enough.
/// - `query`: the same operation as the request's, compared as GraphQL (``GraphQLOperation``): layout, order of
///   fields, arguments and variables, and fragments spread or inline do not matter; aliases, arguments' values and
///   `__typename` do. A query without a name accepts any name.
/// - `variables`: JSON equal to the request's variables as WireMock's `equalToJson` compares: keys in any
///   order, arrays in order, no extra keys; placeholders such as `${json-unit.any-string}` work. Absent or `null`
///   variables count as `{}`.
///
/// `extensions` (Apollo's `clientLibrary`, a persisted query's hash) are not compared. A request that sends only
/// a persisted query's hash matches a matcher without a query. A batch (a JSON array) matches no operation
/// matcher: see `HTTPStubber.answerGraphQLBatches(at:)`.
///
/// ```swift
/// stubber.add(
///     stub: HTTPStubRequest()
///         .match(URL: "https://api.example.com/graphql")
///         .graphQL(operationName: "Hero", variables: #"{"episode": "JEDI"}"#)
///         .stub(for: .post, json: #"{"data": {"hero": {"name": "R2-D2"}}}"#))
/// ```
public struct GraphQLMatcher: HTTPStubMatcherProtocol, CustomStringConvertible {
    /// What a part of the request must be.
    enum Expectation<Value: Hashable & Sendable>: Hashable, Sendable {
        /// Anything.
        case any
        /// Absent or `null` (WireMock's extension, for a parameter a stub file leaves out).
        case absent
        /// Equal to this.
        case equal(Value)
    }

    let operationName: Expectation<String>
    /// The stub's operation, or `nil` when the query is not checked.
    let operation: GraphQLOperation?
    let variables: Expectation<JSONValue>
    /// Why the matcher can never match (a query that is not GraphQL, variables that are not JSON), or `nil`.
    public let problem: HTTPStubberError?

    /// Creates a matcher; give any of the three.
    /// - Parameters:
    ///   - operationName: The operation's name.
    ///   - query: The query, in any layout.
    ///   - variables: The variables as JSON text, such as `#"{"id": "1000"}"#`.
    public init(operationName: String? = nil, query: String? = nil, variables: String? = nil) {
        var variablesValue: JSONValue? = nil
        var problem: String? = nil
        if let variables {
            variablesValue = try? JSONValue.parse(Data(variables.utf8))
            if variablesValue == nil {
                problem = "its variables are not JSON: \(Self.excerpt(variables))"
            } else if case .object = variablesValue {
            } else {
                problem = "its variables are not a JSON object: \(Self.excerpt(variables))"
            }
        }
        if operationName == nil, query == nil, variables == nil {
            problem = "it has no operationName, query or variables to match: give at least one"
        }
        self.init(
            operationName: operationName.map { .equal($0) } ?? .any, query: query,
            variables: variablesValue.map { .equal($0) } ?? .any, problem: problem)
    }

    /// Creates a matcher whose variables are the JSON encoding of a value.
    /// - Parameters:
    ///   - operationName: The operation's name.
    ///   - query: The query, in any layout.
    ///   - variables: The variables, encoded as your app encodes them.
    ///   - encoder: The encoder.
    public init<Variables: Encodable>(
        operationName: String? = nil, query: String? = nil, variablesObject variables: Variables,
        encoder: JSONEncoder = JSONEncoder()
    ) {
        do {
            let data = try encoder.encode(variables)
            self.init(operationName: operationName, query: query, variables: String(decoding: data, as: UTF8.self))
        } catch {
            self.init(
                operationName: operationName.map { .equal($0) } ?? .any, query: query, variables: .any,
                problem: "its variables (\(Variables.self)) could not be encoded: \(error)")
        }
    }

    /// Creates a matcher from its parts (a stub file's parameters).
    init(operationName: Expectation<String>, query: String?, variables: Expectation<JSONValue>, problem: String?) {
        self.operationName = operationName
        self.variables = variables
        var problem = problem
        var operation: GraphQLOperation? = nil
        if let query {
            let name: String? = if case .equal(let name) = operationName { name } else { nil }
            do {
                operation = try GraphQLDocumentReader.operation(in: query, named: name)
            } catch {
                problem = problem ?? error.description
            }
        }
        self.operation = operation
        self.problem = problem.map { problem in
            HTTPStubberError(
                code: .invalidStub,
                message: "The GraphQL matcher can never match: \(problem). Fix the stub's GraphQL.")
        }
    }

    /// Whether the request runs the operation this matcher describes.
    /// - Parameters:
    ///   - request: The request.
    ///   - source: The stub or rule that owns the matcher.
    /// - Returns: `true` when it matches.
    public func matches(request: URLRequest, for source: any HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    /// `GraphQL operation Hero with query … and variables …`.
    public var description: String {
        var parts: [String] = []
        switch operationName {
        case .equal(let name): parts.append("operation \(name)")
        case .absent: parts.append("no operationName")
        case .any: break
        }
        if let operation { parts.append("query " + Self.excerpt(operation.description)) }
        switch variables {
        case .equal(let value): parts.append("variables " + Self.excerpt(value.description))
        case .absent: parts.append("no variables")
        case .any: break
        }
        return "GraphQL " + (parts.isEmpty ? "(invalid)" : parts.joined(separator: ", "))
    }

    static func excerpt(_ text: String) -> String {
        text.count <= 160 ? text : text.prefix(159) + "…"
    }

    // MARK: - The parts, one by one

    /// The verdict on one part: whether it passed, what was expected and found, how close.
    struct Part {
        let name: String
        let passed: Bool
        let expected: String
        let actual: String
        let note: String?
        let closeness: Double
    }

    func parts(of request: GraphQLRequest, stopAtFirstFailure: Bool) -> [Part] {
        var parts: [Part] = []
        switch operationName {
        case .any: break
        case .absent:
            parts.append(
                Part(
                    name: "operationName", passed: !request.sendsOperationName, expected: "(none)",
                    actual: request.sendsOperationName ? request.operationName ?? "" : "(none)", note: nil,
                    closeness: 0))
        case .equal(let name):
            let actual = request.operationName
            parts.append(
                Part(
                    name: "operationName", passed: actual == name, expected: name, actual: actual ?? "(none)",
                    note: nil, closeness: actual.map { Similarity.of(name, $0) * 0.8 } ?? 0))
        }
        if stopAtFirstFailure, parts.last?.passed == false { return parts }
        switch variables {
        case .any: break
        case .absent:
            parts.append(
                Part(
                    name: "variables", passed: request.variables == nil, expected: "(none)",
                    actual: request.variables?.description ?? "(none)", note: nil, closeness: 0))
        case .equal(let expected):
            let actual = request.variables ?? .object([:])
            let passed = JSONComparison.matches(expected: expected, actual: actual, options: .init())
            parts.append(
                Part(
                    name: "variables", passed: passed, expected: expected.description, actual: actual.description,
                    note: passed
                        ? nil : JSONValue.differences(expected: expected, actual: actual).joined(separator: "; "),
                    closeness: passed ? 1 : Similarity.of(expected.description, actual.description) * 0.8))
        }
        if stopAtFirstFailure, parts.last?.passed == false { return parts }
        if let operation {
            switch request.operation() {
            case .success(let actual):
                let passed = operation.accepts(actual)
                parts.append(
                    Part(
                        name: "query", passed: passed, expected: operation.description, actual: actual.description,
                        note: passed ? nil : operation.difference(from: actual),
                        closeness: passed ? 1 : Similarity.of(operation.description, actual.description) * 0.8))
            case .failure(let problem):
                parts.append(
                    Part(
                        name: "query", passed: false, expected: operation.description,
                        actual: request.query.map { Self.excerpt($0) } ?? "(none)",
                        note: request.query == nil
                            ? "the request sends only a persisted query's hash: match it by operationName alone"
                            : problem.description,
                        closeness: 0))
            }
        }
        return parts
    }
}

extension GraphQLMatcher: RequestMatcher {
    package func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        guard problem == nil, case .single(let graphQL) = GraphQLRequest.read(request) else { return false }
        return parts(of: graphQL, stopAtFirstFailure: true).allSatisfy(\.passed)
    }

    package func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        if let problem {
            return MatcherCheck(matcher: description, passed: false, expected: nil, actual: nil, note: problem.message)
        }
        switch GraphQLRequest.read(request) {
        case .notGraphQL(let why):
            return MatcherCheck(
                matcher: description, passed: false, expected: "a GraphQL request", actual: why, note: nil)
        case .batch(let operations):
            return MatcherCheck(
                matcher: description, passed: false, expected: "one GraphQL operation",
                actual: "a batch of \(operations.count): " + operations.map(\.description).joined(separator: ", "),
                note: "a batch matches no single operation: answer batches with stubber.answerGraphQLBatches(at:), "
                    + "which answers each operation from its own stub")
        case .single(let graphQL):
            let parts = parts(of: graphQL, stopAtFirstFailure: false)
            let failed = parts.filter { !$0.passed }
            let closeness = parts.isEmpty ? 1 : parts.map(\.closeness).reduce(0, +) / Double(parts.count)
            return MatcherCheck(
                matcher: description, passed: failed.isEmpty,
                expected: failed.map { "\($0.name) \($0.expected)" }.joined(separator: "; "),
                actual: failed.map { "\($0.name) \($0.actual)" }.joined(separator: "; "),
                note: failed.compactMap { part in part.note.map { "\(part.name): \($0)" } }.joined(separator: "; ")
                    .nilIfEmpty,
                closeness: 0.2 + 0.8 * closeness)
        }
    }
}

extension GraphQLMatcher {
    /// `graphql: query Hero, variables {"id":"1"}`: the operation an unmatched request runs, for its report.
    package func summary(of request: HTTPIncomingRequest) -> String? {
        switch GraphQLRequest.read(request) {
        case .single(let graphQL):
            return "graphql: \(graphQL)"
                + (graphQL.variables.map { ", variables " + Self.excerpt($0.description) } ?? "")
        case .batch(let operations):
            return "graphql: a batch of \(operations.count): " + operations.map(\.description).joined(separator: ", ")
        case .notGraphQL(let why):
            return "graphql: not a GraphQL request (\(why))"
        }
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}

extension HTTPMatcherSource {
    /// Matches a GraphQL operation: by name, query (compared as GraphQL) and variables (as JSON); give any of
    /// them. See ``GraphQLMatcher``.
    ///
    /// ```swift
    /// HTTPStubRequest()
    ///     .match(URL: "https://api.example.com/graphql")
    ///     .graphQL(operationName: "Hero")
    ///     .stub(for: .post, json: #"{"data": {"hero": {"name": "R2-D2"}}}"#)
    /// ```
    /// - Parameters:
    ///   - operationName: The operation's name.
    ///   - query: The query, in any layout.
    ///   - variables: The variables as JSON text.
    /// - Returns: The source itself, to chain calls.
    @discardableResult
    public func graphQL(operationName: String? = nil, query: String? = nil, variables: String? = nil) -> Self {
        match(GraphQLMatcher(operationName: operationName, query: query, variables: variables))
    }

    /// Matches a GraphQL operation whose variables are the JSON encoding of a value. See ``GraphQLMatcher``.
    ///
    /// ```swift
    /// stub.graphQL(operationName: "Hero", variablesObject: HeroQuery.Variables(episode: .jedi))
    /// ```
    /// - Parameters:
    ///   - operationName: The operation's name.
    ///   - query: The query, in any layout.
    ///   - variables: The variables, encoded as your app encodes them.
    ///   - encoder: The encoder.
    /// - Returns: The source itself, to chain calls.
    @discardableResult
    public func graphQL<Variables: Encodable>(
        operationName: String? = nil, query: String? = nil, variablesObject variables: Variables,
        encoder: JSONEncoder = JSONEncoder()
    ) -> Self {
        match(GraphQLMatcher(operationName: operationName, query: query, variablesObject: variables, encoder: encoder))
    }
}
