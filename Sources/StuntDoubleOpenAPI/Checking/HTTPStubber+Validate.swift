import Foundation
import StuntDouble

/// A rule of an OpenAPI document that a stub's answer breaks.
public struct OpenAPIStubViolation: Sendable, CustomStringConvertible {
    /// The stub.
    public let stub: HTTPStubRequest
    /// The request it was asked (made from the stub's URL, or from the document's operation).
    public let request: HTTPIncomingRequest
    /// The rule broken.
    public let violation: OpenAPIViolation

    /// `stub "name" (File.swift:12) answers GET /v2/products/7: body.price: ... (type, shop.yaml:40:9)`.
    public var description: String {
        "\(stub) answers \(request.method.rawValue) \(request.url.path): \(violation)"
    }
}

extension HTTPStubber {
    /// Checks the stubber's stubs against an OpenAPI document: each stub is asked what it answers (nothing is
    /// counted or journaled) and its answer is checked as the document says (status, media type, body,
    /// required headers); a stub for a path the document lacks is reported too.
    ///
    /// ```swift
    /// #expect(stubber.validate(against: contract).isEmpty)
    /// ```
    ///
    /// Which requests a stub is asked: those to the URL it names (a URL matcher, a stub file's `url` or
    /// `urlPath`), else one per operation of the document whose example path its URL template or regular
    /// expression matches. Stubs that match any URL, or only requests with bodies or headers a sample request
    /// lacks, are not asked; faults, errors and proxies are not checked.
    /// - Parameter contract: The document.
    /// - Returns: The broken rules, stub by stub, in precedence order.
    public func validate(against contract: OpenAPIContract) -> [OpenAPIStubViolation] {
        let own = Set(gateStubs.map(ObjectIdentifier.init))
        var found: [OpenAPIStubViolation] = []
        for stub in stubs where !own.contains(ObjectIdentifier(stub)) {
            for request in contract.sampleRequests(for: stub) {
                guard let plan = stub.preview(for: request), plan.proxy == nil, let response = plan.response else {
                    continue
                }
                let violations = contract.violations(
                    ofResponse: response.statusCode.rawValue, headers: response.headers, body: response.body,
                    to: request)
                found += violations.map { OpenAPIStubViolation(stub: stub, request: request, violation: $0) }
            }
        }
        return found
    }
}

extension OpenAPIContract {
    /// The requests a stub is asked when it is checked.
    func sampleRequests(for stub: HTTPStubRequest) -> [HTTPIncomingRequest] {
        let exact = stub.exactURLs
        if !exact.isEmpty {
            return exact.flatMap { text -> [HTTPIncomingRequest] in
                guard let url = URL(string: text.hasPrefix("/") ? "http://localhost" + text : text) else { return [] }
                var methods = stub.stubbedMethods
                if methods.isEmpty {
                    // Every method: those the document has for the path.
                    let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
                    let path = components?.percentEncodedPath ?? url.path
                    methods = operations.indices.filter { index in
                        if case .found(let match) = router.route(method: operations[index].method, path: path[...]) {
                            return match.operation == index
                        }
                        return false
                    }
                    .map { operations[$0].method }
                }
                return methods.compactMap { try? HTTPIncomingRequest(method: $0, url: url) }
            }
        }
        guard stub.readsURL else { return [] }
        return operations.indices.flatMap { index -> [HTTPIncomingRequest] in
            let path = samplePath(for: index)
            // The first origin whose request the stub matches.
            for origin in sampleOrigins {
                guard let url = URL(string: origin + path),
                    let request = try? HTTPIncomingRequest(method: operations[index].method, url: url),
                    stub.preview(for: request) != nil
                else { continue }
                return [request]
            }
            return []
        }
    }

    /// Scheme and host of the servers' absolute URLs, and `http://localhost`.
    private var sampleOrigins: [String] {
        var origins: [String] = []
        for url in serverURLs {
            guard let components = URLComponents(string: url), let scheme = components.scheme,
                let host = components.host
            else { continue }
            let origin = "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
            if !origins.contains(origin) { origins.append(origin) }
        }
        return origins + ["http://localhost"]
    }
}
