import Foundation

/// How a contract answers requests with no stub of their own.
public struct OpenAPIAnswering: Sendable, Hashable {
    /// The seed of generated values: the same seed, the same answers.
    public var seed: UInt64
    /// Whether values are generated at random for every request (Prism's `--dynamic`); a request can ask for
    /// either with `Prefer: dynamic=true|false`.
    public var isDynamic: Bool

    /// Creates answering settings.
    /// - Parameters:
    ///   - seed: The seed of generated values.
    ///   - isDynamic: Whether each request gets newly generated values by default.
    public init(seed: UInt64 = 0, isDynamic: Bool = false) {
        self.seed = seed
        self.isDynamic = isDynamic
    }
}
