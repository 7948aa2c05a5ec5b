/// How many times something is expected to happen: a stub answering, a request being made.
///
/// ```swift
/// try stubber.verify(loginStub, called: .once)
/// try stubber.verify(HTTPRequestPattern(.get).match(URL: "https://api.example.com/me"), called: .atLeast(2))
/// ```
public struct HTTPCallCount: Hashable, Sendable, CustomStringConvertible {
    /// The fewest calls allowed.
    public let minimum: Int
    /// The most calls allowed, or `nil` for no upper bound.
    public let maximum: Int?

    private init(minimum: Int, maximum: Int?) {
        self.minimum = minimum
        self.maximum = maximum
    }

    /// Exactly `count` times.
    /// - Parameter count: The count (0 or more).
    /// - Returns: The expectation.
    public static func exactly(_ count: Int) -> HTTPCallCount {
        HTTPCallCount(minimum: count, maximum: count)
    }

    /// At least `count` times.
    /// - Parameter count: The count (0 or more).
    /// - Returns: The expectation.
    public static func atLeast(_ count: Int) -> HTTPCallCount {
        HTTPCallCount(minimum: count, maximum: nil)
    }

    /// At most `count` times.
    /// - Parameter count: The count (0 or more).
    /// - Returns: The expectation.
    public static func atMost(_ count: Int) -> HTTPCallCount {
        HTTPCallCount(minimum: 0, maximum: count)
    }

    /// A number of times within a range.
    /// - Parameter range: The range, such as `2...4`.
    /// - Returns: The expectation.
    public static func between(_ range: ClosedRange<Int>) -> HTTPCallCount {
        HTTPCallCount(minimum: range.lowerBound, maximum: range.upperBound)
    }

    /// Exactly once.
    public static let once = exactly(1)
    /// Never.
    public static let never = exactly(0)

    /// Whether a count satisfies the expectation.
    /// - Parameter count: The count.
    /// - Returns: `true` when it does.
    public func contains(_ count: Int) -> Bool {
        count >= minimum && (maximum.map { count <= $0 } ?? true)
    }

    /// Why the expectation can never be met (a negative count, a maximum below the minimum), or `nil`.
    var problem: String? {
        if minimum < 0 || (maximum ?? 0) < 0 {
            return "\(self) has a negative count: counts start at 0"
        }
        if let maximum, maximum < minimum {
            return "\(self) allows no count: its maximum is below its minimum"
        }
        return nil
    }

    /// `exactly 2 times`, `at least once`, `between 2 and 4 times`, `never`.
    public var description: String {
        func times(_ count: Int) -> String {
            switch count {
            case 1: "once"
            case 2: "twice"
            default: "\(count) times"
            }
        }
        switch (minimum, maximum) {
        case (0, 0?): return "never"
        case (let low, let high?) where low == high: return "exactly \(times(low))"
        case (0, let high?): return "at most \(times(high))"
        case (let low, nil): return "at least \(times(low))"
        case (let low, let high?): return "between \(low) and \(high) times"
        }
    }
}
