/// The matchers of an ignore rule or a request pattern, behind a lock: added from any thread, evaluated with
/// AND.
struct MatcherList: Sendable {
    private let state = Locked<StubDefinition>(StubDefinition())

    /// The matchers, in the order they were added.
    var matchers: [any HTTPStubMatcherProtocol] {
        state.withLock { $0.matchers }
    }

    /// Why the matchers can never match (built from bad input); empty when usable.
    var problems: [HTTPStubberError] {
        state.withLock { $0.problems }
    }

    func append(_ matcher: any HTTPStubMatcherProtocol) {
        state.withLock { $0.append(matcher) }
    }

    /// Whether every matcher matches the request. The matchers run outside the lock.
    func matches(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> Bool {
        let engine = state.withLock { $0.engine }
        var variables: [String: URITemplate.Value] = [:]
        return engine.allSatisfy { $0.evaluate(request, source: source, variables: &variables) }
    }

    /// Each matcher's verdict on the request, for reports.
    func checks(of request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> [MatcherCheck] {
        state.withLock { $0.engine }.map { $0.explain(request, source: source) }
    }
}
