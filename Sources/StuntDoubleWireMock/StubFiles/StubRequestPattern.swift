import Foundation
import StuntDouble

/// A WireMock request pattern read from JSON: what a mapping's `request` says, and what the admin API's
/// `requests/count` and `requests/find` take.
package struct StubRequestPattern: Sendable {
    /// The method, or `nil` for any.
    package let method: HTTPMethod?
    let matchers: [any RequestMatcher]
    /// What the matchers see as the stub they belong to: one for the pattern, not one per request it is tried on
    /// (a journal search tries every entry).
    private let source = HTTPStubRequest()

    /// Whether a request satisfies the pattern.
    package func matches(_ request: HTTPIncomingRequest) -> Bool {
        if let method, method != request.method { return false }
        var variables: [String: URITemplate.Value] = [:]
        return matchers.allSatisfy { $0.evaluate(request, source: source, variables: &variables) }
    }

    /// Reads a pattern.
    /// - Parameters:
    ///   - data: The JSON, such as `{"method": "GET", "urlPath": "/users"}`.
    ///   - name: How diagnostics name the text.
    /// - Returns: The pattern (`nil` when there are errors) and every diagnostic.
    package static func read(_ data: Data, name: String) -> (
        pattern: StubRequestPattern?, diagnostics: [StubFileDiagnostic]
    ) {
        var reader = StubFileReader(file: name, bytes: Array(data), filesDirectory: nil)
        guard let node = JSONNode.parse(lenient: data) else {
            reader.report(.error, at: 0, field: nil, "the request pattern is not valid JSON")
            return (nil, reader.diagnostics)
        }
        var spec = MappingSpec(id: UUID(), file: name, line: 1, json: node)
        reader.readRequest(node, field: "", into: &spec)
        guard !reader.diagnostics.contains(where: { $0.severity == .error }) else { return (nil, reader.diagnostics) }
        return (
            StubRequestPattern(method: spec.method, matchers: spec.matchers.map(ForeignMatcher.adapt)),
            reader.diagnostics
        )
    }
}

/// A WireMock matcher object (`{"matchesJsonPath": "$.team"}`) read from JSON, for one text.
package struct StubValuePattern: Sendable {
    let pattern: ValuePattern

    /// Whether a text (or an absent one) satisfies the pattern.
    package func matches(_ text: String?) -> Bool {
        pattern.matches(text)
    }

    /// Whether bytes satisfy the pattern: `binaryEqualTo` compares them, the others read them as UTF-8.
    package func matches(body: Data?) -> Bool {
        pattern.matches(body: body)
    }

    /// Reads a pattern; `nil` and the diagnostics when it has errors.
    package static func read(_ data: Data, name: String) -> (
        pattern: StubValuePattern?, diagnostics: [StubFileDiagnostic]
    ) {
        var reader = StubFileReader(file: name, bytes: Array(data), filesDirectory: nil)
        guard let node = JSONNode.parse(lenient: data) else {
            reader.report(.error, at: 0, field: nil, "the pattern is not valid JSON")
            return (nil, reader.diagnostics)
        }
        let pattern = reader.readPattern(node, field: "")
        return (pattern.map(StubValuePattern.init), reader.diagnostics)
    }
}
