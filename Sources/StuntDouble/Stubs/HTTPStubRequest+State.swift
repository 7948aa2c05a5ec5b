extension HTTPStubRequest {
    /// Answers a method with responses in turn, one per request: for retry tests.
    ///
    /// ```swift
    /// stub.stub(for: .get, sequence: [.status(500), .status(500), .json(#"{"ok": true}"#)])
    /// ```
    ///
    /// Each stubber keeps its own place in the sequence, so parallel tests never advance each other's.
    /// - Parameters:
    ///   - method: The method.
    ///   - responses: The responses, in order (at least one).
    ///   - end: What follows the last response: ``HTTPStubResponse/SequenceEnd/repeatLast`` (the default) or
    ///     ``HTTPStubResponse/SequenceEnd/cycle``. To stop answering instead, add ``times(_:)``.
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func stub(
        for method: HTTPMethod, sequence responses: [HTTPStubResponse],
        then end: HTTPStubResponse.SequenceEnd = .repeatLast
    ) -> Self {
        update { $0.responses[method] = .sequence(.init(responses: responses, end: end)) }
        return self
    }

    /// Limits how many requests the stub answers, in each stubber; after that it no longer matches, and the
    /// next stub (or the unmatched-request report) takes over.
    ///
    /// ```swift
    /// stub.stub(for: .post, code: .created).times(1)  // the second POST is unmatched
    /// ```
    /// - Parameter count: How many requests the stub answers (0 or more).
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func times(_ count: Int) -> Self {
        update { $0.limit = count }
        return self
    }

    /// How many requests the stub answers in each stubber, or `nil` for no limit (see ``times(_:)``).
    public var limit: Int? {
        state.withLock { $0.definition.limit }
    }

    /// Makes the stub answer only while a scenario is in a state, and optionally move it to another state
    /// when it answers.
    ///
    /// ```swift
    /// stub.stub(for: .post, code: .created).when(cart, is: "empty", then: "has item")
    /// ```
    ///
    /// A stub can take part in several scenarios: it answers only while each is in its required state, and
    /// moves each as its rule says. Calling `when` again for the same scenario replaces the required state
    /// (and the new state, when `newState` is given); a ``moves(_:to:)`` of the same scenario is kept.
    /// - Parameters:
    ///   - scenario: The scenario.
    ///   - state: The state the scenario must be in.
    ///   - newState: The state the scenario moves to when the stub answers, or `nil` to leave it (or to keep
    ///     what ``moves(_:to:)`` said).
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func when(_ scenario: HTTPStubScenario, is state: String, then newState: String? = nil) -> Self {
        update {
            $0.updateRule(for: scenario) { rule in
                rule.requiredState = state
                rule.newState = newState ?? rule.newState
            }
        }
        return self
    }

    /// Moves a scenario to a state whenever the stub answers. The state the stub requires, if a
    /// ``when(_:is:then:)`` of the same scenario set one, still applies; otherwise it answers in any state.
    /// - Parameters:
    ///   - scenario: The scenario.
    ///   - newState: The state it moves to.
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func moves(_ scenario: HTTPStubScenario, to newState: String) -> Self {
        update { $0.updateRule(for: scenario) { $0.newState = newState } }
        return self
    }
}
