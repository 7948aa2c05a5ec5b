import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Matches a request whose body is JSON equal to an expected value.
///
/// Equality is semantic: key order, whitespace and number spelling (`1` and `1.0`) do not matter; types,
/// keys, array order and values do.
///
/// ```swift
/// stub.match(object: User(userID: 34, fullName: "Mark"))
/// ```
public struct HTTPStubJSONMatcher: HTTPStubMatcherProtocol, CustomStringConvertible {
    private let expected: JSONValue?
    /// Why the expected value cannot be used, or `nil`.
    public let problem: HTTPStubberError?

    /// Creates a matcher for the JSON encoding of a value. A value that fails to encode makes a matcher that
    /// never matches and reports the problem (see ``HTTPStubRequest/problems``).
    /// - Parameters:
    ///   - object: The value; encode it as your app does (pass your encoder for custom date or key strategies).
    ///   - encoder: The encoder.
    public init<Value: Encodable>(object: Value, encoder: JSONEncoder = JSONEncoder()) {
        let data: Data
        do {
            data = try encoder.encode(object)
        } catch {
            self.init(
                expected: nil,
                problem: HTTPStubberError(
                    code: .encodingFailed,
                    message: "The JSON matcher could not encode its \(Value.self) value: \(error). "
                        + "Check the value's Encodable conformance and the encoder's strategies."
                )
            )
            return
        }
        self.init(parsing: data, what: "the JSON encoding of \(Value.self)")
    }

    /// Creates a matcher for JSON text.
    /// - Parameter json: The expected JSON, such as `#"{"user": "mark"}"#`.
    public init(json: String) {
        self.init(parsing: Data(json.utf8), what: "the JSON text")
    }

    /// Creates a matcher for JSON bytes.
    /// - Parameter json: The expected JSON.
    public init(json: Data) {
        self.init(parsing: json, what: "the JSON data")
    }

    private init(parsing data: Data, what: String) {
        do {
            self.init(expected: try JSONValue.parse(data), problem: nil)
        } catch {
            self.init(
                expected: nil,
                problem: HTTPStubberError(
                    code: .invalidJSON,
                    message: "The JSON matcher's expected value is not valid JSON: \(error) in \(what) "
                        + "\(BodyText.describe(data)). Fix the JSON."
                )
            )
        }
    }

    private init(expected: JSONValue?, problem: HTTPStubberError?) {
        self.expected = expected
        self.problem = problem
    }

    /// Whether the request's body is JSON equal to the expected value.
    /// - Parameters:
    ///   - request: The request.
    ///   - source: The stub or rule that owns the matcher.
    /// - Returns: `true` when it matches.
    public func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
        matchesURLRequest(request, source: source)
    }

    /// A description such as `body is JSON {"user":"mark"}`.
    public var description: String {
        "body is JSON " + (expected.map { Similarity.excerpt($0.description, limit: 80) } ?? "(invalid)")
    }
}

extension HTTPStubJSONMatcher: RequestMatcher {
    package func evaluate(
        _ request: HTTPIncomingRequest, source: any HTTPMatcherSource, variables: inout [String: URITemplate.Value]
    ) -> Bool {
        guard let expected, let body = request.body, let actual = try? JSONValue.parse(body) else { return false }
        return actual == expected
    }

    package func explain(_ request: HTTPIncomingRequest, source: any HTTPMatcherSource) -> MatcherCheck {
        guard let expected else {
            return MatcherCheck(matcher: description, passed: false, expected: nil, actual: nil, note: problem?.message)
        }
        guard let body = request.body, !body.isEmpty else {
            return MatcherCheck(
                matcher: description, passed: false, expected: expected.description, actual: "(no body)", note: nil
            )
        }
        let actual: JSONValue
        do {
            actual = try JSONValue.parse(body)
        } catch {
            return MatcherCheck(
                matcher: description, passed: false, expected: Similarity.excerpt(expected.description),
                actual: BodyText.describe(body), note: "the body is not JSON: \(error)", closeness: 0.1
            )
        }
        let differences = JSONValue.differences(expected: expected, actual: actual)
        return MatcherCheck(
            matcher: description, passed: differences.isEmpty, expected: Similarity.excerpt(expected.description),
            actual: Similarity.excerpt(actual.description),
            note: differences.isEmpty ? nil : differences.joined(separator: "; "),
            closeness: 0.3 + 0.6 * Similarity.of(expected.description, actual.description)
        )
    }
}
