import Foundation

#if canImport(Darwin)
/// Mutable state behind a lock: the one place where StuntDouble keeps shared mutable state.
///
/// On Apple platforms an `NSLock` (`Synchronization.Mutex` would need macOS 15 / iOS 18). Never call user
/// code while holding the lock.
package struct Locked<Value: Sendable>: @unchecked Sendable {
    private final class Box {
        let lock = NSLock()
        var value: Value

        init(_ value: Value) {
            self.value = value
        }
    }

    private let box: Box

    package init(_ value: Value) {
        box = Box(value)
    }

    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        box.lock.lock()
        defer { box.lock.unlock() }
        return try body(&box.value)
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
/// `NSLock` costs two more, and every cold object is a cache miss on the request path; a struct around it, not a
/// class, saves another), and a lock that
/// ThreadSanitizer understands (it reports false races on `Synchronization.Mutex`, whose futex calls it does
/// not see). Never call user code while holding the lock.
package struct Locked<Value: Sendable>: @unchecked Sendable {
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
