import Foundation
import StuntDouble
import StuntDoubleTesting
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct TraitBehaviourTests {
    @Test func theSetUpPreparesTheStubberAndTheModeApplies() async throws {
        let test = try #require(Test.current)
        let trait = StubberTrait.stubbed(unhandledMode: .optin) { stubber in
            stubber.add(stub: HTTPStubRequest(name: "default").stub(for: .get, code: .ok))
        }
        let seen = SharedValue<[String?]>([])
        try await trait.provideScope(for: test, testCase: nil) {
            seen.update { $0 = HTTPStubber.current.stubs.map(\.name) }
            #expect(HTTPStubber.current.unhandledMode == .optin)
        }
        #expect(seen.value == ["default"])
        #expect(HTTPStubber.current === HTTPStubber.shared, "the scope ended")
    }

    @Test func unmatchedRequestsAreRecordedWhenTheScopeEnds() async throws {
        let test = try #require(Test.current)
        let reports = SharedValue<[String]>([])
        try await withKnownIssue {
            try await StubberTrait.stubbed.provideScope(for: test, testCase: nil) {
                HTTPStubber.current.add(
                    stub: HTTPStubRequest(name: "users").match(URL: "https://api.test/users").stub(for: .get, code: .ok)
                )
                // The code under test swallows the error, as apps do; the report still reaches the test.
                _ = try? await HTTPStubSession().data(from: URL(string: "https://api.test/user")!)
            }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            reports.update { $0.append(text) }
            return text.contains("Request #1 of test \(test.name) matched no stub")
                && text.contains("No stub matched GET https://api.test/user") && text.contains(#"1. stub "users""#)
        }
        #expect(reports.value.count == 1)
    }

    @Test func anUnmatchedErrorTheTestThrowsIsNotReportedTwice() async throws {
        let test = try #require(Test.current)
        let issues = SharedValue(0)
        try await withKnownIssue {
            try await StubberTrait.stubbed.provideScope(for: test, testCase: nil) {
                _ = try await HTTPStubSession().data(from: URL(string: "https://api.test/nothing")!)
            }
        } matching: { issue in
            issues.update { $0 += 1 }
            return true
        }
        #expect(issues.value == 1, "the thrown error only")
    }

    @Test func reportingUnmatchedRequestsCanBeTurnedOff() async throws {
        let test = try #require(Test.current)
        try await StubberTrait.stubbed(reportsUnmatchedRequests: false).provideScope(for: test, testCase: nil) {
            _ = try? await HTTPStubSession().data(from: URL(string: "https://api.test/nothing")!)
            #expect(HTTPStubber.current.unmatchedCount == 1)
        }
    }

    @Test func scopesAreMadeWhereTheScopeSays() throws {
        let test = try #require(Test.current)
        #expect(StubberTrait.stubbed.isRecursive)
        #expect(!StubberTrait.stubbed(scope: .suite).isRecursive)
        #expect(StubberTrait.stubbed.scopeProvider(for: test, testCase: nil) == nil, "per test case, not per function")
        #expect(StubberTrait.stubbed(scope: .suite).scopeProvider(for: test, testCase: nil) != nil)
    }
}
