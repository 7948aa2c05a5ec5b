import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A check every request passes before stubs are tried (an OpenAPI contract's request validation, for one). A
/// request it refuses is answered with its refusal (and journaled as answered by its stub); any other goes on to
/// the stubs, and what the gate finds about another stub's response is kept as annotations of the journal entry.
package final class HTTPRequestGate: Sendable {
    /// The stub that journal entries of refused requests name.
    package let stub: HTTPStubRequest
    private let refusal: @Sendable (HTTPIncomingRequest) -> HTTPStubResponse?
    private let responseCheck: @Sendable (HTTPIncomingRequest, HTTPResponsePlan.Response) -> [any HTTPJournalAnnotation]

    /// What the gate finds about a request forwarded to an upstream and about the upstream's answer, or `nil`
    /// when it does not look at forwarded traffic (or at this request).
    let forwardedCheck: (@Sendable (HTTPIncomingRequest) -> HTTPForwardedCheck?)?

    /// - Parameters:
    ///   - stub: The stub that journal entries of refused requests name (it need not be added).
    ///   - refusal: The response refusing a request, or `nil` to let it through.
    ///   - responseCheck: What the gate finds about another stub's response to a request, for the journal.
    ///   - forwardedCheck: What the gate finds about a request forwarded to an upstream, and about the
    ///     upstream's answer (a validating proxy); `nil` to leave forwarded traffic alone.
    package init(
        stub: HTTPStubRequest, refusal: @escaping @Sendable (HTTPIncomingRequest) -> HTTPStubResponse?,
        responseCheck:
            @escaping @Sendable (HTTPIncomingRequest, HTTPResponsePlan.Response) -> [any HTTPJournalAnnotation],
        forwardedCheck: (@Sendable (HTTPIncomingRequest) -> HTTPForwardedCheck?)? = nil
    ) {
        self.stub = stub
        self.refusal = refusal
        self.responseCheck = responseCheck
        self.forwardedCheck = forwardedCheck
    }

    func annotations(of plan: HTTPResponsePlan, to request: HTTPIncomingRequest) -> [any HTTPJournalAnnotation] {
        guard plan.stub !== stub, plan.proxy == nil, let response = plan.response else { return [] }
        return responseCheck(request, response)
    }

    func refuse(_ request: HTTPIncomingRequest) -> HTTPResponsePlan? {
        refusal(request).map { HTTPResponsePlan(stub: stub, request: request, response: $0) }
    }
}

/// What a gate finds about traffic a server forwards to an upstream (a validating proxy): the request's
/// findings at once, the answer's once it has all arrived.
package struct HTTPForwardedCheck: Sendable {
    /// What the request breaks.
    package let request: HTTPForwardedFindings
    /// What the upstream's answer breaks: its status, header fields and whole body.
    package let response: @Sendable (_ status: Int, _ headers: HTTPHeaders, _ body: Data) -> HTTPForwardedFindings

    package init(
        request: HTTPForwardedFindings,
        response: @escaping @Sendable (_ status: Int, _ headers: HTTPHeaders, _ body: Data) -> HTTPForwardedFindings
    ) {
        self.request = request
        self.response = response
    }
}

/// What a gate found about one side of a forwarded exchange.
package struct HTTPForwardedFindings: Sendable {
    /// For the journal entry (and the server's log).
    package var annotations: [any HTTPJournalAnnotation]
    /// What is broken, on one line, for a header of the answer; `nil` when nothing is.
    package var summary: String?
    /// An answer to give instead of the upstream's (a proxy that turns violations into errors).
    package var replacement: HTTPStubResponse?

    package init(
        annotations: [any HTTPJournalAnnotation] = [], summary: String? = nil, replacement: HTTPStubResponse? = nil
    ) {
        self.annotations = annotations
        self.summary = summary
        self.replacement = replacement
    }
}

extension HTTPStubber {
    /// What the gates find about a request a server forwards to its upstream: one check per gate that looks at
    /// it (an OpenAPI document whose operation it is, loaded to check forwarded traffic).
    package func forwardedChecks(for request: HTTPIncomingRequest) -> [HTTPForwardedCheck] {
        let gates = state.withLock { $0.gates }
        return gates.compactMap { $0.forwardedCheck?(request) }
    }

    /// Adds findings to a request's journal entry (the server's, about a forwarded exchange).
    package func annotate(entry: Int, with annotations: [any HTTPJournalAnnotation]) {
        guard !annotations.isEmpty else { return }
        usage.withLock { $0.annotate(entry, with: annotations) }
    }

    /// Adds a gate: requests it refuses never reach a stub.
    package func add(gate: HTTPRequestGate) {
        state.withLock { $0.gates.append(gate) }
    }

    /// Removes a gate (that object).
    package func remove(gate: HTTPRequestGate) {
        state.withLock { $0.gates.removeAll { $0 === gate } }
    }

    /// Checks a stub's answer with the gates, and keeps what they find in the journal entry.
    func annotate(
        _ decision: HTTPStubDecision, to request: HTTPIncomingRequest, entry: Int, gates: [HTTPRequestGate]
    ) {
        guard case .stub(let plan) = decision, !gates.contains(where: { $0.stub === plan.stub }) else { return }
        let annotations = gates.flatMap { $0.annotations(of: plan, to: request) }
        guard !annotations.isEmpty else { return }
        usage.withLock { $0.annotate(entry, with: annotations) }
    }

}

/// A matcher that reads the engine's request (its body read once, no `URLRequest` made), for matchers that
/// other modules of this package add: an OpenAPI contract's router.
package struct IncomingRequestMatcher: HTTPStubMatcherProtocol, RequestMatcher, CustomStringConvertible {
    private let name: String
    private let predicate: @Sendable (HTTPIncomingRequest) -> Bool

    /// - Parameters:
    ///   - name: How unmatched-request reports name the matcher.
    ///   - predicate: Whether a request matches.
    package init(name: String, _ predicate: @escaping @Sendable (HTTPIncomingRequest) -> Bool) {
        self.name = name
        self.predicate = predicate
    }

    package var description: String { name }

    package func matches(request: URLRequest, for source: any HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    package func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        predicate(request)
    }

    package func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        MatcherCheck(matcher: name, passed: predicate(request), expected: nil, actual: nil, note: nil)
    }
}

