import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What each stubber records of the requests it receives.
@Suite struct JournalTests {
    @Test func everyRequestIsRecordedWithItsOutcome() async throws {
        let stubber = HTTPStubber()
        let me = HTTPStubRequest(name: "me").match(URL: "https://api.test/me").stub(for: .get, body: "mark")
        stubber.add(stub: me)
        stubber.add(ignoreURL: "http://127.0.0.1:9/", options: [.ignorePath])
        let session = stubber.stubSession()
        _ = try await session.data(from: URL(string: "https://api.test/me")!)
        _ = try? await session.data(from: URL(string: "https://api.test/you")!)
        _ = try? await session.data(from: URL(string: "http://127.0.0.1:9/x")!)
        _ = try await stubber.session().data(from: URL(string: "https://api.test/me")!)

        let journal = stubber.journal
        #expect(journal.map(\.number) == [1, 2, 3, 4])
        #expect(journal.map(\.path) == [.stubSession, .stubSession, .stubSession, .urlSession])
        #expect(journal[0].stub === me)
        #expect(journal[0].decision.plan?.body == Data("mark".utf8))
        #expect(journal[0].completion?.error == nil)
        #expect(journal[1].isUnmatched)
        #expect((journal[1].completion?.error as? HTTPStubberError)?.code == .unmatchedRequest)
        guard case .passThrough(.ignored) = journal[2].decision else {
            Issue.record("expected a pass-through, got \(journal[2])")
            return
        }
        #expect(journal[2].completion?.error != nil, "port 9 is closed")
        #expect(journal[3].completion != nil)
        #expect(journal.allSatisfy { ($0.completion?.duration ?? .seconds(-1)) >= .zero })
        #expect(stubber.receivedCount == 4)
        #expect(stubber.unmatchedCount == 1)
        #expect(stubber.hitCount(of: me) == 2)
        #expect(stubber.unmatchedRequests.map(\.number) == [2])
    }

    @Test(arguments: [false, true])
    func theJournalRecordsWhatTheCallerReceived(stubSession: Bool) async throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(status: 201, body: Data("from the network".utf8)) }
        defer { server.stop() }
        let stubber = HTTPStubber()
        stubber.unhandledMode = .optin
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/me").stub(for: .get, body: "mark"))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/old").stub(for: .get) {
                $0.statusCode = .movedPermanently
                $0.headers[.location] = "/me"
            })
        let session: any AsyncURLSessionProtocol = stubSession ? stubber.stubSession() : stubber.session()
        _ = try await session.data(from: URL(string: "https://api.test/old")!)
        _ = try await session.data(from: URL(string: "https://api.test/me")!)  // immediate: URLSession's fast path
        _ = try await session.data(from: server.baseURL.appendingPathComponent("passed"))

        let completions = stubber.journal.map(\.completion)
        #expect(completions.map { $0?.statusCode } == [.movedPermanently, .ok, .ok, .created])
        #expect(completions.map { $0?.bodyByteCount } == [0, 4, 4, 16])
        let passed = try #require(stubber.journal.last).description
        #expect(passed.contains("passed through to the network (opt-in mode); the network answered 201, 16 bytes"))
    }

    @Test func anEntryReadsAsOneLine() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest(name: "create").match(URL: "https://api.test/items").stub(
                for: .post, code: .created, body: "{}"))
        _ = try await stubber.stubSession().data(for: makeRequest("POST", "https://api.test/items"))
        let line = try #require(stubber.journal.first).description
        #expect(
            line.hasPrefix(#"#1 POST https://api.test/items → stub "create" (StuntDoubleTests/JournalTests.swift:"#))
        #expect(line.contains("): 201, 2 bytes; delivered after 0.0"))
    }

    @Test func directDecisionsAreRecordedToo() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get, code: .ok))
        _ = try stubber.response(for: makeRequest("GET", "https://api.test/"))
        #expect(stubber.journal.map(\.path) == [.direct])
        #expect(stubber.journal.first?.completion == nil, "a direct caller delivers nothing")
    }

    @Test func theJournalKeepsTheNewestEntriesAndCountsStayExact() throws {
        let stubber = HTTPStubber(journalCapacity: 3)
        let stub = HTTPStubRequest().stub(for: .get, code: .ok)
        stubber.add(stub: stub)
        for index in 1...5 {
            _ = stubber.plan("GET", "https://api.test/\(index)")
        }
        #expect(stubber.journal.map(\.number) == [3, 4, 5])
        #expect(stubber.journal.map(\.request.url.path) == ["/3", "/4", "/5"])
        #expect(stubber.droppedJournalEntryCount == 2)
        #expect(stubber.receivedCount == 5)
        #expect(stubber.hitCount(of: stub) == 5)
        stubber.journalCapacity = 1
        #expect(stubber.journal.map(\.number) == [5])
        stubber.journalCapacity = -4
        #expect(stubber.journalCapacity == 0)
        _ = stubber.plan("GET", "https://api.test/6")
        #expect(stubber.journal.isEmpty)
        #expect(stubber.receivedCount == 6)
    }

    @Test func clearingTheJournalKeepsStateAndResettingStateKeepsTheJournal() throws {
        let stubber = HTTPStubber()
        let stub = HTTPStubRequest().stub(for: .get, sequence: [.status(500), .status(200)])
        stubber.add(stub: stub)
        _ = stubber.plan("GET", "https://api.test/")
        stubber.clearJournal()
        #expect(stubber.journal.isEmpty)
        #expect(stubber.hitCount(of: stub) == 0)
        #expect(stubber.plan("GET", "https://api.test/")?.response?.statusCode == 200, "the sequence went on")
        stubber.resetState()
        #expect(stubber.journal.count == 1)
        #expect(stubber.plan("GET", "https://api.test/")?.response?.statusCode == 500, "the sequence started over")
    }
}
