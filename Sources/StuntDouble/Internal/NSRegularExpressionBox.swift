import Foundation

/// A compiled regular expression that must match a whole string, shareable between threads
/// (`NSRegularExpression` is immutable).
package struct NSRegularExpressionBox: @unchecked Sendable {
    let expression: NSRegularExpression
    /// The pattern as written.
    let pattern: String

    /// Compiles `pattern` so that it must match all of a text (as Java's `Pattern.matches` does).
    package init(wholeMatch pattern: String, options: NSRegularExpression.Options = []) throws {
        expression = try NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: options)
        self.pattern = pattern
    }

    /// Whether the expression matches all of `text`, within the work budget (see `RegexBudget`).
    package func matchesWhole(_ text: String) -> Bool {
        RegexBudget.firstMatch(expression, in: text, pattern: pattern)
    }
}