extension HTTPStubRequest {
    /// Answers every method (but those with a response of their own) with a response built from each
    /// request.
    @discardableResult
    package func stubEveryMethod(
        responseProvider: @escaping @Sendable (HTTPIncomingRequest, HTTPStubRequest) -> HTTPStubResponse
    ) -> Self {
        update { $0.everyMethod = .dynamic(.init(provide: responseProvider)) }
        return self
    }
}

extension HTTPStubRequest {
    /// What the stub would answer a request, without answering it: `nil` when its matchers do not match the
    /// request or it has no response for the method. Nothing is counted, journaled or moved; a sequence
    /// gives its first response. For checking stubs against an OpenAPI document.
    package func preview(for request: HTTPIncomingRequest) -> HTTPResponsePlan? {
        let (definition, _) = snapshot()
        var variables: [String: URITemplate.Value] = [:]
        guard definition.engine.allSatisfy({ $0.evaluate(request, source: self, variables: &variables) }),
            let source = definition.source(for: request.method)
        else { return nil }
        var matched = request
        matched.templateVariables = variables
        return source.plan(for: matched, stub: self)
    }

    /// The URLs (or paths, starting with `/`) the stub's URL matchers name exactly, if any: an
    /// ``HTTPStubURLMatcher``, a stub file's `url` or `urlPath`.
    package var exactURLs: [String] {
        snapshot().definition.engine.compactMap { ($0 as? any URLConditionMatcher)?.exactURL }
    }

    /// Whether any matcher of the stub reads the URL (so that a stub without one matches every URL).
    package var readsURL: Bool {
        snapshot().definition.engine.contains { $0 is any URLConditionMatcher }
    }
}

/// A matcher whose condition is on the request's URL: ``HTTPStubURLMatcher``, ``HTTPStubURITemplateMatcher``,
/// ``HTTPStubRegExMatcher``, a stub file's `url`, `urlPath` and their patterns.
package protocol URLConditionMatcher {
    /// The URL (or path, starting with `/`) the matcher names exactly, if it names one.
    var exactURL: String? { get }
}

extension HTTPStubURLMatcher: URLConditionMatcher {
    package var exactURL: String? { url }
}

extension HTTPStubURITemplateMatcher: URLConditionMatcher {
    package var exactURL: String? { nil }
}

extension HTTPStubRegExMatcher: URLConditionMatcher {
    package var exactURL: String? { nil }
}

extension HTTPStubber {
    /// The stubs of the gates (loaded OpenAPI documents), which answer for the documents themselves.
    package var gateStubs: [HTTPStubRequest] {
        state.withLock { $0.gates.map(\.stub) }
    }
}
