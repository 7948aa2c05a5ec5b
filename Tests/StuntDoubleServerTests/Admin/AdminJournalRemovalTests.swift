import Foundation
import StuntDouble
import StuntDoubleServer
import Testing

/// Forgetting requests through the admin API: one by id, by request pattern, by the answering mapping's
/// metadata (WireMock's `DELETE /requests/{id}`, `POST /requests/remove`, `POST /requests/remove-by-metadata`).
@Suite struct AdminJournalRemovalTests {
    typealias Call = AdminAPITests

    static let files = [
        "mappings/tagged.json": #"""
        {"mappings": [
          {"request": {"urlPath": "/setup"}, "response": {"status": 200}, "metadata": {"phase": "setup"}},
          {"request": {"urlPath": "/work"}, "response": {"status": 200}, "metadata": {"phase": "work"}}
        ]}
        """#
    ]

    static func journalURLs(_ url: URL) async throws -> [String] {
        let list = try await Call.call(.GET, url, "/__admin/requests")
        return (list.object["requests"] as? [[String: Any]] ?? []).compactMap {
            ($0["request"] as? [String: Any])?["url"] as? String
        }
    }

    @Test func oneRequestByItsID() async throws {
        try await Call.withServer(files: Self.files) { url, _, _ in
            _ = try await Call.call(.GET, url, "/setup")
            _ = try await Call.call(.GET, url, "/work")
            let list = try await Call.call(.GET, url, "/__admin/requests")
            let events = try #require(list.object["requests"] as? [[String: Any]])
            let setupID = try #require(
                events.first { ($0["request"] as? [String: Any])?["url"] as? String == "/setup" }?["id"] as? String)
            #expect(try await Call.call(.DELETE, url, "/__admin/requests/\(setupID)").status == 200)
            #expect(try await Self.journalURLs(url) == ["/work"])
            #expect(try await Call.call(.GET, url, "/__admin/requests/\(setupID)").status == 404)
            // As WireMock: an id the journal does not hold is no error.
            #expect(try await Call.call(.DELETE, url, "/__admin/requests/\(setupID)").status == 200)
        }
    }

    @Test func byARequestPatternAnsweringWhatWasRemoved() async throws {
        try await Call.withServer(files: Self.files) { url, _, _ in
            for path in ["/setup", "/work", "/setup?again=1", "/nothing-here"] {
                _ = try await Call.call(.GET, url, path)
            }
            let removed = try await Call.call(
                .POST, url, "/__admin/requests/remove", body: #"{"method": "GET", "urlPath": "/setup"}"#)
            #expect(removed.status == 200)
            let urls = (removed.object["serveEvents"] as? [[String: Any]] ?? []).compactMap {
                ($0["request"] as? [String: Any])?["url"] as? String
            }
            #expect(urls == ["/setup", "/setup?again=1"])
            #expect(try await Self.journalURLs(url) == ["/nothing-here", "/work"])
            let count = try await Call.call(.POST, url, "/__admin/requests/count", body: #"{"urlPath": "/setup"}"#)
            #expect(count.object["count"] as? Int == 0, "a count after the removal does not see them")
            let bad = try await Call.call(.POST, url, "/__admin/requests/remove", body: #"{"urlPath": 5}"#)
            #expect(bad.status == 422, "\(bad.text)")
            #expect(try await Self.journalURLs(url) == ["/nothing-here", "/work"], "nothing removed")
        }
    }

    @Test func byTheMetadataOfTheMappingThatAnswered() async throws {
        try await Call.withServer(files: Self.files) { url, _, _ in
            for path in ["/setup", "/work", "/setup", "/unmatched"] { _ = try await Call.call(.GET, url, path) }
            let removed = try await Call.call(
                .POST, url, "/__admin/requests/remove-by-metadata",
                body: #"{"matchesJsonPath": {"expression": "$.phase", "equalTo": "setup"}}"#)
            #expect(removed.status == 200, "\(removed.text)")
            #expect((removed.object["serveEvents"] as? [Any])?.count == 2)
            #expect(try await Self.journalURLs(url) == ["/unmatched", "/work"])
        }
    }
}
