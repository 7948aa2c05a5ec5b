import Foundation

extension HTTPStubRequest {
    /// Answers a method with a response object (read each time a request arrives, so later changes to it
    /// apply).
    /// - Parameters:
    ///   - method: The method.
    ///   - response: The response.
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func stub(for method: HTTPMethod, response: HTTPStubResponse) -> Self {
        update { $0.responses[method] = .fixed(response) }
        return self
    }

    /// Answers a method with a new response that a closure configures.
    ///
    /// ```swift
    /// stub.stub(for: .post) { response in
    ///     response.responseDelay = 5
    ///     response.headers = HTTPHeaders([.contentType: HTTPContentType.bmp.rawValue])
    ///     response.body = fileContent
    /// }
    /// ```
    /// - Parameters:
    ///   - method: The method.
    ///   - builder: Configures the response (a `200 OK` with no body to start with).
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func stub(for method: HTTPMethod, _ builder: (HTTPStubResponse) -> Void) -> Self {
        let response = HTTPStubResponse()
        builder(response)
        return stub(for: method, response: response)
    }

    /// Answers a method with a status code and an optional body.
    /// - Parameters:
    ///   - method: The method.
    ///   - code: The status code.
    ///   - delay: Seconds to wait before responding, or `nil`.
    ///   - contentType: The `Content-Type`, or `nil`.
    ///   - body: The body, or `nil`.
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func stub(
        for method: HTTPMethod, code: HTTPStatusCode = .ok, delay: TimeInterval? = nil,
        contentType: HTTPContentType? = nil, body: Data? = nil
    ) -> Self {
        let response = HTTPStubResponse(statusCode: code, contentType: contentType, body: body)
        response.responseDelay = delay
        return stub(for: method, response: response)
    }

    /// Answers a method with a UTF-8 text body.
    /// - Parameters:
    ///   - method: The method.
    ///   - code: The status code.
    ///   - delay: Seconds to wait before responding, or `nil`.
    ///   - contentType: The `Content-Type`; `text/plain` by default.
    ///   - body: The text.
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func stub(
        for method: HTTPMethod, code: HTTPStatusCode = .ok, delay: TimeInterval? = nil,
        contentType: HTTPContentType? = .text, body: String
    ) -> Self {
        stub(for: method, code: code, delay: delay, contentType: contentType, body: Data(body.utf8))
    }

    /// Answers a method with JSON bytes and `Content-Type: application/json`.
    /// - Parameters:
    ///   - method: The method.
    ///   - code: The status code.
    ///   - delay: Seconds to wait before responding, or `nil`.
    ///   - json: The JSON, sent as is.
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func stub(for method: HTTPMethod, code: HTTPStatusCode = .ok, delay: TimeInterval? = nil, json: Data)
        -> Self
    {
        stub(for: method, code: code, delay: delay, contentType: .json, body: json)
    }

    /// Answers a method with JSON text and `Content-Type: application/json`.
    /// - Parameters:
    ///   - method: The method.
    ///   - code: The status code.
    ///   - delay: Seconds to wait before responding, or `nil`.
    ///   - json: The JSON text, sent as UTF-8.
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func stub(for method: HTTPMethod, code: HTTPStatusCode = .ok, delay: TimeInterval? = nil, json: String)
        -> Self
    {
        stub(for: method, code: code, delay: delay, contentType: .json, body: Data(json.utf8))
    }

    /// Answers a method with the JSON encoding of a value and `Content-Type: application/json`.
    /// - Parameters:
    ///   - method: The method.
    ///   - code: The status code.
    ///   - delay: Seconds to wait before responding, or `nil`.
    ///   - object: The value to encode.
    ///   - encoder: The encoder.
    /// - Returns: The stub, to chain calls.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/encodingFailed`` when the value does not
    ///   encode.
    @discardableResult
    public func stub<Value: Encodable>(
        for method: HTTPMethod, code: HTTPStatusCode = .ok, delay: TimeInterval? = nil, object: Value,
        encoder: JSONEncoder = JSONEncoder()
    ) throws(HTTPStubberError) -> Self {
        let data: Data
        do {
            data = try encoder.encode(object)
        } catch {
            throw HTTPStubberError(
                code: .encodingFailed,
                message: "The response body of \(self) could not be encoded from \(Value.self): \(error)."
            )
        }
        return stub(for: method, code: code, delay: delay, json: data)
    }

    /// Answers a method with an error: the request fails with it.
    ///
    /// ```swift
    /// stub.stub(for: .get, error: URLError(.notConnectedToInternet))
    /// ```
    /// - Parameters:
    ///   - method: The method.
    ///   - delay: Seconds to wait before failing, or `nil`.
    ///   - error: The error.
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func stub(for method: HTTPMethod, delay: TimeInterval? = nil, error: any Error) -> Self {
        let response = HTTPStubResponse(error: error)
        response.responseDelay = delay
        return stub(for: method, response: response)
    }

    /// Answers a method with a response built from each request.
    ///
    /// ```swift
    /// stub.stub(for: .post, responseProvider: { request, stub in
    ///     let response = HTTPStubResponse()
    ///     if request.bodyText?.contains("mark") != true {
    ///         response.statusCode = .unauthorized
    ///     }
    ///     return response
    /// })
    /// ```
    /// - Parameters:
    ///   - method: The method.
    ///   - responseProvider: Builds the response from the request (with its body and URI template variables)
    ///     and the stub.
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func stub(
        for method: HTTPMethod,
        responseProvider: @escaping @Sendable (HTTPIncomingRequest, HTTPStubRequest) -> HTTPStubResponse
    ) -> Self {
        update { $0.responses[method] = .dynamic(.init(provide: responseProvider)) }
        return self
    }

    /// Answers every method with the request itself: status 200, the request's headers (plus `X-Echo-Method`
    /// and `X-Echo-URL`) and its body. A method with its own response keeps it.
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func stubEcho() -> Self {
        update { $0.everyMethod = .echo }
        return self
    }

    /// Removes the response of a method.
    /// - Parameter method: The method.
    /// - Returns: The stub, to chain calls.
    @discardableResult
    public func removeResponse(for method: HTTPMethod) -> Self {
        update { $0.responses[method] = nil }
        return self
    }
}
