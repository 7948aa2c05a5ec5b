import Foundation
import StuntDouble
import StuntDoubleTesting
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.stubbed) struct PerTestTraitTests {
    @Test func theTestsStubberIsCurrent() async throws {
        let stubber = HTTPStubber.current
        #expect(stubber !== HTTPStubber.shared)
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/me").stub(for: .get, body: "mark"))
        #expect(try await HTTPStubSession().text(from: "https://api.test/me") == "mark")
        #expect(try await HTTPStubber.current.session().text(from: "https://api.test/me") == "mark")
    }

    @Test func childTasksShareTheTestsStubber() async throws {
        let stubber = HTTPStubber.current
        async let fromChild = HTTPStubber.current
        let fromGroup = await withTaskGroup(of: ObjectIdentifier.self) { group in
            group.addTask { ObjectIdentifier(HTTPStubber.current) }
            return await group.next()
        }
        #expect(await fromChild === stubber)
        #expect(fromGroup == ObjectIdentifier(stubber))
        let detached = await Task.detached { HTTPStubber.current }.value
        #expect(detached === HTTPStubber.shared, "detached tasks do not inherit task-local values")
    }
}

/// A suite whose tests share one stubber, prepared once. Serialized so that each test's request and its
/// count happen together; whichever test runs second sees what the first did to the shared stubber.
@Suite(
    .serialized,
    .stubbed(scope: .suite) { stubber in
        stubber.add(
            stub: HTTPStubRequest(name: "config").match(URL: "https://api.test/config").stub(for: .get, json: "{}"))
    })
struct PerSuiteTraitTests {
    /// The stubbers the suite's tests saw, kept alive so that no two can share an address.
    static let seen = SharedValue<[HTTPStubber]>([])

    func sharesTheSuitesStubber(adding name: String) async throws {
        let stubber = HTTPStubber.current
        Self.seen.update { $0.append(stubber) }
        #expect(Self.seen.value.allSatisfy { $0 === stubber }, "every test of the suite sees one stubber")
        HTTPStubber.current.add(
            stub: HTTPStubRequest(name: name).match(URL: "https://api.test/\(name)").stub(for: .get, code: .ok))
        _ = try await HTTPStubSession().data(from: URL(string: "https://api.test/config")!)
        let names = Set(stubber.stubs.compactMap(\.name))
        #expect(names.contains("config") && names.contains(name))
        #expect(names.count == Self.seen.value.count + 1, "the stubs the suite's tests added so far, and config")
        #expect(stubber.receivedCount == Self.seen.value.count)
    }

    @Test func first() async throws {
        try await sharesTheSuitesStubber(adding: "first")
    }

    @Test func second() async throws {
        try await sharesTheSuitesStubber(adding: "second")
    }
}

/// A suite whose tests get their own stubber with default stubs; one test asks for different options.
@Suite(
    .stubbed { stubber in
        stubber.add(
            stub: HTTPStubRequest(name: "default").match(URL: "https://api.test/config").stub(for: .get, json: "{}"))
    })
struct NestedTraitTests {
    @Test func theSuitesSetUpPreparesEachTest() {
        #expect(HTTPStubber.current.stubs.map(\.name) == ["default"])
        #expect(HTTPStubber.current.unhandledMode == .optout)
    }

    @Test(
        .stubbed(unhandledMode: .optin) { stubber in
            stubber.add(stub: HTTPStubRequest(name: "own").stub(for: .get, code: .ok))
        })
    func aTestsOwnTraitAddsToTheSuitesSetUp() {
        #expect(HTTPStubber.current.stubs.map(\.name) == ["own", "default"], "the suite's set-up ran first")
        #expect(HTTPStubber.current.unhandledMode == .optin, "the test's own options apply")
    }
}

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
