import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Matches a request that has a header field, optionally with a given value. Names compare ignoring case;
/// values compare exactly.
public struct HTTPStubHeaderMatcher: HTTPStubMatcherProtocol, CustomStringConvertible {
    /// The field's name.
    public let name: HTTPHeaders.Name
    /// The expected value, or `nil` to require only that the field is present.
    public let value: String?

    /// Creates a matcher.
    /// - Parameters:
    ///   - name: The field's name.
    ///   - value: The expected value, or `nil` for any value.
    public init(name: HTTPHeaders.Name, value: String?) {
        self.name = name
        self.value = value
    }

    /// Whether the request has the field (with the value).
    /// - Parameters:
    ///   - request: The request.
    ///   - source: The stub or rule that owns the matcher.
    /// - Returns: `true` when it matches.
    public func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    /// A description such as `header User-Agent is "customAgent"`.
    public var description: String {
        value.map { "header \(name) is \"\($0)\"" } ?? "header \(name) is present"
    }
}

extension HTTPStubHeaderMatcher: RequestMatcher {
    package func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        let values = request.headers.values(for: name)
        guard let value else { return !values.isEmpty }
        return values.contains(value)
    }

    package func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        var variables: [String: URITemplate.Value] = [:]
        let passed = evaluate(request, source: source, variables: &variables)
        let values = request.headers.values(for: name)
        let actual = values.isEmpty ? "(no \(name) header)" : values.map { "\"\($0)\"" }.joined(separator: ", ")
        return MatcherCheck(
            matcher: description, passed: passed, expected: value.map { "\"\($0)\"" } ?? "present", actual: actual,
            note: nil, closeness: values.isEmpty ? 0 : 0.5
        )
    }
}
