import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A regular expression that backtracks catastrophically (`(a+)+b` on `aaaa...!`) must not stall matching: it is
/// stopped within a budget of work, and the request fails naming the stub, rather than taking seconds (28 `a`s:
/// 4 s; 40: hours) or being answered by a stub that only comes after it.
@Suite struct RegexBudgetTests {
    static let pathological = "/r/" + String(repeating: "a", count: 40) + "!"

    @Test func aBacktrackingURLRegexIsStoppedAndNamed() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest(name: "fallback").stub(for: .get, body: "fallback"))
        stubber.add(stub: try HTTPStubRequest(name: "greedy").match(urlRegex: "/r/(a+)+b").stub(for: .get, body: "b"))
        let start = ContinuousClock.now
        let decision = try stubber.decision(for: URLRequest(url: URL(string: "https://a.test" + Self.pathological)!))
        // Without the budget: hours. With it: milliseconds (a generous bound for a loaded machine).
        #expect(ContinuousClock.now - start < .seconds(10))
        let report = try #require(decision.report, "not answered by the fallback in the greedy stub's place")
        let stopped = try #require(report.stoppedMatchers.first)
        #expect(stopped.stub.name == "greedy")
        #expect(stopped.reason.contains("/r/(a+)+b"), "\(stopped.reason)")
        #expect(report.description.contains(#"because matching stub "greedy""#), "\(report.description)")
        // Requests the expression answers quickly are matched as usual.
        let plan = try stubber.response(for: URLRequest(url: URL(string: "https://a.test/r/aaab")!))
        #expect(plan.stub.name == "greedy")
        let other = try stubber.response(for: URLRequest(url: URL(string: "https://a.test/other")!))
        #expect(other.stub.name == "fallback")
    }

    @Test func aStopDoesNotLeakIntoTheNextRequest() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: try HTTPStubRequest().match(urlRegex: "/r/(a+)+b").stub(for: .get, body: "b"))
        stubber.add(stub: HTTPStubRequest().match(URL: "https://a.test/ok").stub(for: .get, body: "ok"))
        _ = try stubber.decision(for: URLRequest(url: URL(string: "https://a.test" + Self.pathological)!))
        #expect(try stubber.response(for: URLRequest(url: URL(string: "https://a.test/ok")!)).body == Data("ok".utf8))
    }
}
