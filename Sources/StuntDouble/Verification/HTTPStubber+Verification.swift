extension HTTPStubber {
    /// Throws unless a stub answered a number of requests in this stubber (since the journal was last
    /// cleared).
    ///
    /// ```swift
    /// try stubber.verify(loginStub, called: .once)
    /// ```
    /// The error's message says what was expected and found, quotes the journal, and for too few calls shows
    /// the requests that came closest to the stub with the checks they failed. Tests with StuntDoubleTesting
    /// can use `expect(_:called:)`, which records a test issue at the caller instead of throwing.
    /// - Parameters:
    ///   - stub: The stub.
    ///   - count: The expected number of answers.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/verificationFailed``.
    public func verify(_ stub: HTTPStubRequest, called count: HTTPCallCount) throws(HTTPStubberError) {
        if let problem = count.problem {
            throw Self.verificationError("The expected count of \(stub) is invalid: \(problem).")
        }
        let hits = hitCount(of: stub)
        guard !count.contains(hits) else { return }
        let journal = self.journal
        var text = "\(stub) answered \(Self.requests(hits)); expected \(count)."
        if hits > (count.maximum ?? .max) {
            let answered = journal.filter { $0.stub === stub }
            text += "\n\nRequests it answered (\(answered.count) in the journal):"
            text += Self.excerpt(answered)
        } else {
            let definition = stub.snapshot().definition
            let missed = journal.filter { $0.stub !== stub }.map { entry in
                (
                    entry,
                    HTTPUnmatchedRequestReport.Candidate(
                        stub: stub, checks: definition.checks(of: entry.request, stub: stub, availability: nil))
                )
            }
            text += closest(missed.map { ($0.0, $0.1.checks, $0.1.closeness) }, to: "\(stub)")
            if stubs.allSatisfy({ $0 !== stub }) {
                text += "\n\nThe stub is not in this stubber: add it with add(stub:), to this stubber."
            }
        }
        text += journalSummary(journal)
        throw Self.verificationError(text)
    }

    /// Throws unless a number of the requests in the journal match a pattern.
    ///
    /// ```swift
    /// try stubber.verify(HTTPRequestPattern(.post).match(URL: loginURL).match(json: #"{"user": "mark"}"#),
    ///                    called: .once)
    /// ```
    /// Only the requests the journal keeps are counted (see ``journalCapacity``); the error says when some
    /// were dropped.
    /// - Parameters:
    ///   - pattern: The requests to count.
    ///   - count: The expected number of matching requests.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/verificationFailed``.
    public func verify(_ pattern: HTTPRequestPattern, called count: HTTPCallCount) throws(HTTPStubberError) {
        if let problem = count.problem {
            throw Self.verificationError("The expected count of \(pattern) is invalid: \(problem).")
        }
        if let problem = pattern.problems.first {
            throw Self.verificationError("The pattern \(pattern) can never match: \(problem.message)")
        }
        let journal = self.journal
        let matching = journal.filter { pattern.matches($0.request) }
        guard !count.contains(matching.count) else { return }
        var text = "\(Self.requests(matching.count)) matched \(pattern); expected \(count)."
        if matching.count > (count.maximum ?? .max) {
            text += "\n\nMatching requests:" + Self.excerpt(matching)
        } else {
            let missed = journal.filter { !pattern.matches($0.request) }.map { entry in
                let checks = pattern.checks(of: entry.request)
                let closeness = checks.isEmpty ? 1 : checks.map(\.closeness).reduce(0, +) / Double(checks.count)
                return (entry, checks, closeness)
            }
            text += closest(missed, to: "the pattern")
        }
        text += journalSummary(journal)
        throw Self.verificationError(text)
    }

    /// Throws if any request reached this stubber that no stub matched (since the journal was last cleared),
    /// with the report of each: the request, the closest stubs and what differed.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/verificationFailed``.
    public func verifyNoUnmatchedRequests() throws(HTTPStubberError) {
        let count = unmatchedCount
        guard count > 0 else { return }
        let unmatched = unmatchedRequests
        var text = "\(Self.requests(count)) matched no stub"
        text += unmatched.count < count ? " (the journal kept \(unmatched.count) of them):" : ":"
        for entry in unmatched {
            guard let report = entry.decision.report else { continue }
            text += "\n\n#\(entry.number) " + report.description
        }
        throw Self.verificationError(text)
    }

    // MARK: - Report text

    private static func verificationError(_ message: String) -> HTTPStubberError {
        HTTPStubberError(code: .verificationFailed, message: message)
    }

    private static func requests(_ count: Int) -> String {
        count == 1 ? "1 request" : "\(count) requests"
    }

    /// Entries, one per line, the last `limit` of them.
    private static func excerpt(_ entries: [HTTPJournalEntry], limit: Int = 10) -> String {
        var text = ""
        if entries.isEmpty {
            return "\n  (none)"
        }
        if entries.count > limit {
            text += "\n  … \(entries.count - limit) earlier"
        }
        for entry in entries.suffix(limit) {
            text += "\n  \(entry)"
        }
        return text
    }

    /// The requests that came closest to a stub or pattern, with their checks.
    private func closest(_ candidates: [(HTTPJournalEntry, [MatcherCheck], Double)], to subject: String) -> String {
        guard !candidates.isEmpty else { return "" }
        let ranked = candidates.enumerated().sorted {
            $0.element.2 != $1.element.2 ? $0.element.2 > $1.element.2 : $0.offset > $1.offset
        }
        var text = "\n\nClosest requests to \(subject):"
        for (_, (entry, checks, _)) in ranked.prefix(3) {
            let failed = checks.filter { !$0.passed }.count
            text += "\n  #\(entry.number) \(entry.request.method) \(entry.request.url.absoluteString): "
            text += "\(failed) of \(checks.count) check\(checks.count == 1 ? "" : "s") failed"
            text += "\n    body: " + BodyText.describe(entry.request.body)
            for check in checks {
                text += "\n     " + check.description.indentingLines(with: "     ")
            }
        }
        return text
    }

    private func journalSummary(_ journal: [HTTPJournalEntry]) -> String {
        var text = "\n\nJournal (\(Self.requests(receivedCount))"
        let dropped = droppedJournalEntryCount
        if dropped > 0 {
            text += ", of which the \(dropped) oldest were dropped: journalCapacity is \(journalCapacity)"
        }
        return text + "):" + Self.excerpt(journal)
    }
}
