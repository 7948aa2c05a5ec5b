import Foundation

/// The engine's one entry point: every delivery path (URLProtocol, `HTTPStubSession`, the server, the provider)
/// hands a request to ``HTTPStubber/decide(_:via:received:)`` and plays the decision it gets back. The index
/// (`StubRegistry`) finds the candidate stubs, `StubUsage` claims stateful ones and keeps the journal.
extension HTTPStubber {
    /// Decides what happens to a request that came through a delivery path, and records it in the journal.
    ///
    /// Matching runs on a snapshot of the stubs, outside every lock. A stateful stub (a sequence, a limit, a
    /// scenario) is then claimed under the usage lock; when conditional stubs exist and their availability
    /// changed meanwhile, the request is decided again, so that concurrent requests see the same answers as
    /// requests made one after another would.
    /// - Parameters:
    ///   - request: The request.
    ///   - path: The delivery path that brought it.
    ///   - received: When it arrived (the delivery path's own reading of the clock, when it has one).
    /// - Returns: The decision and the number of its journal entry, for ``complete(_:after:error:)``.
    package func decide(
        _ request: HTTPIncomingRequest, via path: HTTPDeliveryPath, received: ContinuousClock.Instant = .now
    ) -> (decision: HTTPStubDecision, entry: Int) {
        while true {
            let (stubs, ignoreRules, mode, recording, gates, timeScale, hasMessageStubs) = state.withLock {
                (
                    $0.stubs, $0.ignoreRules, $0.unhandledMode, $0.recording, $0.gates, $0.eventTimeScale,
                    $0.hasMessageStubs
                )
            }
            let available = stubs.conditionalCount > 0 ? usage.withLock { $0.availability } : nil
            var decision: HTTPStubDecision
            var claimed: StubUsage.Claim?
            // An ignore rule means "never stub this": it wins over every stub, in both modes.
            let rule = ignoreRules.isEmpty ? nil : ignoreRules.first { $0.matches(request) }
            let refusal = rule == nil && !gates.isEmpty ? gates.lazy.compactMap { $0.refuse(request) }.first : nil
            let match = rule == nil && refusal == nil ? stubs.firstMatch(request, available: available) : nil
            if let rule {
                decision = .passThrough(.ignored(rule))
            } else if let refusal {
                decision = .stub(refusal)
            } else if case .stopped(let stopped) = match {
                decision = .unmatched(
                    HTTPUnmatchedRequestReport(
                        request: request, registry: stubs, ignoreRules: ignoreRules, availability: available,
                        stopped: stopped))
            } else if case .matched(let entry, let variables) = match {
                let source = entry.source(for: request.method) ?? .echo
                if available != nil || entry.isStateful {
                    let method = request.method
                    claimed = usage.withLock { $0.claim(entry, method: method, expectedVersion: available?.version) }
                    guard claimed != nil else { continue }
                }
                var matched = request
                matched.templateVariables = variables
                if case .sequence(let sequence) = source, let position = claimed?.position {
                    let response = sequence.response(at: position, method: request.method)
                    decision = .stub(HTTPResponsePlan(stub: entry.stub, request: matched, response: response))
                } else {
                    decision = .stub(source.plan(for: matched, stub: entry.stub))
                }
            } else if let recording, recording.records {
                decision = .passThrough(.recording(recording))
            } else if mode == .optin, stubs.problemCount == 0 {
                decision = .passThrough(.optIn)
            } else {
                decision = .unmatched(
                    HTTPUnmatchedRequestReport(
                        request: request, registry: stubs, ignoreRules: ignoreRules, availability: available))
            }
            if timeScale != 1, case .stub(let plan) = decision, plan.isEventStream {
                decision = .stub(plan.scalingEvents(by: timeScale))
            }
            let number = usage.withLock {
                $0.record(
                    decision, request: request, received: received, path: path, claimed: claimed,
                    expectedVersion: available?.version)
            }
            if let number {
                if !gates.isEmpty {
                    annotate(decision, to: request, entry: number, gates: gates)
                }
                if hasMessageStubs {
                    let served = if case .stub(let plan) = decision { plan.stub } else { HTTPStubRequest?.none }
                    requestArrived(request, servedBy: served)
                }
                return (decision, number)
            }
        }
    }
}
