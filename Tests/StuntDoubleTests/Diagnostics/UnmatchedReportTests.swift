import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct UnmatchedReportTests {
    func report(_ stubber: HTTPStubber, _ request: URLRequest) throws -> HTTPUnmatchedRequestReport {
        try #require(try stubber.decision(for: request).report)
    }

    @Test func ranksTheClosestStubsAndSaysWhatDiffered() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest(name: "unrelated").match(URL: "https://cdn.other.org/logo.png").stub(
                for: .get, code: .ok))
        stubber.add(
            stub: HTTPStubRequest(name: "create user")
                .match(URL: "https://api.example.com/users")
                .match(header: .authorization)
                .match(json: #"{"name": "Mark", "role": "admin"}"#)
                .stub(for: .post, code: .created))
        stubber.add(
            stub: HTTPStubRequest(name: "list users").match(URL: "https://api.example.com/users").stub(
                for: .get, code: .ok))

        let request = makeRequest(
            "POST", "https://api.example.com/users", headers: ["Content-Type": "application/json"],
            body: Data(#"{"name": "Mark", "role": "user"}"#.utf8))
        let report = try report(stubber, request)

        #expect(report.stubCount == 3)
        #expect(report.candidates.map { $0.stub.name } == ["create user", "list users", "unrelated"])
        let closest = try #require(report.candidates.first)
        #expect(closest.checks.count == 4, "the method, then each matcher")
        #expect(
            closest.failedChecks.map(\.matcher) == [
                "header Authorization is present", #"body is JSON {"name":"Mark","role":"admin"}"#,
            ])
        let json = try #require(closest.failedChecks.last)
        #expect(json.note == #"$.role: expected "admin", found "user""#)
        let header = try #require(closest.failedChecks.first)
        #expect(header.expected == "present")
        #expect(header.actual == "(no Authorization header)")
        let method = try #require(report.candidates[1].failedChecks.first)
        #expect(method.matcher == "method POST has a response")
        #expect(method.expected == "GET")

        let text = report.description
        #expect(text.hasPrefix("No stub matched POST https://api.example.com/users"))
        #expect(text.contains("headers: Content-Type: application/json"))
        #expect(text.contains(#"body: "{"name": "Mark", "role": "user"}""#))
        #expect(text.contains("Closest stubs (3 of 3):"))
        #expect(text.contains(#"1. stub "create user" (StuntDoubleTests/UnmatchedReportTests.swift:"#))
        #expect(text.contains("2 of 4 checks failed"))
        #expect(text.contains("✗ header Authorization is present"))
        #expect(text.contains("actual:   (no Authorization header)"))
        #expect(text.contains("✓ URL is https://api.example.com/users"))
        #expect(text.contains("unhandledMode = .optin"))
    }

    @Test func saysWhenThereAreNoStubs() throws {
        let report = try report(HTTPStubber(), makeRequest("GET", "https://a.test/"))
        #expect(report.candidates.isEmpty)
        #expect(report.description.contains("The stubber holds no stubs."))
    }

    @Test func showsTemplateAndURLDifferences() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "https://api.example.com/users/{id}").stub(for: .get, code: .ok))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.example.com/user/42?full=1").stub(for: .get, code: .ok))
        let report = try report(stubber, makeRequest("GET", "https://api.example.com/user/42"))
        let checks = report.candidates.flatMap(\.failedChecks)
        let url = try #require(checks.first { $0.matcher.hasPrefix("URL is") })
        #expect(url.expected == "https://api.example.com/user/42?full=1")
        #expect(url.actual == "https://api.example.com/user/42")
        let template = try #require(checks.first { $0.matcher.hasPrefix("URL matches template") })
        #expect(template.expected == "https://api.example.com/users/{id}")
        #expect(template.actual == "https://api.example.com/user/42")
        #expect(report.candidates.first?.stub.matchers.first is HTTPStubURLMatcher, "the URL differs least")
    }

    @Test func listsStubsThatCanNeverMatchAndFailsClosed() throws {
        let stubber = HTTPStubber()
        stubber.unhandledMode = .optin
        stubber.add(stub: HTTPStubRequest().match(URI: "https://api.example.com/{id").stub(for: .get, code: .ok))
        let decision = try stubber.decision(for: makeRequest("GET", "https://api.example.com/1"))
        let report = try #require(decision.report, "an invalid stub must not let requests pass through unnoticed")
        #expect(report.problems.map(\.code) == [.invalidURITemplate])
        #expect(report.description.contains("Stubs or ignore rules that can never match"))
        #expect(report.description.contains("Invalid URI template \"https://api.example.com/{id\""))
    }

    @Test func listsIgnoreRulesThatCanNeverMatch() throws {
        let stubber = HTTPStubber()
        stubber.add(ignoreURL: "www.apple.com", options: [.ignorePath])
        let report = try #require(try stubber.decision(for: makeRequest("GET", "https://www.apple.com/")).report)
        #expect(report.problems.map(\.code) == [.invalidURL])
        #expect(report.description.contains("\"www.apple.com\" is not usable"))
        #expect(stubber.ignoreRules.first?.problems.count == 1)
    }

    @Test func responseForThrowsTheReport() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: "https://a.test/x").stub(for: .get, code: .ok))
        do {
            _ = try stubber.response(for: makeRequest("GET", "https://a.test/y"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unmatchedRequest)
            #expect(error.report?.request.url.absoluteString == "https://a.test/y")
            #expect(error.message == error.report?.description)
            #expect(error.localizedDescription == error.message)
        }

        stubber.add(ignoreURL: "https://a.test/y")
        do {
            _ = try stubber.response(for: makeRequest("GET", "https://a.test/y"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .notStubbed)
            #expect(error.message.contains("ignore rule: URL is https://a.test/y lets it through"))
        }
    }

    @Test func requestsWithoutAUsableURLAreRejected() {
        var request = makeRequest("GET", "https://a.test/")
        request.url = nil
        #expect(throws: HTTPStubberError.self) { try HTTPStubber().decision(for: request) }
        request.url = URL(string: "/relative/path")
        #expect {
            try HTTPStubber().decision(for: request)
        } throws: { error in
            (error as? HTTPStubberError)?.message.contains("is not absolute") == true
        }
    }

    @Test func largeStubbersStillRankTheClosest() throws {
        let stubber = HTTPStubber()
        for index in 0..<2_000 {
            stubber.add(
                stub: HTTPStubRequest().match(URL: "https://api.example.com/items/\(index)").stub(for: .get, code: .ok))
        }
        let report = try report(stubber, makeRequest("POST", "https://api.example.com/items/1234"))
        #expect(report.stubCount == 2_000)
        #expect(
            report.candidates.first?.stub.matchers.first.map { "\($0)" } == "URL is https://api.example.com/items/1234")
    }
}
