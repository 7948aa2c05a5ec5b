import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Matches a request with a closure.
///
/// ```swift
/// stub.match({ request, source in
///     request.headers[.userAgent] == "customAgent"
/// })
/// ```
public struct HTTPStubCustomMatcher: HTTPStubMatcherProtocol, CustomStringConvertible {
    /// The closure's type: it receives the request (with its whole body) and the owning stub or rule.
    public typealias Handler = @Sendable (HTTPIncomingRequest, HTTPMatcherSource) -> Bool

    private struct Box: Sendable {
        let handler: Handler
    }

    private let box: Box
    /// The name shown in unmatched-request reports.
    public let name: String

    /// Creates a matcher.
    /// - Parameters:
    ///   - name: A name for unmatched-request reports, such as `"has a session cookie"`.
    ///   - handler: Returns `true` when the request matches.
    public init(name: String = "custom closure", _ handler: @escaping Handler) {
        self.box = Box(handler: handler)
        self.name = name
    }

    /// Whether the closure accepts the request.
    /// - Parameters:
    ///   - request: The request.
    ///   - source: The stub or rule that owns the matcher.
    /// - Returns: The closure's answer.
    public func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    /// The matcher's name.
    public var description: String { name }
}

extension HTTPStubCustomMatcher: RequestMatcher {
    package func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        box.handler(request, source)
    }

    package func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        MatcherCheck(
            matcher: name, passed: box.handler(request, source), expected: nil, actual: nil, note: nil
        )
    }
}
