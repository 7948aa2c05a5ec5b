import Foundation

extension HTTPStubber {
    /// The requests this stubber received, oldest first: each with the stub that answered (or why none did),
    /// the response, and when and how delivery ended.
    ///
    /// The journal keeps the newest ``journalCapacity`` requests; ``receivedCount``, ``unmatchedCount`` and
    /// ``hitCount(of:)`` stay exact beyond that.
    public var journal: [HTTPJournalEntry] {
        usage.withLock { $0.journal.entries }
    }

    /// How many requests the journal keeps (the newest); ``defaultJournalCapacity`` unless set. Lowering it
    /// drops the oldest entries at once. A negative capacity counts as 0.
    public var journalCapacity: Int {
        get { usage.withLock { $0.journal.capacity } }
        set { usage.withLock { $0.setJournalCapacity(newValue) } }
    }

    /// How many bytes of each request body the journal keeps, or `nil` (the default) for whole bodies.
    ///
    /// A long-running stub server sets it (`HTTPStubServer.Configuration.journalBodyLimit`, 64 KiB by default)
    /// so that large uploads do not accumulate in memory: an entry then keeps the first bytes, and
    /// ``HTTPJournalEntry/requestBodyLength`` the true length. Delivery always sees the whole body; only what
    /// the journal keeps afterwards is cut, so verification of a body beyond the limit sees its beginning only.
    public var journalBodyLimit: Int? {
        get { usage.withLock { $0.journalBodyLimit } }
        set { usage.withLock { $0.journalBodyLimit = newValue.map { max(0, $0) } } }
    }

    /// How many requests the journal dropped to stay within ``journalCapacity`` since it was last cleared.
    public var droppedJournalEntryCount: Int {
        usage.withLock { $0.journal.droppedCount }
    }

    /// How many requests the stubber received since the journal was last cleared.
    public var receivedCount: Int {
        usage.withLock { $0.receivedCount }
    }

    /// How many requests no stub matched (and that failed for it) since the journal was last cleared.
    public var unmatchedCount: Int {
        usage.withLock { $0.unmatchedCount }
    }

    /// The journal's entries for requests no stub matched.
    public var unmatchedRequests: [HTTPJournalEntry] {
        journal.filter(\.isUnmatched)
    }

    /// How many requests a stub answered in this stubber since the journal was last cleared.
    /// - Parameter stub: The stub.
    /// - Returns: The count.
    public func hitCount(of stub: HTTPStubRequest) -> Int {
        usage.withLock { $0.hits[stub.id, default: 0] }
    }

    /// Forgets the journal and the counts that verification reads; stubs, sequences and scenarios stay.
    public func clearJournal() {
        usage.withLock { $0.clearJournal() }
    }

    /// Removes the journal's entries a condition picks, such as the requests of a test's setup, so that later
    /// searches of the journal do not see them. The counts (``receivedCount``, ``unmatchedCount``,
    /// ``hitCount(of:)``) stay: they count every request since the journal was last cleared.
    /// - Parameter shouldRemove: Whether to remove an entry.
    /// - Returns: The removed entries, oldest first.
    @discardableResult
    public func removeJournalEntries(where shouldRemove: (HTTPJournalEntry) -> Bool) -> [HTTPJournalEntry] {
        usage.withLock { $0.removeJournalEntries(where: shouldRemove) }
    }

    /// Starts every response sequence, ``HTTPStubRequest/times(_:)`` limit and scenario over; the journal
    /// stays.
    public func resetState() {
        usage.withLock { $0.resetState() }
    }

    /// How many times ``resetState()`` ran: state kept beside the stubs (a stateful OpenAPI document's
    /// resources) starts over when this changes.
    package var stateResets: UInt64 {
        usage.withLock { $0.resets }
    }

    /// The current state of a scenario in this stubber: its initial state until a stub or
    /// ``setState(_:of:)`` moves it.
    /// - Parameter scenario: The scenario.
    /// - Returns: The state.
    public func state(of scenario: HTTPStubScenario) -> String {
        usage.withLock { $0.state(of: scenario) }
    }

    /// Moves a scenario to a state in this stubber.
    /// - Parameters:
    ///   - state: The state.
    ///   - scenario: The scenario.
    public func setState(_ state: String, of scenario: HTTPStubScenario) {
        usage.withLock { $0.setState(state, of: scenario) }
    }
}
