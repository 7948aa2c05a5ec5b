import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Matches a request's URL against a URI template (RFC 6570), extracting its variables.
///
/// ```swift
/// stub.match(URI: "https://github.com/kylef/{repository}")
///     .stub(for: .get, responseProvider: { request, _ in
///         let response = HTTPStubResponse()
///         response.body = Data("repo \(request[templateVariable: "repository"] ?? "")".utf8)
///         return response
///     })
/// ```
///
/// What a template is matched against depends on how it starts:
/// - `scheme://host/...`: the whole URL (scheme and host ignoring case);
/// - `/...`: the path, on any host;
/// - `{...`: the whole URL, or else the path;
/// - only query expressions (`{?page}`): any URL, reading the query.
///
/// The query: a template with no query part ignores the request's query. A template ending in query
/// expressions (`/search{?q,page}` or `/items{?ids*}{&sort}`) reads its variables from the query by name, in
/// any order, and allows other parameters. A template with a literal `?` matches the query as written.
public struct HTTPStubURITemplateMatcher: HTTPStubMatcherProtocol, CustomStringConvertible {
    /// The template as given.
    public let template: String
    private let plan: Plan?
    /// Why the template cannot be used, or `nil`.
    public let problem: HTTPStubberError?

    private enum Target: Sendable {
        /// The whole URL.
        case absolute
        /// The path, on any host.
        case path
        /// The whole URL, or else the path.
        case either
        /// Any URL: the template has only query expressions.
        case any
    }

    /// A class, so that reading it while matching costs one retain rather than one per array.
    private final class Plan: Sendable {
        let target: Target
        let parts: [URITemplate.Part]
        let compiled: CompiledParts
        let lenientQuery: [URITemplate.Expression]?
        let matchesQueryAsWritten: Bool
        let routing: RoutingKey
        /// For the commonest shape, a literal and then one plain `{name}` (`https://api.test/users/{id}`), the
        /// literal's bytes and the name: such a template is matched without the general matcher.
        let literalThenName: (literal: [UInt8], name: String)?

        /// A plan for the template's parts (the query expressions matched in any order split off into
        /// `lenientQuery`), with what matching them needs worked out once.
        init(target: Target, parts: [URITemplate.Part], lenientQuery: [URITemplate.Expression]?) {
            self.target = target
            self.parts = parts
            self.lenientQuery = lenientQuery
            let compiled = CompiledParts(parts)
            self.compiled = compiled
            let matchesQueryAsWritten = parts.contains { part in
                switch part {
                case .literal(let literal): literal.contains("?")
                case .expression(let expression): expression.op.isQuery
                }
            }
            self.matchesQueryAsWritten = matchesQueryAsWritten
            routing = HTTPStubURITemplateMatcher.routing(parts, target)
            if target == .absolute || target == .path, lenientQuery == nil, !matchesQueryAsWritten, parts.count == 2,
                case .literal(let literal) = parts[0], let variable = compiled.plainVariables[1]
            {
                literalThenName = (Array(literal.utf8), variable.name)
            } else {
                literalThenName = nil
            }
        }
    }

    /// Creates a matcher. A template with a syntax error makes a matcher that never matches and reports the
    /// problem (see ``HTTPStubRequest/problems``).
    /// - Parameter template: The template, such as `"https://api.example.com/users/{id}"` or `"/users/{id}"`.
    public init(URI template: String) {
        self.template = template
        do {
            plan = try Self.plan(for: try URITemplate(template))
            problem = nil
        } catch {
            plan = nil
            problem = error
        }
    }

    /// Whether the request's URL matches the template.
    /// - Parameters:
    ///   - request: The request.
    ///   - source: The stub or rule that owns the matcher.
    /// - Returns: `true` when it matches.
    public func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    /// The template, such as `URL matches template /users/{id}`.
    public var description: String {
        "URL matches template \(template)"
    }

