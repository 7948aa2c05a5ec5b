import Foundation
import InMemoryLogging
import Logging
import StuntDouble
import StuntDoubleServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request journal of a server that runs for days: a capacity of WireMock's
/// (`--max-request-journal-entries`, `--no-request-journal`), bodies kept up to a limit with their true length,
/// and counts and finds that say when they may have missed requests.
@Suite struct JournalLimitTests {
    typealias Call = AdminAPITests

    static let countAll = #"{"method": "ANY", "urlPattern": "/.*"}"#

    @Test func countsAndFindsSayWhenTheCapacityDroppedRequests() async throws {
        let handler = InMemoryLogHandler()
        var configuration = HTTPStubServer.Configuration()
        configuration.journalCapacity = 5
        configuration.logger = Logger(label: "test") { _ in handler }
        configuration.logger.logLevel = .warning
        try await Call.withServer(configuration: configuration) { url, server, _ in
            #expect(server.stubber.journalCapacity == 5)
            for index in 0..<8 { _ = try await Call.call(.GET, url, "/r\(index)") }
            for _ in 0..<2 {
                let count = try await Call.call(.POST, url, "/__admin/requests/count", body: Self.countAll)
                #expect(count.object["count"] as? Int == 5, "the newest five")
                #expect(count.headers["StuntDouble-Journal-Dropped"].first == "3")
            }
            let found = try await Call.call(.POST, url, "/__admin/requests/find", body: Self.countAll)
            #expect(found.headers["StuntDouble-Journal-Dropped"].first == "3")
            let warnings = handler.entries.filter { $0.message.description.contains("journal is incomplete") }
            #expect(warnings.count == 1, "said once in the log: \(handler.entries.map(\.message))")
        }
    }

    @Test func aCompleteJournalAddsNoNote() async throws {
        try await Call.withServer { url, _, _ in
            _ = try await Call.call(.GET, url, "/one")
            let count = try await Call.call(.POST, url, "/__admin/requests/count", body: Self.countAll)
            #expect(count.object["count"] as? Int == 1)
            #expect(count.headers["StuntDouble-Journal-Dropped"].isEmpty)
            #expect(count.headers["StuntDouble-Journal-Truncated-Bodies"].isEmpty)
        }
    }

    @Test func withNoJournalCountsAreRefusedSayingWhy() async throws {
        var configuration = HTTPStubServer.Configuration()
        configuration.journalCapacity = 0
        try await Call.withServer(configuration: configuration) { url, server, _ in
            _ = try await Call.call(.GET, url, "/one")
            #expect(server.stubber.journal.isEmpty)
            #expect(server.stubber.receivedCount == 1, "counting what arrives stays exact")
            let count = try await Call.call(.POST, url, "/__admin/requests/count", body: Self.countAll)
            #expect(count.status == 500)
            #expect(count.text.contains("journal is off"), "\(count.text)")
            let listed = try await Call.call(.GET, url, "/__admin/requests")
            #expect(listed.object["requestJournalDisabled"] as? Bool == true)
        }
    }

    @Test func bodiesAreKeptUpToTheLimitWithTheirTrueLength() async throws {
        var configuration = HTTPStubServer.Configuration()
        configuration.journalBodyLimit = 1_000
        try await Call.withServer(configuration: configuration) { url, server, _ in
            let body = String(repeating: "0123456789", count: 500)
            _ = try await Call.call(.POST, url, "/upload", body: body)
            _ = try await Call.call(.POST, url, "/small", body: "tiny")
            let journal = server.stubber.journal
            let upload = try #require(journal.first { $0.request.url.path == "/upload" })
            #expect(upload.request.body?.count == 1_000)
            #expect(upload.requestBodyLength == 5_000)
            #expect(upload.isRequestBodyTruncated)
            #expect(upload.decision.report?.request.body?.count == 1_000, "the decision keeps no whole copy")
            let small = try #require(journal.first { $0.request.url.path == "/small" })
            #expect(!small.isRequestBodyTruncated)
            #expect(small.request.bodyText == "tiny")
            let found = try await Call.call(
                .POST, url, "/__admin/requests/count", body: #"{"bodyPatterns": [{"contains": "0123"}]}"#)
            #expect(found.object["count"] as? Int == 1)
            #expect(found.headers["StuntDouble-Journal-Truncated-Bodies"].first == "1")
        }
    }

    @Test func inProcessStubbersKeepWholeBodiesUnlessTold() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .post, body: "ok"))
        let body = Data(repeating: 0x41, count: 200_000)
        var request = URLRequest(url: URL(string: "https://a.test/")!)
        request.httpMethod = "POST"
        request.httpBody = body
        _ = try stubber.decision(for: request)
        #expect(stubber.journal.last?.request.body == body)
        stubber.journalBodyLimit = 10
        _ = try stubber.decision(for: request)
        let entry = try #require(stubber.journal.last)
        #expect(entry.request.body == body.prefix(10))
        #expect(entry.requestBodyLength == 200_000)
        #expect(entry.decision.plan?.request.body?.count == 10)
    }
}
