import Foundation
import StuntDouble

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
                let violations = contract.violations(
                    ofResponse: response.statusCode.rawValue, headers: response.headers, body: response.body,
                    to: request
                )
                .filter { $0.rule != "path" }
                return violations.isEmpty ? [] : [ContractViolations(violations: violations)]
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

/// The name `LoadedOpenAPIDocument` had: it is a handle on a loaded document, not a mock of its own.
@available(*, deprecated, renamed: "LoadedOpenAPIDocument")
public typealias OpenAPIMock = LoadedOpenAPIDocument
