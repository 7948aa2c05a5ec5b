import Foundation

/// Everything a stub says, as a value: what registries index and evaluate.
package struct StubDefinition: Sendable {
    var name: String?
    var priority = 0
    var matchers: [any HTTPStubMatcherProtocol] = []
    var engine: [any RequestMatcher] = []
    package var responses: [HTTPMethod: ResponseSource] = [:]
    /// The answer to methods without their own response (set by `stubEcho()`).
    package var everyMethod: ResponseSource?
    /// How many times the stub answers, per stubber, or `nil` for no limit (set by `times(_:)`).
    var limit: Int?
    /// The scenario states the stub requires and the states it moves scenarios to: one rule per scenario.
    var scenarios: [ScenarioRule] = []

    mutating func append(_ matcher: any HTTPStubMatcherProtocol) {
        matchers.append(matcher)
        engine.append(ForeignMatcher.adapt(matcher))
    }

    func source(for method: HTTPMethod) -> ResponseSource? {
        responses[method] ?? everyMethod
    }

    /// The most selective index key among the matchers.
    var routing: RoutingKey {
        engine.map(\.routing).max { $0.selectivity < $1.selectivity } ?? .none
    }

    var problems: [HTTPStubberError] {
        var problems = engine.compactMap(\.problem)
        if let limit, limit < 0 {
            problems.append(
                HTTPStubberError(
                    code: .invalidStub,
                    message: "times(\(limit)) can never answer a request: give times(_:) a count of 0 or more."))
        }
        for (method, source) in responses {
            if case .sequence(let sequence) = source, sequence.responses.isEmpty {
                problems.append(
                    HTTPStubberError(
                        code: .invalidStub,
                        message: "The response sequence for \(method) is empty: give stub(for:sequence:) at least "
                            + "one response."))
            }
        }
        return problems
    }

    /// Whether the stub may decline a request its matchers accept, depending on what it answered before: a
    /// limit on answers, or a required scenario state.
    var isConditional: Bool {
        limit != nil || scenarios.contains { $0.requiredState != nil }
    }

    /// Whether answering a request changes the stubber's state beyond counting: conditions, scenario
    /// transitions, response sequences.
    var isStateful: Bool {
        isConditional || !scenarios.isEmpty
            || responses.values.contains { if case .sequence = $0 { true } else { false } }
    }

    /// The stubbed methods, sorted, for reports.
    var methodNames: String {
        let names = responses.keys.map(\.rawValue).sorted()
        if everyMethod != nil { return names.isEmpty ? "every method" : names.joined(separator: ", ") + ", any other" }
        return names.isEmpty ? "no method (add a response with stub(for:...))" : names.joined(separator: ", ")
    }
}

/// A stub's part in a scenario: the state it requires (if any) and the state it moves the scenario to when it
/// answers (if any).
struct ScenarioRule: Sendable {
    let scenario: HTTPStubScenario
    var requiredState: String?
    var newState: String?
}

extension StubDefinition {
    /// Changes the stub's rule for a scenario, making one if it has none.
    mutating func updateRule(for scenario: HTTPStubScenario, _ change: (inout ScenarioRule) -> Void) {
        if let index = scenarios.firstIndex(where: { $0.scenario == scenario }) {
            change(&scenarios[index])
        } else {
            var rule = ScenarioRule(scenario: scenario)
            change(&rule)
            scenarios.append(rule)
        }
    }
}

/// Where a stub's response for one method comes from.
package enum ResponseSource: Sendable {
    /// A response object, read when the request arrives.
    case fixed(HTTPStubResponse)
    /// The request itself, sent back.
    case echo
    /// A closure that builds a response from the request.
    case dynamic(DynamicResponse)
    /// Responses in turn, one per request.
    case sequence(ResponseSequence)

    /// Closures live in a struct: reading a closure stored directly behind a lock re-wraps it on each read.
    package struct DynamicResponse: Sendable {
        let provide: @Sendable (HTTPIncomingRequest, HTTPStubRequest) -> HTTPStubResponse

        package init(provide: @escaping @Sendable (HTTPIncomingRequest, HTTPStubRequest) -> HTTPStubResponse) {
            self.provide = provide
        }
    }

    /// Responses given in turn, and what follows the last.
    package struct ResponseSequence: Sendable {
        let responses: [HTTPStubResponse]
        let end: HTTPStubResponse.SequenceEnd

        /// The response for the request at `position` (0 for the first); for an empty sequence, a failure
        /// that says so.
        func response(at position: Int, method: HTTPMethod) -> HTTPStubResponse {
            guard !responses.isEmpty else {
                return HTTPStubResponse(
                    error: HTTPStubberError(
                        code: .invalidStub,
                        message: "The response sequence for \(method) is empty: give stub(for:sequence:) at least "
                            + "one response."))
            }
            switch end {
            case .repeatLast: return responses[min(position, responses.count - 1)]
            case .cycle: return responses[position % responses.count]
            }
        }
    }

    /// The plan for a request. A sequence must be resolved to one of its responses first (see
    /// `StubUsage.claim`); an unresolved one answers with its first response.
    func plan(for request: HTTPIncomingRequest, stub: HTTPStubRequest) -> HTTPResponsePlan {
        switch self {
        case .fixed(let response):
            return HTTPResponsePlan(stub: stub, request: request, response: response)
        case .dynamic(let dynamic):
            var plan = HTTPResponsePlan(stub: stub, request: request, response: dynamic.provide(request, stub))
            plan.isPerRequest = true
            return plan
        case .sequence(let sequence):
            return HTTPResponsePlan(
                stub: stub, request: request, response: sequence.response(at: 0, method: request.method))
        case .echo:
            var storage = HTTPStubResponse.Storage()
            storage.headers = request.headers
            storage.headers.remove(.contentLength)
            storage.headers[HTTPHeaders.Name(rawValue: "X-Echo-Method")] = request.method.rawValue
            storage.headers[HTTPHeaders.Name(rawValue: "X-Echo-URL")] = request.url.absoluteString
            storage.body = request.body
            var plan = HTTPResponsePlan(stub: stub, request: request, response: storage)
            plan.isPerRequest = true
            return plan
        }
    }
}
