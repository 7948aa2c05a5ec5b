import StuntDouble

/// A document's answer to a browser's preflight (CORS) for one of its paths: the methods the path has, and the
/// request headers its operations read (header parameters, API keys, `Authorization` for HTTP and OAuth schemes,
/// `Content-Type` for a body, and `Prefer`, which the mock reads).
struct DocumentCrossOrigin: CrossOriginRules {
    let contract: OpenAPIContract

    /// A method no document has, to ask the router for every method of a path.
    private static let probe = HTTPMethod(rawValue: "STUNTDOUBLE-PREFLIGHT")

    func crossOrigin(for request: HTTPIncomingRequest) -> (methods: [String], headers: [String])? {
        let path = OpenAPIContract.target(of: request).path
        guard case .methodNotAllowed(let template, let allowed) = contract.router.route(method: Self.probe, path: path)
        else { return nil }
        var methods = allowed.map(\.rawValue)
        if methods.contains("GET"), !methods.contains("HEAD") { methods.append("HEAD") }
        var headers: [String] = ["Prefer"]
        func add(_ name: String) {
            if !headers.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) { headers.append(name) }
        }
        for operation in contract.operations where operation.path == template {
            if operation.body != nil { add("Content-Type") }
            for parameter in operation.parameters where parameter.place == .header { add(parameter.name) }
            for requirement in operation.security {
                for scheme in requirement.schemes {
                    switch scheme.kind {
                    case .apiKey(let name, .header): add(name)
                    case .http, .bearerToken: add("Authorization")
                    case .apiKey, .mutualTLS: break
                    }
                }
            }
        }
        return (methods, headers)
    }
}
