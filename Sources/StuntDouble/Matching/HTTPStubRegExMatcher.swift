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
            return
        }
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
    func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        guard let regex else { return true }
        let url = request.matchableURLString
        return regex.expression.firstMatch(in: url, range: NSRange(location: 0, length: url.utf16.count)) != nil
    }

    func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        var variables: [String: URITemplate.Value] = [:]
        let passed = evaluate(request, source: source, variables: &variables)
        return MatcherCheck(
            matcher: description, passed: passed, expected: "a URL matching \(pattern)",
            actual: request.matchableURLString, note: nil,
            closeness: Similarity.of(pattern, request.matchableURLString) * 0.8
        )
    }
}
