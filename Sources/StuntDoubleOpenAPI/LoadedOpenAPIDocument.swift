import Foundation
import StuntDouble
import StuntDoubleWireMock

/// An OpenAPI document loaded into a stubber: what `HTTPStubber.load(_:validatesRequests:answersRequests:answering:)`
/// returns, to unload it again (`HTTPStubber.unload(_:)`), with the stub that answers for it.
public final class LoadedOpenAPIDocument: Sendable {
    /// The contract.
    public let contract: OpenAPIContract
    /// The stub that answers the contract's operations (at the lowest priority, so that every other stub
    /// wins); journal entries of requests the contract answered or refused name it.
    public let stub: HTTPStubRequest
    let gate: HTTPRequestGate
    private let draws = Locked<UInt64>(0)
    /// The resources kept, when the document answers statefully.
    let state: StatefulMock?

    init(
        contract: OpenAPIContract, validatesRequests: Bool, answersRequests: Bool, answering: OpenAPIAnswering,
        resets: @escaping @Sendable () -> UInt64 = { 0 }, forwarded: ForwardedTraffic? = nil
    ) {
        self.contract = contract
        let state =
            answering.isStateful && answersRequests
            ? StatefulMock(
                contract: contract, answering: answering, seedsFromExamples: answering.startsFromExamples,
                resets: resets) : nil
        self.state = state
        // Named after the document, and made "in" it: logs and reports say `(shop.yaml:1)`.
        // What a stub server sends for the document: its callbacks after answers, its webhooks when asked.
        var attachments = StubAttachments()
        let callbacks = DocumentCallbacks(contract: contract, answering: answering)
        if answersRequests, !callbacks.isEmpty {
            attachments[[any StubFollowUp].self] = [callbacks]
            attachments[(any NamedWebhooks).self] = callbacks
        }
        // What a server answering browsers on other origins (CORS) answers their preflights with.
        attachments[(any CrossOriginRules).self] = DocumentCrossOrigin(contract: contract)
        let stub = HTTPStubRequest(
            name: "OpenAPI: \(contract.title)", priority: Int.min, fileID: contract.fileName, line: 1, mappingID: nil,
            attachments: attachments)
        self.stub = stub
        let forwardedCheck: (@Sendable (HTTPIncomingRequest) -> HTTPForwardedCheck?)? =
            if let forwarded {
                { request in
                    LoadedOpenAPIDocument.check(forwarded: request, against: contract, refusing: forwarded == .refused)
                }
            } else {
                nil
            }
        gate = HTTPRequestGate(
            stub: stub,
            refusal: { request in
                guard validatesRequests,
                    case .invalid(let operation?, let status, let violations, let allowed) = contract.check(request)
                else { return nil }
                return contract.problemResponse(
                    status: status, operation: operation, violations: violations, allowed: allowed)
            },
            responseCheck: { request, response in
                // A stub for a path the document does not have is not this document's to judge.
                let violations = contract.violations(
                    ofResponse: response.statusCode.rawValue, headers: response.headers, body: response.body,
                    to: request
                )
                .filter { $0.rule != "path" }
                return violations.isEmpty ? [] : [ContractViolations(violations: violations)]
            },
            forwardedCheck: forwardedCheck)
        guard answersRequests else { return }
        let draws = self.draws
        stub.match(
            IncomingRequestMatcher(name: "an operation of \(contract.title) (OpenAPI \(contract.fileName))") {
                request in
                if case .noPath = contract.route(request) { return false }
                return true
            }
        )
        .stubEveryMethod { request, _ in
            switch contract.route(request) {
            case .found(let match):
                if let state, let answer = state.answer(request, match: match) { return answer }
                // With validation, the gate refused every request that breaks the document before this; without
                // it, a request that breaks it is answered as its operation all the same.
                let draw = draws.withLock { value in
                    value &+= 1
                    return value
                }
                return contract.answer(request, operation: match.operation, settings: answering, draw: draw)
            case .methodNotAllowed, .noPath:
                guard case .invalid(let operation, let status, let violations, let allowed) = contract.check(request)
                else { return HTTPStubResponse(statusCode: .notFound) }
                return contract.problemResponse(
                    status: status, operation: operation, violations: violations, allowed: allowed)
            }
        }
    }
}

extension LoadedOpenAPIDocument {
    /// What becomes of forwarded traffic that breaks the document.
    enum ForwardedTraffic: Sendable {
        /// Reported: in `StuntDouble-Violations`, the journal and the log.
        case reported
        /// Refused: a request with the document's error, an upstream's answer with `502`.
        case refused
    }

    /// A validating proxy's look at a request it forwards: what the request breaks, and a check of the upstream's
    /// answer once it has all arrived. `nil` for a request to no operation of the document (not its to judge).
    static func check(forwarded request: HTTPIncomingRequest, against contract: OpenAPIContract, refusing: Bool)
        -> HTTPForwardedCheck?
    {
        guard case .found(let match) = contract.route(request) else { return nil }
        return HTTPForwardedCheck(
            request: findings(contract.violations(of: request), subject: .request),
            response: { status, headers, body in
                let broken = contract.violations(ofResponse: status, headers: headers, body: body, to: request)
                var found = findings(broken, subject: .upstreamResponse)
                if refusing, !broken.isEmpty {
                    found.replacement = contract.problemResponse(
                        status: 502, operation: match.operation, violations: broken, allowed: [],
                        about: "The upstream's response")
                }
                return found
            })
    }

    private static func findings(_ violations: [OpenAPIViolation], subject: ContractViolations.Subject)
        -> HTTPForwardedFindings
    {
        guard !violations.isEmpty else { return HTTPForwardedFindings() }
        return HTTPForwardedFindings(
            annotations: [ContractViolations(violations: violations, subject: subject)],
            summary: OpenAPIContract.headerSummary(of: violations))
    }

    /// The collections a stateful document keeps, as `/pets and /pets/{petId} (id: id)`; empty unless it
    /// answers statefully.
    public var statefulCollections: [String] {
        state?.collections.map(\.summary) ?? []
    }

    /// The resources a stateful document keeps at a collection's path (`/pets`, `/owners/7/pets`), as JSON, in
    /// the order they were made.
    /// - Parameter path: The collection's path, its variables filled in.
    /// - Returns: Each resource's JSON; empty for a path with none, or a document that is not stateful.
    public func resources(at path: String) -> [Data] {
        state?.resources(at: path).map { Data($0.jsonText.utf8) } ?? []
    }

    /// Starts a stateful document's resources over: empty, or as its examples have them. The stubber's
    /// `resetState()` (and the server's `POST /__admin/reset`) does the same.
    public func resetState() {
        state?.reset()
    }
}

/// The name `LoadedOpenAPIDocument` had: it is a handle on a loaded document, not a mock of its own.
@available(*, deprecated, renamed: "LoadedOpenAPIDocument")
public typealias OpenAPIMock = LoadedOpenAPIDocument
