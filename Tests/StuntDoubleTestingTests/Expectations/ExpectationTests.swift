import Foundation
import StuntDouble
import StuntDoubleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `expect`: verifications that record a test issue at the caller's line.
@Suite(.stubbed) struct ExpectationTests {
    @Test func aMetExpectationRecordsNothing() async throws {
        let me = HTTPStubRequest().match(URL: "https://api.test/me").stub(for: .get, body: "mark")
        HTTPStubber.current.add(stub: me)
        _ = try await HTTPStubSession().data(from: URL(string: "https://api.test/me")!)
        #expect(HTTPStubber.current.expect(me, called: .once))
        #expect(
            HTTPStubber.current.expect(HTTPRequestPattern(.get).match(URL: "https://api.test/me"), called: .atLeast(1)))
        #expect(HTTPStubber.current.expectNoUnmatchedRequests())
    }

    @Test func anUnmetExpectationIsAnIssueAtTheCaller() async throws {
        let login = HTTPStubRequest(name: "login").match(URL: "https://api.test/login").stub(for: .post, code: .ok)
        HTTPStubber.current.add(stub: login)
        let line = #line + 2
        withKnownIssue {
            HTTPStubber.current.expect(login, called: .once)
        } matching: { issue in
            issue.sourceLocation?.line == line && issue.sourceLocation?.fileID == #fileID
                && issue.comments.contains {
                    $0.rawValue.contains(#"stub "login""#) && $0.rawValue.contains("answered 0 requests")
                }
        }
        let patternLine = #line + 2
        withKnownIssue {
            HTTPStubber.current.expect(HTTPRequestPattern(.delete), called: .once)
        } matching: { issue in
            issue.sourceLocation?.line == patternLine
                && issue.comments.contains {
                    $0.rawValue.hasPrefix("0 requests matched DELETE requests; expected exactly once.")
                }
        }
    }

    @Test(.stubbed(reportsUnmatchedRequests: false)) func unmatchedRequestsAsAnIssueAtTheCaller() async throws {
        _ = try? await HTTPStubSession().data(from: URL(string: "https://api.test/nothing")!)
        let line = #line + 2
        withKnownIssue {
            HTTPStubber.current.expectNoUnmatchedRequests()
        } matching: { issue in
            issue.sourceLocation?.line == line
                && issue.comments.contains { $0.rawValue.contains("No stub matched GET https://api.test/nothing") }
        }
    }
}
