import Foundation
import StuntDouble
import TestSupport
import Testing

@Suite struct PrecedenceTests {
    let url = "https://api.example.com/feed"

    func stub(_ body: String, priority: Int = 0) -> HTTPStubRequest {
        HTTPStubRequest(name: body, priority: priority).match(URL: url).stub(for: .get, body: body)
    }

    @Test func theMostRecentlyAddedStubWins() {
        let stubber = HTTPStubber()
        stubber.add(stub: stub("suite default"))
        #expect(stubber.bodyText("GET", url) == "suite default")
        stubber.add(stub: stub("test override"))
        #expect(stubber.bodyText("GET", url) == "test override")
    }

    @Test func priorityWinsOverRecency() {
        let stubber = HTTPStubber()
        stubber.add(stub: stub("important", priority: 10))
        stubber.add(stub: stub("newer"))
        #expect(stubber.bodyText("GET", url) == "important")
        #expect(stubber.stubs.map(\.name) == ["important", "newer"])
    }

    @Test func precedenceHoldsAcrossKindsOfMatchers() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "https://api.example.com/{resource}").stub(for: .get, body: "template"))
        stubber.add(stub: try HTTPStubRequest().match(urlRegex: "feed$").stub(for: .get, body: "regex"))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.example.com/", options: .ignorePath).stub(
                for: .get, body: "host"))
        #expect(stubber.bodyText("GET", url) == "host")
        stubber.add(stub: HTTPStubRequest().match(URL: url).stub(for: .get, body: "exact"))
        #expect(stubber.bodyText("GET", url) == "exact")
        stubber.add(stub: HTTPStubRequest().match({ _, _ in true }).stub(for: .get, body: "closure"))
        #expect(stubber.bodyText("GET", url) == "closure")
        stubber.add(
            stub: HTTPStubRequest(priority: 1).match(URI: "/{path}").stub(for: .get, body: "prioritized template"))
        #expect(stubber.bodyText("GET", url) == "prioritized template")
    }

    @Test func addingAStubAgainMovesItToTheFront() {
        let stubber = HTTPStubber()
        let first = stub("first")
        stubber.add(stub: first)
        stubber.add(stub: stub("second"))
        stubber.add(stub: first)
        #expect(stubber.bodyText("GET", url) == "first")
        #expect(stubber.stubs.count == 2)
    }

    @Test func removingAStubRemovesThatStubOnly() {
        let stubber = HTTPStubber()
        let original = stub("same")
        let lookalike = stub("same")
        stubber.add(stub: original)
        stubber.add(stub: lookalike)
        stubber.remove(stub: original)
        #expect(stubber.stubs.count == 1)
        #expect(stubber.stubs.first === lookalike)
        #expect(stubber.bodyText("GET", url) == "same")
        stubber.remove(stub: original)
        #expect(stubber.stubs.count == 1, "removing a stub twice changes nothing")
        stubber.remove(stub: lookalike)
        #expect(stubber.plan("GET", url) == nil)
    }

    @Test func aStubMatchesOnlyMethodsItAnswers() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: url).stub(for: .get, body: "get").stub(for: .delete, code: .noContent))
        stubber.add(stub: HTTPStubRequest().match(URL: url).stub(for: .post, code: .created))
        #expect(stubber.bodyText("GET", url) == "get", "the newer stub has no GET response, so the older one answers")
        #expect(stubber.plan("POST", url)?.response?.statusCode == .created)
        #expect(stubber.plan("DELETE", url)?.response?.statusCode == .noContent)
        #expect(stubber.plan("PUT", url) == nil)
        #expect(stubber.plan("delete", url)?.response?.statusCode == .noContent, "method names ignore case")
    }

    @Test(arguments: [HTTPStubber.UnhandledMode.optout, .optin])
    func anIgnoreRuleWinsOverEveryStub(_ mode: HTTPStubber.UnhandledMode) throws {
        let stubber = HTTPStubber()
        stubber.unhandledMode = mode
        let catchAll = try HTTPStubRequest().match(urlRegex: "(?s).*").stub(for: .get, body: "caught")
        catchAll.priority = 1_000
        stubber.add(stub: catchAll)
        stubber.add(ignoreURL: "https://api.example.com", options: [.ignorePath, .ignoreQueryParameters])
        stubber.add(stub: stub("stubbed"))  // exactly this URL, added after the rule

        for target in [url, "https://api.example.com/other?x=1"] {
            guard case .passThrough(.ignored(let rule)) = try stubber.decision(for: makeRequest("GET", target)) else {
                Issue.record("the ignore rule should let \(target) through in \(mode) mode")
                continue
            }
            #expect(rule === stubber.ignoreRules.first)
        }
        #expect(stubber.bodyText("GET", "https://other.example.com/") == "caught", "rules only cover what they match")
        #expect(stubber.hitCount(of: catchAll) == 1)
        let entry = try #require(stubber.journal.first)
        #expect(entry.description.contains("to the network (ignore rule: URL is https://api.example.com"))

        let rule = try #require(stubber.ignoreRules.first)
        stubber.remove(ignoreRule: rule)
        #expect(stubber.bodyText("GET", url) == "caught", "without the rule, the stubs answer again, by priority")
    }

    @Test func theErrorOfAnIgnoredRequestNamesTheRule() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: try HTTPStubRequest().match(urlRegex: "(?s).*").stub(for: .get, body: "caught"))
        stubber.add(ignoreRule: try HTTPStubIgnoreRule().match(urlRegex: "^https://telemetry\\."))
        #expect {
            try stubber.response(for: makeRequest("GET", "https://telemetry.example.com/ping"))
        } throws: { error in
            let error = error as? HTTPStubberError
            return error?.code == .notStubbed && error?.message.contains("lets it through") == true
                && error?.message.contains("telemetry") == true
        }
    }

    @Test func aStubWithoutMatchersMatchesEveryURL() {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get, body: "anything"))
        #expect(stubber.bodyText("GET", "https://a.test/x") == "anything")
        #expect(stubber.bodyText("GET", "http://b.test:81/y?z") == "anything")
    }
}
