import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Matches a request whose query has a parameter, optionally with a given (decoded) value.
public struct HTTPStubQueryItemMatcher: HTTPStubMatcherProtocol, CustomStringConvertible {
    /// The parameter's name.
    public let name: String
    /// The expected value, or `nil` to require only that the parameter is present.
    public let value: String?

    /// Creates a matcher.
    /// - Parameters:
    ///   - name: The parameter's name.
    ///   - value: The expected value (percent-decoded), or `nil` for any value.
    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }

    /// Whether the request's query has the parameter (with the value).
    /// - Parameters:
    ///   - request: The request.
    ///   - source: The stub or rule that owns the matcher.
    /// - Returns: `true` when it matches.
    public func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    /// A description such as `query has page=2`.
    public var description: String {
        value.map { "query has \(name)=\($0)" } ?? "query has \(name)"
    }

    private func values(in request: HTTPIncomingRequest) -> [String] {
        Substring(request.route.query ?? "").splitting(at: UInt8(ascii: "&")).compactMap { item in
            let equals = item.utf8.firstIndex(of: UInt8(ascii: "="))
            guard PercentEncoding.decode(item[..<(equals ?? item.endIndex)]) == name else { return nil }
            return equals.map { PercentEncoding.decode(item[item.utf8.index(after: $0)...]) } ?? ""
        }
    }
}

extension HTTPStubQueryItemMatcher: RequestMatcher {
    package func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        let found = values(in: request)
        guard let value else { return !found.isEmpty }
        return found.contains(value)
    }

    package func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        let found = values(in: request)
        let passed = value.map { found.contains($0) } ?? !found.isEmpty
        return MatcherCheck(
            matcher: description, passed: passed, expected: value ?? "present",
            actual: found.isEmpty ? "(no \(name) parameter)" : found.joined(separator: ", "), note: nil,
            closeness: found.isEmpty ? 0 : 0.5
        )
    }
}
