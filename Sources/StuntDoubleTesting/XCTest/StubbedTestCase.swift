import StuntDouble
import XCTest

/// An XCTest base class that gives each test its own `HTTPStubber`, current while the test
/// runs, and fails the test for requests that no stub matched.
///
/// ```swift
/// final class ProfileTests: StubbedTestCase {
///     func testShowsTheName() async throws {
///         stubber.add(stub: HTTPStubRequest()
///             .match(URL: "https://api.example.com/me")
///             .stub(for: .get, json: #"{"name": "Mark"}"#))
///         let client = ProfileClient(session: stubber.stubSession())
///         XCTAssertEqual(try await client.name(), "Mark")
///     }
/// }
/// ```
///
/// No `tearDown` to remember: the stubber is new for each test, and goes with it. Tests of different classes
/// (and Swift Testing tests) may run in parallel without seeing each other's stubs.
open class StubbedTestCase: XCTestCase {
    /// This test's stubber: new for each test, and `HTTPStubber.current` while it runs.
    public private(set) var stubber = HTTPStubber()

    /// Whether requests that no stub matched fail the test when it ends; `true` unless overridden.
    open var reportsUnmatchedRequests: Bool {
        true
    }

    /// Runs the test with a new stubber as `HTTPStubber.current`, then fails it for each
    /// request that no stub matched.
    open override func invokeTest() {
        let stubber = HTTPStubber()
        self.stubber = stubber
        stubber.withCurrent {
            super.invokeTest()
        }
        guard reportsUnmatchedRequests else { return }
        for message in UnmatchedRequests.messages(of: stubber, scope: "test \(name)", excluding: nil) {
            XCTFail(message)
        }
    }
}

extension XCTestCase {
    /// A stubber for this test that fails it, when it ends, for requests that no stub matched.
    ///
    /// For test classes that cannot inherit from ``StubbedTestCase``:
    ///
    /// ```swift
    /// func testShowsTheName() async throws {
    ///     let stubber = makeStubber()
    ///     stubber.add(stub: ...)
    ///     let client = ProfileClient(session: stubber.stubSession())
    /// }
    /// ```
    /// Unlike ``StubbedTestCase``, it does not make the stubber `HTTPStubber.current`: hand it
    /// (or its sessions) to the code under test.
    /// - Parameters:
    ///   - unhandledMode: The stubber's mode for unmatched requests; opt-out by default.
    ///   - file: Where failures are reported; leave the default.
    ///   - line: Where failures are reported; leave the default.
    /// - Returns: The stubber.
    public func makeStubber(
        unhandledMode: HTTPStubber.UnhandledMode = .optout, file: StaticString = #filePath, line: UInt = #line
    ) -> HTTPStubber {
        let stubber = HTTPStubber()
        stubber.unhandledMode = unhandledMode
        let name = self.name
        addTeardownBlock {
            for message in UnmatchedRequests.messages(of: stubber, scope: "test \(name)", excluding: nil) {
                XCTFail(message, file: file, line: line)
            }
        }
        return stubber
    }
}
