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

/// Matchers that must all match (AND): what an ignore rule (``HTTPStubIgnoreRule``) and a request pattern
/// (``HTTPRequestPattern``) are made of. Every `match(...)` method of stubs works on both.
///
/// Made only by its subclasses in this module.
public class HTTPMatcherGroup: HTTPMatcherSource, @unchecked Sendable {
    // Unchecked: its only state is `list`, a Sendable value with a lock of its own; the subclasses add only
    // `let`s of Sendable types.
    let list = MatcherList()

    init() {}

    /// The matchers, all of which must match, in the order they were added.
    public var matchers: [any HTTPStubMatcherProtocol] {
        list.matchers
    }

    /// Adds a matcher.
    /// - Parameter matcher: The matcher.
    /// - Returns: The rule or pattern, to chain calls.
    @discardableResult
    public func match(_ matcher: any HTTPStubMatcherProtocol) -> Self {
        list.append(matcher)
        return self
    }

    /// Why it can never match (matchers built from bad input); empty when usable.
    public var problems: [HTTPStubberError] {
        list.problems
    }
}
