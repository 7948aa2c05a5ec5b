/// What a stub tells a server that answers browsers on other origins (CORS) about a path it serves: the methods
/// it has there and the request headers it reads, for the answer to a preflight. An OpenAPI document's stub
/// attaches one (under `(any CrossOriginRules).self`), so that its preflights are answered from the document.
package protocol CrossOriginRules: Sendable {
    /// The methods and request headers the stub serves at a request's path.
    /// - Parameter request: The request (a preflight: `OPTIONS` to the path).
    /// - Returns: The methods (`GET`, `POST`) and header names, or `nil` for a path the stub does not serve.
    func crossOrigin(for request: HTTPIncomingRequest) -> (methods: [String], headers: [String])?
}

extension HTTPStubRequest {
    /// What the stub says about cross-origin requests to the paths it serves, if anything.
    package var crossOriginRules: (any CrossOriginRules)? { attachments[(any CrossOriginRules).self] }
}
