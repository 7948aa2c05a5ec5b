import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Matches a request whose body is exactly the given bytes.
///
/// ```swift
/// stub.match(body: Data("name=mark".utf8))
/// ```
public struct HTTPStubBodyMatcher: HTTPStubMatcherProtocol, CustomStringConvertible {
    /// The expected body.
    public let body: Data

    /// Creates a matcher for a body.
    /// - Parameter body: The expected bytes.
    public init(body: Data) {
        self.body = body
    }

    /// Creates a matcher for a UTF-8 text body.
    /// - Parameter body: The expected text.
    public init(body: String) {
        self.body = Data(body.utf8)
    }

    /// Whether the request's body equals the expected bytes.
    /// - Parameters:
    ///   - request: The request.
    ///   - source: The stub or rule that owns the matcher.
    /// - Returns: `true` when it matches.
    public func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    /// A description such as `body is 12 bytes`.
    public var description: String {
        "body is \(body.count) bytes"
    }
}

extension HTTPStubBodyMatcher: RequestMatcher {
    package func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        (request.body ?? Data()) == body
    }

    package func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        let actual = request.body ?? Data()
        let passed = actual == body
        var note: String?
        if !passed {
            let offset =
                zip(actual, body).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(actual.count, body.count)
            note = "first difference at byte \(offset)"
        }
        return MatcherCheck(
            matcher: description, passed: passed, expected: BodyText.describe(body), actual: BodyText.describe(actual),
            note: note, closeness: Similarity.of(BodyText.describe(body), BodyText.describe(actual))
        )
    }
}

/// Bodies as report text: UTF-8 text in quotes, or a size and the first bytes in hex.
package enum BodyText {
    package static func describe(_ data: Data?, limit: Int = 120) -> String {
        guard let data, !data.isEmpty else { return "(empty)" }
        if let text = String(data: data, encoding: .utf8) {
            return "\"" + Similarity.excerpt(text, limit: limit) + "\""
        }
        let hex = data.prefix(32).map { String(format: "%02x", $0) }.joined()
        return "\(data.count) bytes: \(hex)" + (data.count > 32 ? "…" : "")
    }
}
