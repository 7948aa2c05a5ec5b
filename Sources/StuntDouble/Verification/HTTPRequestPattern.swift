/// A description of requests, to verify that some were made: an optional method and matchers, all of which
/// must match. Every `match(...)` of stubs works here too.
///
/// ```swift
/// let login = HTTPRequestPattern(.post)
///     .match(URL: "https://api.example.com/login")
///     .match(json: #"{"user": "mark"}"#)
///     .match(header: .contentType, value: "application/json")
/// try stubber.verify(login, called: .once)
/// ```
public final class HTTPRequestPattern: HTTPMatcherGroup, @unchecked Sendable, CustomStringConvertible {
    /// The method requests must have, or `nil` for any.
    public let method: HTTPMethod?

    /// Creates a pattern.
    /// - Parameter method: The method requests must have, or `nil` for any.
    public init(_ method: HTTPMethod? = nil) {
        self.method = method
    }

    /// `POST requests where URL is ... and body is JSON ...`.
    public var description: String {
        let subject = method.map { "\($0) requests" } ?? "requests"
        let matchers = self.matchers
        guard !matchers.isEmpty else { return subject }
        return subject + " where " + matchers.map { "\($0)" }.joined(separator: " and ")
    }

    /// Whether a request matches.
    func matches(_ request: HTTPIncomingRequest) -> Bool {
        if let method, request.method != method { return false }
        return list.matches(request, source: self)
    }

    /// The pattern's checks on a request, for reports: the method (when it has one), then each matcher.
    func checks(of request: HTTPIncomingRequest) -> [MatcherCheck] {
        var checks: [MatcherCheck] = []
        if let method {
            checks.append(
                MatcherCheck(
                    matcher: "method is \(method)", passed: request.method == method, expected: method.rawValue,
                    actual: request.method.rawValue, note: nil, closeness: 0))
        }
        return checks + list.checks(of: request, source: self)
    }
}
