import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A condition on a request. A stub (or an ignore rule) applies when all its matchers match.
///
/// Write your own matcher by conforming to this protocol:
///
/// ```swift
/// struct HasAPIKey: HTTPStubMatcherProtocol {
///     func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
///         request.value(forHTTPHeaderField: "X-API-Key") != nil
///     }
/// }
/// stub.match(HasAPIKey())
/// ```
///
/// The request's `httpBody` holds the whole body, however the request was sent. Conform to
/// `CustomStringConvertible` to name your matcher in unmatched-request reports.
public protocol HTTPStubMatcherProtocol: Sendable {
    /// Whether the request satisfies this matcher.
    /// - Parameters:
    ///   - request: The request, with its whole body in `httpBody`.
    ///   - source: The stub or ignore rule that owns the matcher.
    /// - Returns: `true` when the request matches.
    func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool
}

/// What owns matchers: a stub (``HTTPStubRequest``) or an ignore rule (``HTTPStubIgnoreRule``).
///
/// Every `match(...)` method is available on both.
public protocol HTTPMatcherSource: AnyObject, Sendable {
    /// The matchers, all of which must match (AND), in the order they were added.
    var matchers: [any HTTPStubMatcherProtocol] { get }

    /// Adds a matcher.
    /// - Parameter matcher: The matcher.
    /// - Returns: The source itself, to chain calls.
    @discardableResult
    func match(_ matcher: any HTTPStubMatcherProtocol) -> Self
}

// MARK: - Engine side

/// The fast path of the built-in matchers: they read the normalized request directly, can extract URI
/// template variables, name an index key, and explain a mismatch.
package protocol RequestMatcher: Sendable {
    /// Whether the request matches; a URI template matcher adds the variables it extracted.
    func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool
    /// The same decision, with what was expected and what was found.
    func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck
    /// The index bucket a stub with this matcher can live in.
    var routing: RoutingKey { get }
    /// Why the matcher can never match, when it was built from bad input.
    var problem: HTTPStubberError? { get }
    /// What this kind of matcher reads in a request that the report of an unmatched one should name (a GraphQL
    /// matcher: the operation), as `label: text`; `nil` for nothing more than the method, URL, headers and body.
    func summary(of request: HTTPIncomingRequest) -> String?
}

extension RequestMatcher {
    package var routing: RoutingKey { .none }
    package var problem: HTTPStubberError? { nil }
    package func summary(of request: HTTPIncomingRequest) -> String? { nil }

    /// The `HTTPStubMatcherProtocol` entry point for built-in matchers.
    package func matchesURLRequest(_ request: URLRequest, source: any HTTPMatcherSource) -> Bool {
        guard let incoming = try? HTTPIncomingRequest(request) else { return false }
        var variables: [String: URITemplate.Value] = [:]
        return evaluate(incoming, source: source, variables: &variables)
    }
}

/// Adapts a matcher written against the public protocol.
package struct ForeignMatcher: RequestMatcher {
    let base: any HTTPStubMatcherProtocol

    package static func adapt(_ matcher: any HTTPStubMatcherProtocol) -> any RequestMatcher {
        (matcher as? any RequestMatcher) ?? ForeignMatcher(base: matcher)
    }

    package func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        base.matches(request: request.urlRequest, for: source)
    }

    package func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        let passed = base.matches(request: request.urlRequest, for: source)
        let name = (base as? any CustomStringConvertible)?.description ?? "custom matcher \(type(of: base))"
        return MatcherCheck(matcher: name, passed: passed, expected: nil, actual: nil, note: nil)
    }
}
