/// What a stubber does with a request.
public enum HTTPStubDecision: Sendable {
    /// A stub matched: deliver its plan.
    case stub(HTTPResponsePlan)
    /// The request may go to the network: an ignore rule matched it (whatever the stubs), or no stub did in
    /// opt-in mode.
    case passThrough(PassThroughReason)
    /// No stub matched and the request must fail with this report (opt-out mode, the default).
    case unmatched(HTTPUnmatchedRequestReport)

    /// Why a request may go to the network unstubbed.
    public enum PassThroughReason: Sendable, CustomStringConvertible {
        /// An ignore rule matched it: rules win over every stub.
        case ignored(HTTPStubIgnoreRule)
        /// The stubber is in opt-in mode: requests no stub matches go to the network.
        case optIn
        /// The stubber records: requests no stub matches go to the network, and the recording keeps what
        /// they received.
        case recording(any HTTPExchangeRecorder)

        /// Why, in words: "ignore rule: URL is https://a.test/x lets it through", "the stubber is in opt-in mode
        /// and no stub matches it", "the stubber records it (...)".
        public var description: String {
            switch self {
            case .ignored(let rule): "\(rule) lets it through"
            case .optIn: "the stubber is in opt-in mode and no stub matches it"
            case .recording(let recording): "the stubber records it (\(recording))"
            }
        }
    }

    /// The plan, when a stub matched.
    public var plan: HTTPResponsePlan? {
        if case .stub(let plan) = self { plan } else { nil }
    }

    /// The same decision for another copy of its request (the journal's, with a truncated body).
    func replacingRequest(_ request: HTTPIncomingRequest) -> HTTPStubDecision {
        switch self {
        case .stub(let plan): .stub(plan.replacingRequest(request))
        case .unmatched(let report): .unmatched(report.replacingRequest(request))
        case .passThrough: self
        }
    }

    /// The report, when the request is unmatched.
    public var report: HTTPUnmatchedRequestReport? {
        if case .unmatched(let report) = self { report } else { nil }
    }
}
