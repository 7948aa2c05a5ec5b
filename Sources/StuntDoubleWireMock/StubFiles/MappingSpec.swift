import Foundation
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One stub mapping as read from a file, before it becomes a stub: plain values, so that files are read
/// once and their mappings installed in any number of stubbers (each with its own scenarios).
package struct MappingSpec: Sendable {
    package var id: UUID
    package var name: String?
    /// WireMock's priority: 1 is the highest, 5 the default.
    package var priority: Int?
    package var scenarioName: String?
    package var requiredScenarioState: String?
    package var newScenarioState: String?
    /// The method, or `nil` for any (`"ANY"` or none).
    package var method: HTTPMethod?
    var matchers: [any HTTPStubMatcherProtocol] = []
    /// The URL the mapping matches, as listings show it: `/users/{id}`, `/users/[0-9]+ (regex)`.
    package var urlSummary = "any URL"
    var response = ResponseSpec()
    /// Where the mapping is: the file as displayed, and its line.
    package var file: String
    package var line: Int
    /// Whether the file holds a list (`{"mappings": [...]}`) rather than this one mapping.
    package var isInList = false
    /// The mapping's JSON as written (for listings).
    package var json: JSONNode
    /// The features the mapping uses that StuntDouble lacks (`file:line:column: field: why`), read with
    /// ``StubFiles/UnsupportedFeatures/answerWithError``: its stub answers 500 naming them.
    package var unsupported: [String] = []
    /// The webhooks a stub server sends after answering with this mapping.
    var webhooks: [WebhookSpec] = []
    /// The lines of the mapping's file, to name the line and column of any of its values.
    package var lines: LineTable?

    /// Where a value of the mapping's JSON is written.
    package func position(of node: JSONNode) -> TextPosition {
        lines?.position(of: node.offset) ?? TextPosition(line: line, column: 1)
    }

    /// A mapping's response as a file gives it, for checks against an OpenAPI document.
    package struct FixedAnswer: Sendable {
        package let status: Int
        package let headers: HTTPHeaders
        package let body: Data
        /// Whether the body or headers are templates (rendered per request, so not known here).
        package let isTemplated: Bool
    }

    /// The response, or `nil` when it is no fixed answer (a fault, a proxy, a body file that could not be
    /// read).
    package var fixedAnswer: FixedAnswer? {
        guard response.fault == nil, response.proxy == nil, response.bodyFailure == nil else { return nil }
        return FixedAnswer(
            status: response.status, headers: response.headers, body: response.body ?? Data(),
            isTemplated: response.templates != nil)
    }

    /// The priority StuntDouble uses for a WireMock priority: WireMock's 1 (highest) to 5 (the default) and
    /// beyond become 4 to 0 and below, so that a file's default and a Swift stub's default (0) are equal and
    /// the most recently added wins between them.
    static func stuntDoublePriority(_ wireMockPriority: Int?) -> Int {
        5 - (wireMockPriority ?? 5)
    }
}

/// A mapping's response, as read.
struct ResponseSpec: Sendable {
    var status = 200
    var statusMessage: String?
    var headers = HTTPHeaders()
    var body: Data?
    /// Why the body cannot be served (a body file outside `__files/`, a missing file): the stub answers 500
    /// with this text, as WireMock does.
    var bodyFailure: String?
    /// `fixedDelayMilliseconds`.
    var fixedDelay: TimeInterval = 0
    var delayDistribution: DelayDistribution?
    /// `fault`: how a server breaks the connection instead of answering.
    var fault: HTTPStubFault?
    /// `proxyBaseUrl` (with `proxyUrlPrefixToRemove`, `additionalProxyRequestHeaders`): forward instead.
    var proxy: HTTPStubProxy?
    /// `chunkedDribbleDelay`: chunks, and the seconds over which they are sent.
    var dribble: (chunks: Int, duration: TimeInterval)?
    /// `serverSentEvents`: the events that are the body, or `nil`.
    var eventStream: HTTPStubEventStream?
    /// The compiled templates of a templated response (`transformers`, or global templating), or `nil`.
    var templates: Templates?

    /// A random delay, drawn for each request.
    enum DelayDistribution: Sendable {
        /// Always `seconds` (WireMock's `fixed`, with `milliseconds`).
        case fixed(TimeInterval)
        /// Between `lower` and `upper` seconds, evenly.
        case uniform(lower: TimeInterval, upper: TimeInterval)
        /// Log-normally around `median` seconds, with the given shape.
        case lognormal(median: TimeInterval, sigma: Double)

