import Foundation
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPStubber {
    /// Answers batched GraphQL requests (a JSON array of operations, as Apollo Client's `BatchHttpLink` and
    /// Apollo Kotlin send them) at a URL: each operation is answered by the stub that matches it alone, and the
    /// answers come back as one array, in the batch's order.
    ///
    /// ```swift
    /// stubber.answerGraphQLBatches(at: "https://api.example.com/graphql")
    /// stubber.add(stub: HTTPStubRequest().match(URL: "https://api.example.com/graphql")
    ///     .graphQL(operationName: "Hero").stub(for: .post, json: #"{"data": {"hero": {"name": "R2-D2"}}}"#))
    /// ```
    ///
    /// Each operation is in the journal (delivery path `GraphQL batch`), its own stub counted, as if it came
    /// alone. An operation no stub answers gets `{"errors": [{"message": ...}]}` saying why in its place, and
    /// stays in the journal as unmatched; one whose stub fails or answers no JSON gets an error in its place too.
    /// The stub's own delays, headers and status are not the batch's: it answers `200` at once.
    /// - Parameter url: The URL batches are sent to, as `HTTPMatcherSource.match(URL:options:)` takes it.
    /// - Returns: The stub that answers batches (remove it with `remove(stub:)`).
    @discardableResult
    public func answerGraphQLBatches(at url: String) -> HTTPStubRequest {
        let stub = HTTPStubRequest(name: "GraphQL batches at \(url)")
            .match(URL: url)
            .match(GraphQLBatchMatcher())
            .stub(
                for: .post,
                responseProvider: { [weak self] request, _ in
                    guard let self else { return HTTPStubResponse(statusCode: .serviceUnavailable) }
                    return self.answerBatch(request)
                })
        add(stub: stub)
        return stub
    }

    private func answerBatch(_ request: HTTPIncomingRequest) -> HTTPStubResponse {
        guard let body = request.body, case .array(let operations)? = try? JSONValue.parse(body) else {
            return HTTPStubResponse(statusCode: .badRequest)
        }
        var answers: [String] = []
        for operation in operations {
            let started = ContinuousClock.now
            var headers = request.headers
            headers.remove(.contentLength)
            guard
                let single = try? HTTPIncomingRequest(
                    method: request.method, url: request.url, headers: headers,
                    body: Data(operation.description.utf8))
            else {
                answers.append(Self.graphQLError("the operation could not be read as a request"))
                continue
            }
            let (decision, entry) = decide(single, via: .graphQLBatch)
            switch decision {
            case .stub(let plan):
                if let response = plan.response, (try? JSONValue.parse(response.body)) != nil {
                    answers.append(String(decoding: response.body, as: UTF8.self))
                    complete(
                        entry, after: .now - started, error: nil, statusCode: response.statusCode.rawValue,
                        bodyByteCount: response.body.count)
                } else {
                    let why = plan.error.map { "its stub fails: \($0)" } ?? "its stub answers no JSON"
                    answers.append(Self.graphQLError("\(GraphQLRequest.label(of: single)): \(why)"))
                    complete(entry, after: .now - started, error: plan.error, statusCode: nil)
                }
            case .unmatched(let report):
                answers.append(Self.graphQLError(report.description))
                complete(entry, after: .now - started, error: nil, statusCode: nil)
            case .passThrough:
                answers.append(
                    Self.graphQLError(
                        "\(GraphQLRequest.label(of: single)): no stub answers it, and an operation of a batch cannot "
                            + "go to the network alone"))
                complete(entry, after: .now - started, error: nil, statusCode: nil)
            }
        }
        return HTTPStubResponse(
            statusCode: .ok, contentType: .json, body: Data(("[" + answers.joined(separator: ",") + "]").utf8))
    }

    private static func graphQLError(_ message: String) -> String {
        JSONValue.object(["errors": .array([.object(["message": .string(message)])])]).description
    }
}

extension HTTPDeliveryPath {
    /// An operation of a batched GraphQL request, answered by `HTTPStubber.answerGraphQLBatches(at:)`.
    public static let graphQLBatch = HTTPDeliveryPath(rawValue: "GraphQL batch")
}

/// Matches a batched GraphQL request: a JSON array of operations.
struct GraphQLBatchMatcher: HTTPStubMatcherProtocol, CustomStringConvertible {
    func matches(request: URLRequest, for source: any HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    var description: String { "a batch of GraphQL operations" }
}

extension GraphQLBatchMatcher: RequestMatcher {
    package func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        if case .batch = GraphQLRequest.read(request) { true } else { false }
    }

    package func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        var variables: [String: URITemplate.Value] = [:]
        let passed = evaluate(request, source: source, variables: &variables)
        return MatcherCheck(
            matcher: description, passed: passed, expected: "a JSON array of operations",
            actual: passed ? nil : "one operation, or no GraphQL", note: nil)
    }
}
