import Foundation
import StuntDouble
import StuntDoubleWireMock

/// `/__admin/requests`: the request journal, listed, cleared, counted, searched and removed from by pattern or
/// by the answering mapping's metadata, and the requests no stub matched.
extension AdminAPI {
    /// What `POST /__admin/requests/{count,find,remove}` does with the requests a pattern matches.
    enum JournalSearch {
        case count, find, remove
    }

    /// `GET /__admin/requests?since=&limit=`: newest first.
    func listRequests(_ request: AdminRequest) -> AdminResponse {
        let journal = stubber.journal
        var events = Array(journal.reversed())
        if let since = request.query["since"], let date = ISO8601DateFormatter().date(from: since) {
            events = events.filter { $0.receivedAt > date }
        }
        if let limit = request.query["limit"].flatMap(Int.init) {
            events = Array(events.prefix(max(0, limit)))
        }
        return .json(
            .object([
                ("requests", .array(events.map(serveEvent))),
                ("meta", .object([("total", .number(journal.count))])),
                ("requestJournalDisabled", .bool(stubber.journalCapacity == 0)),
            ]))
    }

    /// `DELETE /__admin/requests` and `POST /__admin/requests/reset`.
    func clearRequests() -> AdminResponse {
        stubber.clearJournal()
        core.clients.withLockedValue { $0.removeAll() }
        core.webhooks.clear()
        core.proxiedExchanges.removeAll()
        return .json(.object([]))
    }

    /// `POST /__admin/requests/count` and `find`: the journal's requests a pattern matches, with headers saying
    /// what the journal may have lost.
    func searchRequests(_ body: Data, _ search: JournalSearch) -> AdminResponse {
        guard stubber.journalCapacity > 0 else {
            return .error(
                500,
                "The request journal is off (--no-request-journal, or a journal capacity of 0), so no request "
                    + "can be counted or found. Start the server with a journal to verify requests.")
        }
        let (pattern, diagnostics) = StubRequestPattern.read(body, name: "the request body")
        guard let pattern else { return .json(AdminJSON.errors(diagnostics), status: 422) }
        let journal = stubber.journal
        let found = journal.filter { pattern.matches($0.request) }
        var response: AdminResponse
        switch search {
        case .count: response = .json(.object([("count", .number(found.count))]))
        case .find: response = .json(.object([("requests", .array(found.map(loggedRequest)))]))
        case .remove:
            let removed = stubber.removeJournalEntries { pattern.matches($0.request) }
            // As WireMock answers: the removed serve events.
            response = .json(.object([("serveEvents", .array(removed.map(serveEvent)))]))
        }
        response.headers += incompleteJournalNotes(journal)
        return response
    }

    /// `DELETE /__admin/requests/{id}`: forgets one request (answers 200 whether the journal held it, as
    /// WireMock does).
    func removeRequest(_ idText: String) -> AdminResponse {
        if let number = AdminJSON.entryNumber(of: idText) {
            stubber.removeJournalEntries { $0.number == number }
        }
        return .json(.object([]))
    }

    /// `POST /__admin/requests/remove-by-metadata`: forgets the requests answered by mappings whose `metadata`
    /// the pattern matches.
    func removeRequests(byMetadata body: Data) -> AdminResponse {
        let (pattern, diagnostics) = StubValuePattern.read(body, name: "the request body")
        guard let pattern else { return .json(AdminJSON.errors(diagnostics), status: 422) }
        let stubs = Set(store.entries(whereMetadata: pattern).map { ObjectIdentifier($0.stub) })
        let removed = stubber.removeJournalEntries { entry in
            entry.stub.map { stubs.contains(ObjectIdentifier($0)) } ?? false
        }
        return .json(.object([("serveEvents", .array(removed.map(serveEvent)))]))
    }

    /// `GET /__admin/requests/unmatched`.
    func unmatchedRequests() -> AdminResponse {
        .json(.object([("requests", .array(stubber.unmatchedRequests.map(loggedRequest)))]))
    }

    /// `GET /__admin/requests/unmatched/near-misses`: each unmatched request with the stub it came closest to.
    func unmatchedNearMisses() -> AdminResponse {
        let misses = stubber.unmatchedRequests.compactMap { entry -> JSONNode? in
            guard let report = entry.decision.report, let closest = report.candidates.first else { return nil }
            return nearMiss(loggedRequest(entry), stub: closest.stub, closeness: closeness(of: closest))
        }
        return .json(.object([("nearMisses", .array(misses))]))
    }

    /// `GET /__admin/requests/{id}`.
    func loggedRequest(_ idText: String) -> AdminResponse {
        guard let number = AdminJSON.entryNumber(of: idText),
            let entry = stubber.journal.first(where: { $0.number == number })
        else {
            return .error(404, "No request in the journal has the id \(idText).")
        }
        return .json(
            .object([
                ("request", loggedRequest(entry)),
                ("responseDefinition", serveEvent(entry)["responseDefinition"] ?? .null),
            ]))
    }

    /// Headers saying what a count or find may have missed: requests the journal dropped to stay within its
    /// capacity, and bodies it cut (which body patterns see the beginning of only). The first time, a log line
    /// says so too.
    private func incompleteJournalNotes(_ journal: [HTTPJournalEntry]) -> [(String, String)] {
        var notes: [(String, String)] = []
        let dropped = stubber.droppedJournalEntryCount
        if dropped > 0 {
            notes.append(("StuntDouble-Journal-Dropped", "\(dropped)"))
        }
        let cut = journal.count { $0.isRequestBodyTruncated }
        if cut > 0 {
            notes.append(("StuntDouble-Journal-Truncated-Bodies", "\(cut)"))
        }
        if !notes.isEmpty,
            warnedOfIncompleteJournal.withLockedValue({ warned in
                defer { warned = true }
                return !warned
            })
        {
            let line =
                "the request journal is incomplete: \(dropped) older requests were dropped to keep the newest "
                + "\(stubber.journalCapacity) (--max-request-journal-entries), and \(cut) bodies were cut to "
                + "\(stubber.journalBodyLimit ?? 0) bytes (--journal-body-limit): counts and finds may miss them. "
                + "Responses say so in StuntDouble-Journal-Dropped and StuntDouble-Journal-Truncated-Bodies."
            core.logger.warning("\(line)")
        }
        return notes
    }

    private func clientIP(of entry: HTTPJournalEntry) -> String {
        core.clients.withLockedValue { $0[entry.number] } ?? "127.0.0.1"
    }

    /// A journal entry's request in WireMock's `LoggedRequest` shape.
    func loggedRequest(_ entry: HTTPJournalEntry) -> JSONNode {
        AdminJSON.loggedRequest(entry.request, at: entry.receivedAt, clientIP: clientIP(of: entry))
    }

    private func serveEvent(_ entry: HTTPJournalEntry) -> JSONNode {
        AdminJSON.serveEvent(
            entry, store: store, clientIP: clientIP(of: entry), bodyLimit: stubber.journalBodyLimit)
    }
}
