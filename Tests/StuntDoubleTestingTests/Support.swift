import Foundation
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A value behind a lock, for what `@Sendable` closures collect.
final class Collected<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value { lock.withLock { stored } }

    func update(_ body: (inout Value) -> Void) {
        lock.withLock { body(&stored) }
    }
}

extension AsyncURLSessionProtocol {
    /// The body of a GET, as text.
    func text(from url: String) async throws -> String {
        String(decoding: try await data(from: URL(string: url)!).0, as: UTF8.self)
    }
}
