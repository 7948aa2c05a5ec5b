import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Matches a request's URL against one URL, optionally ignoring parts of it.
///
/// ```swift
/// stub.match(URL: "http://myws.com/login", options: .ignoreQueryParameters)
/// // matches http://myws.com/login?username=xxxx and http://myws.com/login?username=yyyy&lock=1
/// ```
///
/// Scheme and host compare case-insensitively, a default port equals no port, an empty path equals `/`,
/// and fragments are ignored (clients never send them). A URL that starts with `/` matches that path on any
/// host.
public struct HTTPStubURLMatcher: HTTPStubMatcherProtocol, CustomStringConvertible {
    /// Parts of the URL to ignore.
    public struct Options: OptionSet, Hashable, Sendable {
        /// The options' bits.
        public let rawValue: Int

        /// Creates options from their bits.
        /// - Parameter rawValue: The bits.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// Ignore the query: `/login` matches `/login?user=x`.
        public static let ignoreQueryParameters = Options(rawValue: 1 << 0)
        /// Ignore the path (and compare only scheme, host and port, plus the query unless ignored too).
        public static let ignorePath = Options(rawValue: 1 << 1)
        /// Ignore the scheme: `http` matches `https`.
        public static let ignoreScheme = Options(rawValue: 1 << 2)
        /// Compare query parameters in any order: `?a=1&b=2` matches `?b=2&a=1`.
        public static let ignoreQueryParameterOrder = Options(rawValue: 1 << 3)
        /// Ignore a trailing slash: `/users/` matches `/users`.
        public static let ignoreTrailingSlash = Options(rawValue: 1 << 4)
    }

    /// The URL as given.
    public let url: String
    /// The parts ignored.
    public let options: Options
    private let expected: RequestRoute?
    private let pathOnly: (path: String, query: String?)?
    /// Why the URL cannot be used, or `nil`.
    public let problem: HTTPStubberError?

    /// Creates a matcher. A string that is not a usable URL makes a matcher that never matches and reports
    /// the problem (see ``HTTPStubRequest/problems``).
    /// - Parameters:
    ///   - url: An absolute URL (`https://host/path`) or a path (`/path`, any host).
    ///   - options: The parts to ignore.
    public init(URL url: String, options: Options = []) {
        self.url = url
        self.options = options
        if url.hasPrefix("/"), !url.hasPrefix("//"), let parsed = URLComponents(string: url) {
            pathOnly = (
                PercentEncoding.normalize(parsed.percentEncodedPath),
                parsed.percentEncodedQuery.map(PercentEncoding.normalize)
            )
            expected = nil
            problem = nil
        } else if let parsed = Foundation.URL(string: url), let route = RequestRoute(parsed) {
            pathOnly = nil
            expected = route
            problem = nil
        } else {
            pathOnly = nil
            expected = nil
            problem = HTTPStubberError(
                code: .invalidURL,
                message: "The URL matcher's URL \"\(url)\" is not usable: give an absolute URL with a scheme and a "
                    + "host (https://api.example.com/login) or a path starting with '/' (/login)."
            )
        }
    }

    /// Creates a matcher from a `URL`.
    /// - Parameters:
    ///   - url: An absolute URL.
    ///   - options: The parts to ignore.
    public init(URL url: URL, options: Options = []) {
        self.init(URL: url.absoluteString, options: options)
    }

    /// Whether the request's URL matches.
    /// - Parameters:
    ///   - request: The request.
    ///   - source: The stub or rule that owns the matcher.
    /// - Returns: `true` when it matches.
    public func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    /// The URL and the options, such as `URL is http://myws.com/login (ignoring query parameters)`.
    public var description: String {
        var ignored: [String] = []
        if options.contains(.ignoreScheme) { ignored.append("scheme") }
        if options.contains(.ignorePath) { ignored.append("path") }
        if options.contains(.ignoreQueryParameters) { ignored.append("query parameters") }
        if options.contains(.ignoreQueryParameterOrder) { ignored.append("query parameter order") }
        if options.contains(.ignoreTrailingSlash) { ignored.append("trailing slash") }
        return "URL is \(url)" + (ignored.isEmpty ? "" : " (ignoring \(ignored.joined(separator: ", ")))")
    }
}

extension HTTPStubURLMatcher: RequestMatcher {
    package func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        compare(request.route)
    }

    private func compare(_ actual: RequestRoute) -> Bool {
        let path: String
        let query: String?
        if let expected {
            if !options.contains(.ignoreScheme), expected.scheme != actual.scheme { return false }
            if expected.authority != actual.authority { return false }
            path = expected.path
            query = expected.query
        } else if let pathOnly {
            path = pathOnly.path
            query = pathOnly.query
        } else {
            return false
        }
        if !options.contains(.ignorePath) {
            if options.contains(.ignoreTrailingSlash) {
                if RequestRoute.trimmingTrailingSlash(path) != RequestRoute.trimmingTrailingSlash(actual.path) {
                    return false
                }
            } else if path != actual.path {
                return false
            }
        }
        if !options.contains(.ignoreQueryParameters) {
            if options.contains(.ignoreQueryParameterOrder) {
                return Self.sortedItems(query) == Self.sortedItems(actual.query)
            }
            return (query ?? "") == (actual.query ?? "")
        }
        return true
    }

    private static func sortedItems(_ query: String?) -> [Substring] {
        Substring(query ?? "").splitting(at: UInt8(ascii: "&")).filter { !$0.isEmpty }.sorted()
    }

    package func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        if let problem {
            return MatcherCheck(matcher: description, passed: false, expected: nil, actual: nil, note: problem.message)
        }
        let passed = compare(request.route)
        let wanted = expected?.exactKey ?? (pathOnly.map { $0.path + ($0.query.map { "?\($0)" } ?? "") } ?? url)
        let actual =
            expected == nil ? request.route.path + (request.route.query.map { "?\($0)" } ?? "") : request.route.exactKey
        return MatcherCheck(
            matcher: description, passed: passed, expected: wanted, actual: actual, note: nil,
            closeness: closeness(to: request.route)
        )
    }

    /// A path that differs counts more than a query that differs: 0.3 for the scheme and authority, 0.5 for
    /// the path and 0.2 for the query, each by how alike they are.
    private func closeness(to actual: RequestRoute) -> Double {
        var score = 0.0
        if let expected {
            score += expected.authority == actual.authority ? (expected.scheme == actual.scheme ? 0.3 : 0.2) : 0
        } else {
            score += 0.3
        }
        let path = expected?.path ?? pathOnly?.path ?? ""
        let query = expected?.query ?? pathOnly?.query ?? ""
        score += options.contains(.ignorePath) ? 0.5 : 0.5 * Similarity.of(path, actual.path)
        score += options.contains(.ignoreQueryParameters) ? 0.2 : 0.2 * Similarity.of(query, actual.query ?? "")
        return score
    }

    package var routing: RoutingKey {
        if let expected {
            if options.contains(.ignorePath) { return .host(expected.host) }
            if options.isDisjoint(with: [
                .ignoreQueryParameters, .ignoreQueryParameterOrder, .ignoreScheme, .ignoreTrailingSlash,
            ]) {
                return .exact(expected.exactKey)
            }
            return .hostPath(expected.hostPathKey)
        }
        if let pathOnly, !options.contains(.ignorePath) {
            return .path(RequestRoute.trimmingTrailingSlash(pathOnly.path))
        }
        return .none
    }
}