    private static func plan(for parsed: URITemplate) throws(HTTPStubberError) -> Plan {
        var parts = parsed.parts
        // Split off trailing query expressions, matched by name in any order, unless a literal query comes
        // before them (then the whole query is matched as written).
        func isQueryExpression(_ part: URITemplate.Part) -> Bool {
            if case .expression(let expression) = part { return expression.op.isQuery }
            return false
        }
        func hasLiteralQuery(_ part: URITemplate.Part) -> Bool {
            if case .literal(let literal) = part { return literal.contains("?") }
            return false
        }
        var lenientQuery: [URITemplate.Expression]?
        if let firstQuery = parts.firstIndex(where: isQueryExpression),
            parts[firstQuery...].allSatisfy(isQueryExpression), !parts[..<firstQuery].contains(where: hasLiteralQuery)
        {
            lenientQuery = parts[firstQuery...].compactMap { part in
                if case .expression(let expression) = part { return expression }
                return nil
            }
            parts.removeSubrange(firstQuery...)
        }
        let target: Target
        switch parts.first {
        case nil:
            target = .any
        case .literal(let literal) where literal.hasPrefix("/"):
            target = .path
        case .literal(let literal):
            guard let schemeEnd = literal.range(of: "://"),
                literal[..<schemeEnd.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
                !literal[..<schemeEnd.lowerBound].isEmpty
            else {
                throw HTTPStubberError(
                    code: .invalidURITemplate,
                    message: "The URI template \"\(parsed.template)\" must start with a scheme (https://host/...), "
                        + "with '/' (a path on any host) or with an expression."
                )
            }
            parts[0] = .literal(normalizedAuthority(literal, next: parts.dropFirst().first))
            target = .absolute
        default:
            target = .either
        }
        return Plan(target: target, parts: parts, lenientQuery: lenientQuery)
    }

    /// Normalizes the scheme and authority of the leading literal as requests are normalized (lower case,
    /// no default port, a Unicode host in its ASCII form); a template whose authority is followed by nothing
    /// but a query or fragment gets the path `/`, as every request has one.
    private static func normalizedAuthority(_ literal: String, next: URITemplate.Part?) -> String {
        guard let schemeEnd = literal.range(of: "://") else { return literal }
        let scheme = String(literal[..<schemeEnd.lowerBound]).asciiLowercased
        let rest = literal[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        let rawAuthority = rest[..<authorityEnd]
        var authority = String(rawAuthority).asciiLowercased
        // Decode the escapes the parser added to a Unicode host, unless that would expose a delimiter.
        let decoded = PercentEncoding.decode(rawAuthority)
        let host = decoded.contains(where: { "/?#".contains($0) }) ? String(rawAuthority) : decoded
        if let url = URL(string: "\(scheme)://\(host)/"), let route = RequestRoute(url) {
            authority = route.authority
        }
        var path = String(rest[authorityEnd...])
        if path.isEmpty {
            switch next {
            case nil:
                path = "/"
            case .expression(let expression) where expression.op.isQuery || expression.op == .fragment:
                path = "/"
            default:
                break
            }
        }
        return scheme + "://" + authority + path
    }

    /// The index bucket: the host and complete path segments of the literal prefix.
    private static func routing(_ parts: [URITemplate.Part], _ target: Target) -> RoutingKey {
        guard case .literal(let literal) = parts.first else { return .none }
        let isWhole = parts.count == 1
        var host: String?
        var path = Substring(literal)
        if target == .absolute {
            guard let schemeEnd = literal.range(of: "://") else { return .none }
            let rest = literal[schemeEnd.upperBound...]
            guard let slash = rest.firstIndex(of: "/") else { return .none }
            let authority = rest[..<slash]
            guard !authority.contains("?"), !authority.contains("#") else { return .none }
            if authority.hasPrefix("[") {
                host = authority.firstIndex(of: "]").map { String(authority[...$0]) }
            } else {
                host = String(authority.split(separator: ":", maxSplits: 1).first ?? authority)
            }
            guard host != nil else { return .none }
            path = rest[slash...]
        }
        if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            path = path[..<query]
        }
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        // The last segment is complete only when the template ends here.
        if !isWhole || literal.contains("?") {
            segments = Array(segments.dropLast())
        }
        return .template(host: host, segments: segments)
    }
}

extension HTTPStubURITemplateMatcher: RequestMatcher {
    package func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        guard let found = extract(request.route) else { return false }
        if variables.isEmpty {
            variables = found
        } else {
            variables.merge(found) { _, new in new }
        }
        return true
    }

    /// The variables of a matching URL, or `nil`.
    /// - Parameters:
    ///   - route: The request's route.
    ///   - general: Use the general matcher even where a shortcut applies (to test that both agree).
    /// - Returns: The variables, or `nil` when the URL does not match.
    func extract(_ route: RequestRoute, general: Bool = false) -> [String: URITemplate.Value]? {
        guard let plan else { return nil }
        if !general, let (literal, name) = plan.literalThenName {
            // What the general matcher does for these parts: the literal, then a value that reaches the end,
            // is not empty, and has no '/', '?' or '#' (a value with ',' is a list: left to the general one).
            let found = route.withBytes(fromPath: plan.target == .path, withQuery: false) { bytes -> String?? in
                guard bytes.count > literal.count, bytes.starts(with: literal) else { return .some(nil) }
                let value = bytes[literal.count...]
                for byte in value {
                    switch byte {
                    case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): return .some(nil)
                    case UInt8(ascii: ","): return nil
                    default: continue
                    }
                }
                return .some(PercentEncoding.decode(value))
            }
            if let found {
                return found.map { [name: .string($0)] }
            }
        }
        let withQuery = plan.matchesQueryAsWritten && route.query != nil
        var matcher = PartMatcher(plan.compiled, lenientQuery: plan.lenientQuery)
        let lenientQuery = route.query.map { Substring($0) }
        switch plan.target {
        case .any:
            return matcher.match(UnsafeBufferPointer(start: nil, count: 0), query: lenientQuery)
        case .absolute:
            return route.withBytes(fromPath: false, withQuery: withQuery) { matcher.match($0, query: lenientQuery) }
        case .path:
            return route.withBytes(fromPath: true, withQuery: withQuery) { matcher.match($0, query: lenientQuery) }
        case .either:
            if let found = route.withBytes(
                fromPath: false, withQuery: withQuery, { matcher.match($0, query: lenientQuery) })
            {
                return found
            }
            var pathMatcher = PartMatcher(plan.compiled, lenientQuery: plan.lenientQuery)
            return route.withBytes(fromPath: true, withQuery: withQuery) { pathMatcher.match($0, query: lenientQuery) }
        }
    }

    package func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        if let problem {
            return MatcherCheck(matcher: description, passed: false, expected: nil, actual: nil, note: problem.message)
        }
        let found = extract(request.route)
        let actual = plan?.target == .path ? request.route.path : String(request.route.withoutQuery)
        var note: String?
        if let found, !found.isEmpty {
            note =
                "variables: " + found.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
        }
        return MatcherCheck(
            matcher: description, passed: found != nil, expected: template, actual: actual, note: note,
            closeness: closeness(to: actual)
        )
    }

    /// How much of the template's leading literal the URL shares, scaled below a full match.
    private func closeness(to actual: String) -> Double {
        guard let plan, case .literal(let literal) = plan.parts.first else { return 0.4 }
        let shared = zip(literal.utf8, actual.utf8).prefix { $0 == $1 }.count
        return 0.85 * Double(shared) / Double(max(1, literal.utf8.count))
    }

    package var routing: RoutingKey {
        plan?.routing ?? .none
    }
}
