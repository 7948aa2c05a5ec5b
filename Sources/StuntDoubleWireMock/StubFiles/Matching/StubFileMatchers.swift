import Foundation
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URL condition of a WireMock request pattern. Paths compare as sent (percent-encoded, so `/heal%74h`
/// is not `/health`; hex digits compare ignoring case); regular expressions must match the whole text.
struct StubFileURLMatcher: HTTPStubMatcherProtocol, RequestMatcher, URLConditionMatcher, CustomStringConvertible {
    enum Kind: Sendable {
        /// `url`: path and query equal.
        case url(String)
        /// `urlPattern`: path and query match.
        case urlPattern(String, NSRegularExpressionBox)
        /// `urlPath`: path equal.
        case urlPath(String)
        /// `urlPathPattern`: path matches.
        case urlPathPattern(String, NSRegularExpressionBox)
        /// `urlPathTemplate`: path matches an RFC 6570 template, and its variables their patterns.
        case urlPathTemplate(HTTPStubURITemplateMatcher, [(name: String, pattern: ValuePattern)])
    }

    let kind: Kind
    /// For `url` and `urlPath`, the text the path (with the query, for `url`) must be: read without a look at
    /// `kind`, whose payloads a `switch` copied (with the matcher) on every request.
    private let exactText: String?
    private let exactWithQuery: Bool

    init(kind: Kind) {
        self.kind = kind
        switch kind {
        case .url(let text): (exactText, exactWithQuery) = (text, true)
        case .urlPath(let text): (exactText, exactWithQuery) = (text, false)
        default: (exactText, exactWithQuery) = (nil, false)
        }
    }

    var exactURL: String? {
        switch kind {
        case .url(let text), .urlPath(let text): text
        default: nil
        }
    }

    func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    var description: String {
        switch kind {
        case .url(let url): "url is \(url)"
        case .urlPattern(let pattern, _): "url matches \(pattern)"
        case .urlPath(let path): "urlPath is \(path)"
        case .urlPathPattern(let pattern, _): "urlPath matches \(pattern)"
        case .urlPathTemplate(let template, let parameters):
            "urlPathTemplate is \(template.template)"
                + parameters.map { ", path parameter \($0.name) \($0.pattern)" }.joined()
        }
    }

    /// The request's path and query, as WireMock's `url` reads them.
    static func pathAndQuery(of request: HTTPIncomingRequest) -> String {
        let route = request.route
        return route.query.map { route.path + "?" + $0 } ?? route.path
    }

    func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        if let exactText { return request.route.pathIs(exactText, withQuery: exactWithQuery) }
        switch kind {
        case .url(let url): return request.route.pathIs(url, withQuery: true)
        case .urlPattern(_, let regex): return regex.matchesWhole(Self.pathAndQuery(of: request))
        case .urlPath(let path): return request.route.pathIs(path, withQuery: false)
        case .urlPathPattern(_, let regex): return regex.matchesWhole(request.route.path)
        case .urlPathTemplate(let template, let parameters):
            var extracted: [String: URITemplate.Value] = [:]
            guard template.evaluate(request, source: source, variables: &extracted) else { return false }
            for parameter in parameters where !parameter.pattern.matches(extracted[parameter.name]?.description) {
                return false
            }
            variables.merge(extracted) { _, new in new }
            return true
        }
    }

    func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        var variables: [String: URITemplate.Value] = [:]
        let passed = evaluate(request, source: source, variables: &variables)
        let expected: String
        let actual: String
        switch kind {
        case .url(let url):
            (expected, actual) = (url, Self.pathAndQuery(of: request))
        case .urlPattern(let pattern, _):
            (expected, actual) = (pattern, Self.pathAndQuery(of: request))
        case .urlPath(let path):
            (expected, actual) = (path, request.route.path)
        case .urlPathPattern(let pattern, _):
            (expected, actual) = (pattern, request.route.path)
        case .urlPathTemplate(let template, _):
            (expected, actual) = (template.template, request.route.path)
        }
        return MatcherCheck(
            matcher: description, passed: passed, expected: expected, actual: actual, note: nil,
            closeness: Similarity.of(expected, actual))
    }

    var routing: RoutingKey {
        switch kind {
        case .url(let url):
            let path = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
            return .path(RequestRoute.trimmingTrailingSlash(path ?? url))
        case .urlPath(let path):
            return .path(RequestRoute.trimmingTrailingSlash(path))
        case .urlPathTemplate(let template, _):
            return template.routing
        case .urlPattern, .urlPathPattern:
            return .none
        }
    }

    var problem: HTTPStubberError? {
        if case .urlPathTemplate(let template, _) = kind { return template.problem }
        return nil
    }
}

