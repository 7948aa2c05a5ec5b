import StuntDouble

/// The failures to record for the requests a stubber could not match, when a test (or suite) ends.
enum UnmatchedRequests {
    /// One message per unmatched request in the journal, each with its report, and one for those the journal
    /// no longer keeps. A request whose error the test itself threw is left out: the test already failed
    /// with that report.
    static func messages(of stubber: HTTPStubber, scope: String, excluding thrown: (any Error)?) -> [String] {
        let count = stubber.unmatchedCount
        guard count > 0 else { return [] }
        let thrownRequest = (thrown as? HTTPStubberError)?.report?.request
        let kept = stubber.unmatchedRequests
        var messages: [String] = []
        for entry in kept {
            guard let report = entry.decision.report else { continue }
            if let thrownRequest, entry.request.isSameRequest(as: thrownRequest) { continue }
            messages.append(
                "Request #\(entry.number) of \(scope) matched no stub (reported when it ended, in case the code "
                    + "under test handled the error):\n" + report.description)
        }
        if count > kept.count {
            messages.append(
                "\(count - kept.count) more unmatched requests of \(scope) are no longer in the journal "
                    + "(journalCapacity is \(stubber.journalCapacity)).")
        }
        return messages
    }
}
