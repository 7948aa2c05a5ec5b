import StuntDouble
import Testing

/// A Swift Testing trait that gives each test (or each suite) its own `HTTPStubber`, current
/// for the test's task and its child tasks.
///
/// ```swift
/// @Suite(.stubbed) struct ProfileTests {
///     @Test func showsTheName() async throws {
///         HTTPStubber.current.add(stub: HTTPStubRequest()
///             .match(URL: "https://api.example.com/me")
///             .stub(for: .get, json: #"{"name": "Mark"}"#))
///         let client = ProfileClient(session: HTTPStubSession())   // answers from this test's stubber
///         #expect(try await client.name() == "Mark")
///     }
/// }
/// ```
///
/// Tests run in parallel and never see each other's stubs, journal, sequences or scenarios. When the scope
/// ends, every request that no stub matched is recorded as an issue with its report (unless the test threw
/// that request's error itself), so that a request the code under test swallowed still explains the failure.
///
/// A `.stubbed` trait inside another (on a test of a `.stubbed { ... }` suite, say) gives the test a new
/// stubber of its own, with its own options, prepared by the enclosing traits' set-up closures first, then by
/// its own.
public struct StubberTrait: TestTrait, SuiteTrait, TestScoping {
    /// What shares one stubber.
    public enum Scope: Hashable, Sendable {
        /// Each test (each case of a parameterized test) gets its own stubber. On a suite, every test in it.
        case test
        /// The tests of the suite (or the cases of the parameterized test) share one stubber: its stubs, its
        /// journal, its sequences and scenarios. They may still run in parallel with each other.
        case suite
    }

    /// What shares one stubber.
    public let scope: Scope
    /// The new stubber's mode for unmatched requests.
    public let unhandledMode: HTTPStubber.UnhandledMode
    /// Whether unmatched requests are recorded as issues when the scope ends.
    public let reportsUnmatchedRequests: Bool
    private let setUp: SetUp?

    /// Closures live in a struct, so that the trait stays a plain value.
    private struct SetUp: Sendable {
        let run: @Sendable (HTTPStubber) async throws -> Void
    }

    /// The set-ups of the `.stubbed` traits around the running one, outermost first, which a nested trait's
    /// new stubber runs before its own.
    private static let enclosingSetUps = TaskLocal<[SetUp]>(wrappedValue: [])

    init(
        scope: Scope, unhandledMode: HTTPStubber.UnhandledMode, reportsUnmatchedRequests: Bool,
        setUp: (@Sendable (HTTPStubber) async throws -> Void)?
    ) {
        self.scope = scope
        self.unhandledMode = unhandledMode
        self.reportsUnmatchedRequests = reportsUnmatchedRequests
        self.setUp = setUp.map(SetUp.init(run:))
    }

    /// On a suite, whether its tests inherit the trait: they do for ``Scope/test``.
    public var isRecursive: Bool {
        scope == .test
    }

    /// The trait itself where it makes a scope: each test case for ``Scope/test``, the suite (or the whole
    /// parameterized test) for ``Scope/suite``.
    /// - Parameters:
    ///   - test: The test or suite.
    ///   - testCase: The test case, or `nil` for a suite or a whole test function.
    /// - Returns: The trait, or `nil` where it makes no scope.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> StubberTrait? {
        if test.isSuite {
            return scope == .suite ? self : nil
        }
        switch scope {
        case .test: return testCase == nil ? nil : self
        case .suite: return testCase == nil ? self : nil
        }
    }

    /// Runs the test (or suite) with a new stubber as `HTTPStubber.current`, then records its
    /// unmatched requests.
    /// - Parameters:
    ///   - test: The test or suite.
    ///   - testCase: The test case, if any.
    ///   - function: The test, or the suite's tests.
    /// - Throws: What the test or the set-up throws.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let stubber = HTTPStubber()
        stubber.unhandledMode = unhandledMode
        let setUps = Self.enclosingSetUps.get() + (setUp.map { [$0] } ?? [])
        try await Self.enclosingSetUps.withValue(setUps) {
            try await stubber.withCurrent {
                for setUp in setUps {
                    try await setUp.run(stubber)
                }
                try await run(function, for: test, with: stubber)
            }
        }
    }

    /// Runs the test, then records the stubber's unmatched requests.
    private func run(
        _ function: @Sendable () async throws -> Void, for test: Test, with stubber: HTTPStubber
    ) async throws {
        var thrown: (any Error)?
        do {
            try await function()
        } catch {
            thrown = error
        }
        if reportsUnmatchedRequests {
            let name = test.isSuite ? "suite \(test.name)" : "test \(test.name)"
            for message in UnmatchedRequests.messages(of: stubber, scope: name, excluding: thrown) {
                Issue.record(Comment(rawValue: message), sourceLocation: test.sourceLocation)
            }
        }
        if let thrown {
            throw thrown
        }
    }
}

extension Trait where Self == StubberTrait {
    /// Each test gets its own stubber, current while it runs; unmatched requests are recorded as issues.
    public static var stubbed: StubberTrait {
        StubberTrait(scope: .test, unhandledMode: .optout, reportsUnmatchedRequests: true, setUp: nil)
    }

    /// Each test (or the whole suite) gets its own stubber, current while it runs, prepared by a closure.
    ///
    /// ```swift
    /// @Suite(.stubbed { stubber in
    ///     stubber.add(stub: HTTPStubRequest().match(URL: "https://api.example.com/config").stub(for: .get, json: "{}"))
    /// })
    /// struct CheckoutTests { ... }
    /// ```
    /// - Parameters:
    ///   - scope: What shares one stubber; each test by default.
    ///   - unhandledMode: The stubber's mode for unmatched requests; `.optout`
    ///     by default.
    ///   - reportsUnmatchedRequests: Whether unmatched requests are recorded as issues when the scope ends.
    ///   - setUp: Prepares each new stubber (adds the suite's default stubs, say) before the test runs.
    /// - Returns: The trait.
    public static func stubbed(
        scope: StubberTrait.Scope = .test, unhandledMode: HTTPStubber.UnhandledMode = .optout,
        reportsUnmatchedRequests: Bool = true, setUp: (@Sendable (HTTPStubber) async throws -> Void)? = nil
    ) -> StubberTrait {
        StubberTrait(
            scope: scope, unhandledMode: unhandledMode, reportsUnmatchedRequests: reportsUnmatchedRequests,
            setUp: setUp)
    }
}