        /// One draw, in seconds.
        func sample() -> TimeInterval {
            var generator = SystemRandomNumberGenerator()
            switch self {
            case .fixed(let seconds):
                return seconds
            case .uniform(let lower, let upper):
                return upper > lower ? Double.random(in: lower...upper, using: &generator) : lower
            case .lognormal(let median, let sigma):
                // Box-Muller: a standard normal draw.
                let u1 = Double.random(in: Double.ulpOfOne..<1, using: &generator)
                let u2 = Double.random(in: 0..<1, using: &generator)
                let normal = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
                return median * exp(sigma * normal)
            }
        }
    }

    /// The response object, with a delay drawn now when the delay is random, and its templates rendered for
    /// `request`.
    func makeResponse(for request: HTTPIncomingRequest? = nil) -> HTTPStubResponse {
        let response = HTTPStubResponse()
        response.storage.withLock { storage in
            if let bodyFailure {
                storage.failWith(bodyFailure)
            } else {
                storage.statusCode = HTTPStatusCode(rawValue: status)
                storage.statusMessage = statusMessage
                storage.headers = headers
                storage.body = body
            }
            storage.fault = fault
            storage.proxy = proxy
            let delay = fixedDelay + (delayDistribution?.sample() ?? 0)
            storage.responseDelay = delay > 0 ? delay : nil
            if let dribble {
                storage.responseTime = .dribbled(chunks: dribble.chunks, over: dribble.duration)
            }
            if bodyFailure == nil { storage.eventStream = eventStream }
            if let templates, let request, bodyFailure == nil {
                templates.render(for: request, into: &storage)
            }
        }
        return response
    }
}

/// A stub mapping in WireMock's format, installed in a stubber: its stub and where it came from.
public struct StubMapping: Sendable, Identifiable, CustomStringConvertible {
    /// The mapping's `id` (or `uuid`); a mapping without one gets an id derived from its file and place, the
    /// same on every load.
    public let id: UUID
    /// The mapping's `name`, or `nil`.
    public let name: String?
    /// WireMock's priority as written (1 is the highest, 5 the default), or `nil` when the file gives none.
    public let priority: Int?
    /// The stub the mapping became.
    public let stub: HTTPStubRequest
    /// The file, as its path was given.
    public let file: String
    /// The line where the mapping starts.
    public let line: Int
    /// What the mapping matches, for listings: `GET /users/{id}`, `ANY /users/[0-9]+ (regex)`.
    public let requestSummary: String

    /// `mapping "name" (mappings/users.json:3)`.
    public var description: String {
        (name.map { "mapping \"\($0)\"" } ?? "mapping \(id.uuidString.lowercased())") + " (\(file):\(line))"
    }
}

extension MappingSpec {
    /// The stub this mapping makes in a stubber (whose scenarios it joins by name).
    package func makeStub(scenarios: (String) -> HTTPStubScenario) -> HTTPStubRequest {
        var attachments = StubAttachments()
        if unsupported.isEmpty, !webhooks.isEmpty { attachments[[WebhookSpec].self] = webhooks }
        let stub = HTTPStubRequest(
            name: name, priority: Self.stuntDoublePriority(priority), fileID: file, line: line, mappingID: id,
            attachments: attachments)
        for matcher in matchers {
            stub.match(matcher)
        }
        var response = response
        if !unsupported.isEmpty {
            response = ResponseSpec()
            response.bodyFailure =
                "StuntDouble cannot answer this request as WireMock would: the stub that matched it uses what "
                + "StuntDouble does not support yet, so it answers this error rather than something different.\n"
                + unsupported.map { "- \($0)\n" }.joined()
                + "Change the stub, or serve it with WireMock. `stuntdouble check` lists every such stub; "
                + "`stuntdouble serve --strict` refuses them at start.\n"
        }
        let source: ResponseSource
        if response.delayDistribution != nil || response.templates != nil {
            let response = response
            source = .dynamic(.init(provide: { request, _ in response.makeResponse(for: request) }))
        } else {
            source = .fixed(response.makeResponse())
        }
        stub.update { definition in
            if let method {
                definition.responses[method] = source
            } else {
                definition.everyMethod = source
            }
        }
        if let scenarioName {
            let scenario = scenarios(scenarioName)
            if let requiredScenarioState {
                stub.when(scenario, is: requiredScenarioState, then: newScenarioState)
            } else if let newScenarioState {
                stub.moves(scenario, to: newScenarioState)
            }
        }
        return stub
    }
}
