import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Matches a request whose URL contains a match of a regular expression (ICU syntax, as
/// `NSRegularExpression`).
///
/// The pattern is searched for anywhere in the URL (add `^` and `$` to anchor it), and the URL is the
/// request's `absoluteString` without its fragment. The pattern `"*"` alone, which is not a valid regular
/// expression, means any URL.
public struct HTTPStubRegExMatcher: HTTPStubMatcherProtocol, CustomStringConvertible {
    /// The pattern as given.
    public let pattern: String
    private let regex: Regex?
    /// Text every matching URL starts with, read from a pattern anchored with `^`: URLs without it are
    /// rejected without running the expression (a prefix check costs a few nanoseconds, the expression
    /// microseconds).
    private let requiredPrefix: String?

    /// `NSRegularExpression` is immutable and documented as safe to share between threads.
    private struct Regex: @unchecked Sendable {
        let expression: NSRegularExpression
    }

    /// Compiles a pattern.
    /// - Parameters:
    ///   - pattern: The regular expression, such as `"^https://api\\.example\\.com/users/[0-9]+$"`.
    ///   - options: Regular expression options, such as `.caseInsensitive`.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/invalidRegularExpression`` naming the
    ///   pattern and the problem.
    public init(regex pattern: String, options: NSRegularExpression.Options = []) throws(HTTPStubberError) {
        self.pattern = pattern
        if pattern == "*" {
            regex = nil
            requiredPrefix = nil
            return
        }
        requiredPrefix = options.isEmpty ? Self.literalPrefix(ofAnchored: pattern) : nil
        do {
            regex = Regex(expression: try NSRegularExpression(pattern: pattern, options: options))
        } catch {
            throw HTTPStubberError(
                code: .invalidRegularExpression,
                message: "The URL regular expression \"\(pattern)\" does not compile (\(error.localizedDescription)). "
                    + "Check its syntax (ICU, as NSRegularExpression); to match any URL use \"*\" or \".*\"."
            )
        }
    }

    /// Whether the request's URL contains a match.
    /// - Parameters:
    ///   - request: The request.
    ///   - source: The stub or rule that owns the matcher.
    /// - Returns: `true` when it matches.
    public func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    /// The pattern, such as `URL matches regex /login`.
    public var description: String {
        "URL matches regex \(pattern)"
    }
}

extension HTTPStubRegExMatcher: RequestMatcher {
    /// The complete segments of the literal prefix, so that the registry finds the stub by the URL's first
    /// segments instead of trying it on every request.
    package var routing: RoutingKey {
        guard let requiredPrefix else { return .none }
        let segments = requiredPrefix.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        return .urlPrefix(segments: segments.map(String.init))
    }

    package func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        guard let regex else { return true }
        let url = request.matchableURLString
        if let requiredPrefix, !url.utf8.starts(with: requiredPrefix.utf8) { return false }
        return RegexBudget.firstMatch(regex.expression, in: url)
    }

    package func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        var variables: [String: URITemplate.Value] = [:]
        let passed = evaluate(request, source: source, variables: &variables)
        return MatcherCheck(
            matcher: description, passed: passed, expected: "a URL matching \(pattern)",
            actual: request.matchableURLString, note: nil,
            closeness: Similarity.of(pattern, request.matchableURLString) * 0.8
        )
    }
}

extension HTTPStubRegExMatcher {
    /// The literal text at the start of a pattern anchored with `^` (`^https://api\.test/users/[0-9]+` gives
    /// `https://api.test/users/`), or `nil` when the pattern is not anchored, has an alternation (which the
    /// anchor may not cover), or starts with no literal text. Conservative: it stops at the first character
    /// that is not plainly literal, and drops a character a quantifier makes optional. It reads Unicode scalars,
    /// as ICU does: a combining mark after `|` or a backslash is a character of its own, not part of it.
    static func literalPrefix(ofAnchored pattern: String) -> String? {
        let scalars = pattern.unicodeScalars
        guard scalars.first == "^", !scalars.contains("|") else { return nil }
        var prefix = String.UnicodeScalarView()
        var rest = scalars.dropFirst()[...]
        scanning: while let scalar = rest.first {
            switch scalar {
            case "\\":
                guard let escaped = rest.dropFirst().first, !escaped.properties.isAlphabetic,
                    escaped.properties.numericType == nil, !escaped.properties.isWhitespace
                else { break scanning }
                prefix.append(escaped)
                rest = rest.dropFirst(2)
            case ".", "^", "$", "(", ")", "[", "]", "{", "}", "?", "*", "+", "#":
                break scanning
            default:
                guard !scalar.properties.isWhitespace else { break scanning }
                prefix.append(scalar)
                rest = rest.dropFirst()
            }
        }
        // A quantifier right after the prefix makes its last scalar optional or repeated: drop it.
        if let next = rest.first, "?*+{".unicodeScalars.contains(next), !prefix.isEmpty {
            prefix.removeLast()
        }
        return prefix.isEmpty ? nil : String(prefix)
    }
}
