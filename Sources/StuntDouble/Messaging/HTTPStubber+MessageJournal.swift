import Foundation

/// The message journal: every message a channel's client sent and every one sent to it, to read, search, wait
/// for and verify.
extension HTTPStubber {
    /// Every message received from or sent to a channel's client, in order.
    public var messageJournal: [HTTPMessageJournalEntry] {
        messaging.state.withLock { $0.journal }
    }

    /// Forgets every message in the message journal.
    public func resetMessageJournal() {
        messaging.state.withLock { $0.journal = [] }
    }

    /// Forgets the journal's entries that pass a test.
    /// - Parameter test: Which entries.
    /// - Returns: The entries forgotten, in order.
    @discardableResult
    public func removeMessages(where test: (HTTPMessageJournalEntry) -> Bool) -> [HTTPMessageJournalEntry] {
        messaging.state.withLock { state in
            let removed = state.journal.filter(test)
            guard !removed.isEmpty else { return [] }
            state.journal.removeAll(where: test)
            return removed
        }
    }

    /// The messages received on channels whose initiating request matches `channel`, that match `message`.
    /// - Parameters:
    ///   - message: What the messages must be.
    ///   - channel: Which channels; every one by default.
    /// - Returns: The journal's entries, in order.
    public func messages(
        received message: HTTPMessagePattern, onChannelsMatching channel: HTTPRequestPattern = HTTPRequestPattern()
    ) -> [HTTPMessageJournalEntry] {
        messageJournal.filter {
            $0.direction == .received && channel.matches($0.channel.request) && message.matches($0.message)
        }
    }

    /// Waits until channels matching `channel` have received `count` messages matching `message`, or the time is
    /// up: for a test whose client sends in the background.
    /// - Parameters:
    ///   - message: What the messages must be.
    ///   - channel: Which channels; every one by default.
    ///   - count: How many to wait for.
    ///   - timeout: How long to wait at most.
    /// - Returns: The matching entries, in order: `count` of them, or fewer when the time ran out.
    public func messages(
        received message: HTTPMessagePattern, onChannelsMatching channel: HTTPRequestPattern = HTTPRequestPattern(),
        count: Int, within timeout: Duration
    ) async -> [HTTPMessageJournalEntry] {
        await waitForMessages(count: count, within: timeout) {
            $0.direction == .received && channel.matches($0.channel.request) && message.matches($0.message)
        }
    }

    /// Waits until the journal holds `count` entries passing a test, or the time is up; returns the first
    /// `count` of them (fewer when the time ran out).
    package func waitForMessages(
        count: Int, within timeout: Duration, where test: @escaping @Sendable (HTTPMessageJournalEntry) -> Bool
    ) async -> [HTTPMessageJournalEntry] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let found = messageJournal.filter(test)
            if found.count >= count || ContinuousClock.now >= deadline || Task.isCancelled {
                return Array(found.prefix(max(count, 0)))
            }
            // The journal has no one to notify a waiter; reading it every few milliseconds costs little.
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Checks that channels matching `channel` received a message matching `message`.
    /// - Parameters:
    ///   - message: What a message must be.
    ///   - channel: Which channels; every one by default.
    /// - Throws: ``HTTPStubberError`` with code `verificationFailed`, quoting the messages received, when none
    ///   matched.
    public func verify(
        received message: HTTPMessagePattern, onChannelsMatching channel: HTTPRequestPattern = HTTPRequestPattern()
    ) throws(HTTPStubberError) {
        guard messages(received: message, onChannelsMatching: channel).isEmpty else { return }
        let received = messageJournal.filter { $0.direction == .received }
        throw HTTPStubberError(
            code: .verificationFailed,
            message: "No message matching \(message) was received on \(channel). "
                + (received.isEmpty
                    ? "No message was received at all."
                    : "Received:\n" + received.map { "- \($0)" }.joined(separator: "\n")))
    }
}
