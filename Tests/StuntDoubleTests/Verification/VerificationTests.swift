import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `verify`: counts of stubs and of requests matching a pattern, and unmatched requests, with messages that
/// explain a failure from the journal.
@Suite struct VerificationTests {
    func message(_ verification: () throws(HTTPStubberError) -> Void) -> String? {
        do {
            try verification()
            return nil
        } catch {
            #expect(error.code == .verificationFailed)
            return error.message
        }
    }

    @Test func stubCounts() async throws {
        let stubber = HTTPStubber()
        let me = HTTPStubRequest(name: "me").match(URL: "https://api.test/me").stub(for: .get, body: "mark")
        stubber.add(stub: me)
        let session = stubber.stubSession()
        for _ in 0..<2 {
            _ = try await session.data(from: URL(string: "https://api.test/me")!)
        }
        try stubber.verify(me, called: .twice)
        try stubber.verify(me, called: .atLeast(1))
        try stubber.verify(me, called: .atMost(2))
        try stubber.verify(me, called: .between(2...3))
        let tooMany = try #require(message { () throws(HTTPStubberError) in try stubber.verify(me, called: .once) })
        #expect(tooMany.hasPrefix(#"stub "me" (StuntDoubleTests/VerificationTests.swift:"#))
        #expect(tooMany.contains("answered 2 requests; expected exactly once."))
        #expect(tooMany.contains("Requests it answered (2 in the journal):\n  #1 GET https://api.test/me"))
    }

    @Test func tooFewCallsShowTheClosestRequestsAndWhatDiffered() async throws {
        let stubber = HTTPStubber()
        let login = HTTPStubRequest(name: "login").match(URL: "https://api.test/login").match(
            json: #"{"user": "mark"}"#
        )
        .stub(for: .post, code: .ok)
        stubber.add(stub: login)
        stubber.add(stub: HTTPStubRequest(name: "anything").stub(for: .post, code: .ok))
        _ = try await stubber.stubSession()
            .data(for: makeRequest("POST", "https://api.test/login", body: Data(#"{"user": "anna"}"#.utf8)))
        let text = try #require(message { () throws(HTTPStubberError) in try stubber.verify(login, called: .once) })
        #expect(text.contains(#"stub "login" ("#) && text.contains("answered 0 requests; expected exactly once."))
        #expect(text.contains(#"Closest requests to stub "login""#))
        #expect(text.contains("#1 POST https://api.test/login: 1 of 3 checks failed"))
        #expect(text.contains(#"✗ body is JSON {"user":"mark"}"#))
        #expect(text.contains(#"$.user: expected "mark", found "anna""#))
        #expect(text.contains("Journal (1 request):\n  #1 POST https://api.test/login → stub \"anything\""))
    }

    @Test func aStubOfAnotherStubberIsNamedAsSuch() throws {
        let stubber = HTTPStubber()
        let elsewhere = HTTPStubRequest().stub(for: .get, code: .ok)
        let text = try #require(message { () throws(HTTPStubberError) in try stubber.verify(elsewhere, called: .once) })
        #expect(text.contains("The stub is not in this stubber"))
    }

    @Test func requestPatterns() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .post, code: .created))
        let session = stubber.stubSession()
        _ = try await session.data(
            for: makeRequest(
                "POST", "https://api.test/orders", headers: ["Content-Type": "application/json"],
                body: Data(#"{"item": "book", "count": 2}"#.utf8)))
        let order = HTTPRequestPattern(.post).match(URL: "https://api.test/orders")
            .match(json: #"{"count": 2, "item": "book"}"#).match(header: .contentType, value: "application/json")
        try stubber.verify(order, called: .once)
        try stubber.verify(HTTPRequestPattern(.get), called: .never)

        let signed = HTTPRequestPattern(.post).match(URL: "https://api.test/orders").match(header: .authorization)
        let text = try #require(message { () throws(HTTPStubberError) in try stubber.verify(signed, called: .once) })
        #expect(
            text.hasPrefix(
                "0 requests matched POST requests where URL is https://api.test/orders and header Authorization is present; expected exactly once."
            ))
        #expect(text.contains("#1 POST https://api.test/orders: 1 of 3 checks failed"))
        #expect(
            text.contains(
                "✗ header Authorization is present\n        expected: present\n        actual:   (no Authorization header)"
            ))
    }

    @Test func unmatchedRequests() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest(name: "users").match(URI: "https://api.test/users/{id}").stub(for: .get, code: .ok))
        try stubber.verifyNoUnmatchedRequests()
        _ = try? await stubber.stubSession().data(from: URL(string: "https://api.test/user/7")!)
        let text = try #require(message { () throws(HTTPStubberError) in try stubber.verifyNoUnmatchedRequests() })
        #expect(text.hasPrefix("1 request matched no stub:\n\n#1 No stub matched GET https://api.test/user/7"))
        #expect(text.contains(#"1. stub "users""#))
    }

    @Test func invalidCountsAndPatternsAreErrorsNotAnswers() throws {
        let stubber = HTTPStubber()
        let stub = HTTPStubRequest().stub(for: .get, code: .ok)
        let negative = try #require(
            message { () throws(HTTPStubberError) in try stubber.verify(stub, called: .exactly(-1)) })
        #expect(negative.contains("negative count"))
        let broken = HTTPRequestPattern().match(URI: "https://api.test/{unclosed")
        let text = try #require(message { () throws(HTTPStubberError) in try stubber.verify(broken, called: .never) })
        #expect(text.contains("can never match"))
    }

    @Test(arguments: [
        (HTTPCallCount.never, "never"), (.once, "exactly once"), (.exactly(3), "exactly 3 times"),
        (.atLeast(1), "at least once"), (.atMost(2), "at most twice"), (.between(2...4), "between 2 and 4 times"),
    ])
    func countsReadAsEnglish(_ count: HTTPCallCount, _ text: String) {
        #expect(count.description == text)
    }
}

extension HTTPCallCount {
    static let twice = exactly(2)
}
