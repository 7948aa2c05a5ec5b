import Foundation

#if canImport(Darwin)
/// Mutable state behind a lock: the one place where StuntDouble keeps shared mutable state.
///
/// On Apple platforms an `NSLock` (`Synchronization.Mutex` would need macOS 15 / iOS 18). Never call user
/// code while holding the lock.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
#else
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Mutable state behind a lock: the one place where StuntDouble keeps shared mutable state.
///
/// Elsewhere a `pthread_mutex_t` stored in the same allocation as the value: one allocation per lock (an
/// `NSLock` costs two more, and every cold object is a cache miss on the request path), and a lock that
/// ThreadSanitizer understands (it reports false races on `Synchronization.Mutex`, whose futex calls it does
/// not see). Never call user code while holding the lock.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private let buffer: Buffer

    private final class Buffer: ManagedBuffer<Value, pthread_mutex_t> {
        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    package init(_ value: Value) {
        let created = Buffer.create(minimumCapacity: 1) { _ in value }
        buffer = unsafeDowncast(created, to: Buffer.self)
        buffer.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            _ = pthread_mutex_init(mutex, nil)
        }
    }

    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try buffer.withUnsafeMutablePointers { (value, mutex) throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}
#endif

extension Locked {
    /// A copy of the current value.
    var current: Value {
        withLock { $0 }
    }
}
