extension HTTPStubber {
    /// The stubber of the current scope: task-local, so that each test sees its own.
    static let scope = TaskLocal<HTTPStubber?>(wrappedValue: nil)

    /// The stubber of the current test: the one a `.stubbed` trait (StuntDoubleTesting), a
    /// `StubbedTestCase`, or ``withCurrent(isolation:_:)-(_,()->Result)`` made current for the running task and
    /// its child tasks; ``shared`` outside any such scope.
    ///
    /// Sessions made inside the scope with ``stubSession(configuration:delegateQueue:)`` or
    /// ``session(configuration:delegate:delegateQueue:)`` of the current stubber, or with
    /// ``HTTPStubSession/init(stubber:configuration:delegateQueue:)`` and its default stubber, keep answering
    /// from it, even from other threads.
    ///
    /// Task-local values reach child tasks (`async let`, task groups, `Task { }`) but not detached tasks nor
    /// Dispatch queues: read `current` where the test runs and hand the stubber (or its sessions) on.
    public static var current: HTTPStubber {
        scope.get() ?? shared
    }

    /// Makes this stubber ``current`` while an operation runs (and in the child tasks it creates).
    ///
    /// ```swift
    /// let stubber = HTTPStubber()
    /// try await stubber.withCurrent {
    ///     try await runTheScenario()   // HTTPStubber.current is `stubber` in here
    /// }
    /// ```
    /// - Parameters:
    ///   - isolation: The caller's actor; leave the default.
    ///   - operation: The operation.
    /// - Returns: What the operation returns.
    /// - Throws: What the operation throws.
    public func withCurrent<Result>(
        isolation: isolated (any Actor)? = #isolation, _ operation: () async throws -> Result
    ) async rethrows -> Result {
        try await Self.scope.withValue(self, operation: operation)
    }

    /// Makes this stubber ``current`` while a synchronous operation runs.
    /// - Parameter operation: The operation.
    /// - Returns: What the operation returns.
    /// - Throws: What the operation throws.
    public func withCurrent<Result>(_ operation: () throws -> Result) rethrows -> Result {
        try Self.scope.withValue(self, operation: operation)
    }
}
