import Foundation
import StuntDouble

/// An OpenAPI document loaded into a stubber: what `HTTPStubber.load(_:validatesRequests:answersRequests:answering:)`
/// returns, to unload it again.
public final class OpenAPIMock: Sendable {
    /// The contract.
    public let contract: OpenAPIContract
    /// The stub that answers the contract's operations (at the lowest priority, so that every other stub
    /// wins); journal entries of requests the contract answered or refused name it.
    public let stub: HTTPStubRequest
    let gate: HTTPRequestGate
    private let draws = Locked<UInt64>(0)

    init(contract: OpenAPIContract, validatesRequests: Bool, answersRequests: Bool, answering: OpenAPIAnswering) {
        self.contract = contract
        // Named after the document, and made "in" it: logs and reports say `(shop.yaml:1)`.
        let stub = HTTPStubRequest(
            name: "OpenAPI: \(contract.title)", priority: Int.min, fileID: contract.fileName, line: 1)
        self.stub = stub
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
                let rules = contract.violations(
                    ofResponse: response.statusCode.rawValue, headers: response.headers, body: response.body,
                    to: request
                )
                .filter { $0.rule != "path" }.map(\.description)
                return rules.isEmpty ? [] : [ContractViolations(rules: rules)]
            })
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

extension HTTPStubber {
    /// Loads an OpenAPI document: every operation answers from its examples or values generated from its
    /// schemas, and requests that break the document's rules are refused with a problem report.
    ///
    /// ```swift
    /// let stubber = HTTPStubber()
    /// try stubber.load(openAPIAt: URL(fileURLWithPath: "openapi.yaml"))
    /// // GET /pets/1 answers the example of getPet's 200 response; GET /pets/x answers 400, naming the rule.
    /// ```
    ///
    /// Stubs added before or after win over the document for the requests they match (the document answers
    /// at the lowest priority); requests are checked against the document first either way.
    /// - Parameters:
    ///   - url: The document (JSON or YAML, OpenAPI 3.0 or 3.1).
    ///   - validatesRequests: Whether requests to the document's operations are checked first.
    ///   - answersRequests: Whether the document answers; `false` to check requests only and let stubs,
    ///     opt-in mode or a recording answer them (the server's `--validate-only`).
    ///   - answering: The seed and mode of generated values.
    /// - Returns: The loaded document, to ``unload(_:)`` it.
    /// - Throws: ``OpenAPIContractError`` when the document cannot be read.
    @discardableResult
    public func load(
        openAPIAt url: URL, validatesRequests: Bool = true, answersRequests: Bool = true,
        answering: OpenAPIAnswering = OpenAPIAnswering()
    ) throws(OpenAPIContractError) -> OpenAPIMock {
        load(
            try OpenAPIContract(contentsOf: url), validatesRequests: validatesRequests,
            answersRequests: answersRequests, answering: answering)
    }

    /// Loads a compiled OpenAPI document (see ``load(openAPIAt:validatesRequests:answersRequests:answering:)``).
    /// - Parameters:
    ///   - contract: The document.
    ///   - validatesRequests: Whether requests to the document's operations are checked first.
    ///   - answersRequests: Whether the document answers.
    ///   - answering: The seed and mode of generated values.
    /// - Returns: The loaded document, to ``unload(_:)`` it.
    @discardableResult
    public func load(
        _ contract: OpenAPIContract, validatesRequests: Bool = true, answersRequests: Bool = true,
        answering: OpenAPIAnswering = OpenAPIAnswering()
    ) -> OpenAPIMock {
        let mock = OpenAPIMock(
            contract: contract, validatesRequests: validatesRequests, answersRequests: answersRequests,
            answering: answering)
        add(gate: mock.gate)
        if answersRequests { add(stub: mock.stub) }
        return mock
    }

    /// Removes a loaded document: its answers and its checks.
    /// - Parameter mock: What `load` returned.
    public func unload(_ mock: OpenAPIMock) {
        remove(gate: mock.gate)
        remove(stub: mock.stub)
    }
}
