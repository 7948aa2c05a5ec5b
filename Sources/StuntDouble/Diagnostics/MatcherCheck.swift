/// One matcher's verdict on one request, for unmatched-request reports.
public struct MatcherCheck: Hashable, Sendable, CustomStringConvertible {
    /// The matcher, described, such as `URL is https://api.example.com/login (ignoring query parameters)`.
    public let matcher: String
    /// Whether the matcher matched.
    public let passed: Bool
    /// What the matcher wanted, when it can say.
    public let expected: String?
    /// What the request had, when it differs.
    public let actual: String?
    /// A further explanation (a JSON difference, an invalid pattern ...).
    public let note: String?
    /// How close the request came, from 0 (nothing alike) to 1 (matched); used to rank near misses.
    let closeness: Double

    package init(
        matcher: String, passed: Bool, expected: String?, actual: String?, note: String?, closeness: Double? = nil
    ) {
        self.matcher = matcher
        self.passed = passed
        self.expected = expected
        self.actual = actual
        self.note = note
        self.closeness = passed ? 1 : max(0, min(closeness ?? 0, 0.99))
    }

    /// One line: a mark, the matcher, and for a failure what differed.
    public var description: String {
        var line = (passed ? "✓ " : "✗ ") + matcher
        if !passed {
            if let expected { line += "\n   expected: \(expected)" }
            if let actual { line += "\n   actual:   \(actual)" }
        }
        if let note { line += "\n   \(note)" }
        return line
    }
}
