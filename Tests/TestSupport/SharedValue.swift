import Foundation

/// A value behind a lock, for what tests share with stubs' and sessions' closures.
public final class SharedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    /// Creates the box.
    /// - Parameter value: The first value.
    public init(_ value: Value) {
        stored = value
    }

    /// The value now.
    public var value: Value { lock.withLock { stored } }

    /// Changes the value under the lock.
    /// - Parameter body: The change; what it returns is returned.
    /// - Returns: What `body` returns.
    @discardableResult
    public func update<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&stored) }
    }
}

extension SharedValue where Value == Int {
    /// Adds one.
    /// - Returns: The new value.
    @discardableResult
    public func increment() -> Int {
        update { value in
            value += 1
            return value
        }
    }
}