/// A request part that a WireMock request pattern names: a header, a query parameter or a cookie, with a
/// value pattern that any of its occurrences (or, for `absent`, none) must satisfy.
struct StubFileValueMatcher: HTTPStubMatcherProtocol, RequestMatcher, CustomStringConvertible {
    enum Part: Sendable {
        case header
        case queryParameter
        case cookie
        case host
    }

    let part: Part
    let name: String
    let pattern: ValuePattern

    func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    var description: String {
        let label =
            switch part {
            case .header: "header"
            case .queryParameter: "query parameter"
            case .cookie: "cookie"
            case .host: "host"
            }
        return part == .host ? "host \(pattern)" : "\(label) \(name) \(pattern)"
    }

    func values(in request: HTTPIncomingRequest) -> [String] {
        switch part {
        case .header:
            return request.headers.values(for: HTTPHeaders.Name(rawValue: name))
        case .queryParameter:
            return Self.queryValues(named: name, in: request.route.query)
        case .host:
            return request.url.host.map { [$0] } ?? []
        case .cookie:
            return CookieHeader.values(named: name, in: request.headers.values(for: .cookie))
        }
    }

    /// The decoded values of a query parameter, as WireMock reads them (`+` is a space).
    static func queryValues(named name: String, in query: String?) -> [String] {
        guard let query, !query.isEmpty else { return [] }
        var values: [String] = []
        for pair in Substring(query).splitting(at: UInt8(ascii: "&")) {
            let equals = pair.utf8.firstIndex(of: UInt8(ascii: "="))
            let rawName = equals.map { pair[..<$0] } ?? pair
            // Most names need no decoding: compared as they are, with nothing allocated for the others.
            let isEncoded = rawName.utf8.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
            guard isEncoded ? decode(rawName) == name : rawName == name else { continue }
            values.append(equals.map { decode(pair[pair.utf8.index(after: $0)...]) } ?? "")
        }
        return values
    }

    private static func decode(_ text: Substring) -> String {
        PercentEncoding.decodeForm(text)
    }

    func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        pattern.matches(anyOf: values(in: request))
    }

    func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        let values = values(in: request)
        let passed = pattern.matches(anyOf: values)
        let actual =
            values.isEmpty
            ? "(absent)"
            : values.map { "\"\(Similarity.excerpt($0, limit: 80))\"" }
                .joined(separator: ", ")
        return MatcherCheck(
            matcher: description, passed: passed, expected: pattern.description, actual: actual, note: nil,
            closeness: values.map { pattern.closeness(to: $0) }.max() ?? 0)
    }
}

/// A WireMock body pattern (`bodyPatterns` holds several, all of which must match).
struct StubFileBodyMatcher: HTTPStubMatcherProtocol, RequestMatcher, CustomStringConvertible {
    let pattern: ValuePattern

    func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    var description: String { "body \(pattern)" }

    func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        pattern.matches(body: request.body)
    }

    func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        let passed = pattern.matches(body: request.body)
        var note: String?
        if !passed, case .equalToJSON(let expected, _) = pattern, let text = request.bodyText,
            let actual = JSONComparison.parse(text)
        {
            note = JSONValue.differences(expected: expected, actual: actual).joined(separator: "\n   ")
        }
        return MatcherCheck(
            matcher: description, passed: passed, expected: pattern.description,
            actual: BodyText.describe(request.body), note: note, closeness: pattern.closeness(to: request.bodyText))
    }
}
