/// What a stubber does with a request.
public enum HTTPStubDecision: Sendable {
    /// A stub matched: deliver its plan.
    case stub(HTTPResponsePlan)
    /// No stub matched and the request may go to the network.
    case passThrough(PassThroughReason)
    /// No stub matched and the request must fail with this report (opt-out mode, the default).
    case unmatched(HTTPUnmatchedRequestReport)

    /// Why an unstubbed request may go to the network.
    public enum PassThroughReason: Sendable {
        /// An ignore rule matched it.
        case ignored(HTTPStubIgnoreRule)
        /// The stubber is in opt-in mode: requests no stub matches go to the network.
        case optIn
    }

    /// The plan, when a stub matched.
    public var plan: HTTPResponsePlan? {
        if case .stub(let plan) = self { plan } else { nil }
    }

    /// The report, when the request is unmatched.
    public var report: HTTPUnmatchedRequestReport? {
        if case .unmatched(let report) = self { report } else { nil }
    }
}
