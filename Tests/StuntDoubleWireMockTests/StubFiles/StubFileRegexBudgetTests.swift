import Foundation
import StuntDouble
import StuntDoubleWireMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Patterns in stub files (`urlPathPattern`, `doesNotMatch`) run on the same budget of work as the core's
/// regular-expression matchers: a catastrophic one is stopped, and the request fails naming the stub.
@Suite struct StubFileRegexBudgetTests {
    static let pathological = "/r/" + String(repeating: "a", count: 40) + "!"

    @Test func aStubFilePatternIsStoppedToo() throws {
        let root = try StubRoot([
            "mappings/slow.json": #"{"request": {"urlPathPattern": "/r/(a+)+b"}, "response": {"body": "b"}}"#,
            "mappings/header.json":
                #"{"priority": 1, "request": {"urlPath": "/h", "headers": {"X-Id": {"doesNotMatch": "(a+)+b"}}}, "response": {"body": "h"}}"#,
        ])
        let stubber = try root.stubber()
        let decision = try stubber.decision(for: URLRequest(url: URL(string: "https://a.test" + Self.pathological)!))
        #expect(decision.report?.stoppedMatchers.count == 1)
        // doesNotMatch: a stopped expression must not count as "does not match", which would answer.
        var request = URLRequest(url: URL(string: "https://a.test/h")!)
        request.setValue(String(repeating: "a", count: 40) + "!", forHTTPHeaderField: "X-Id")
        let header = try stubber.decision(for: request)
        #expect(header.plan == nil)
        #expect(header.report?.stoppedMatchers.first?.reason.contains("(a+)+b") == true)
        request.setValue("fine", forHTTPHeaderField: "X-Id")
        #expect(try stubber.decision(for: request).plan != nil)
    }
}
