import Foundation

/// Everything a stub says, as a value: what registries index and evaluate.
struct StubDefinition: Sendable {
    var name: String?
    var priority = 0
    var matchers: [any HTTPStubMatcherProtocol] = []
    var engine: [any RequestMatcher] = []
    var responses: [HTTPMethod: ResponseSource] = [:]
    /// The answer to methods without their own response (set by `stubEcho()`).
    var everyMethod: ResponseSource?

    mutating func append(_ matcher: any HTTPStubMatcherProtocol) {
        matchers.append(matcher)
        engine.append(ForeignMatcher.adapt(matcher))
    }

    func source(for method: HTTPMethod) -> ResponseSource? {
        responses[method] ?? everyMethod
    }

    /// The most selective index key among the matchers.
    var routing: RoutingKey {
        engine.map(\.routing).max { $0.selectivity < $1.selectivity } ?? .none
    }

    var problems: [HTTPStubberError] {
        engine.compactMap(\.problem)
    }

    /// The stubbed methods, sorted, for reports.
    var methodNames: String {
        let names = responses.keys.map(\.rawValue).sorted()
        if everyMethod != nil { return names.isEmpty ? "every method" : names.joined(separator: ", ") + ", any other" }
        return names.isEmpty ? "no method (add a response with stub(for:...))" : names.joined(separator: ", ")
    }
}

/// Where a stub's response for one method comes from.
enum ResponseSource: Sendable {
    /// A response object, read when the request arrives.
    case fixed(HTTPStubResponse)
    /// The request itself, sent back.
    case echo
    /// A closure that builds a response from the request.
    case dynamic(DynamicResponse)

    /// Closures live in a struct: reading a closure stored directly behind a lock re-wraps it on each read.
    struct DynamicResponse: Sendable {
        let provide: @Sendable (HTTPIncomingRequest, HTTPStubRequest) -> HTTPStubResponse
    }

    func response(for request: HTTPIncomingRequest, stub: HTTPStubRequest) -> HTTPStubResponse.Storage {
        switch self {
        case .fixed(let response):
            return response.snapshot()
        case .dynamic(let dynamic):
            return dynamic.provide(request, stub).snapshot()
        case .echo:
            var storage = HTTPStubResponse.Storage()
            storage.headers = request.headers
            storage.headers.remove(.contentLength)
            storage.headers[HTTPHeaders.Name(rawValue: "X-Echo-Method")] = request.method.rawValue
            storage.headers[HTTPHeaders.Name(rawValue: "X-Echo-URL")] = request.url.absoluteString
            storage.body = request.body
            return storage
        }
    }
}
