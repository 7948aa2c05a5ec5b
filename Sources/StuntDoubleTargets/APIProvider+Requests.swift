import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension APIProvider {
    /// Sends a target's request (or stubs it) and returns the response.
    ///
    /// Cancelling the calling task cancels the request, real or stubbed; the error's
    /// ``APIError/isCancellation`` is then `true`.
    /// - Parameter target: The target.
    /// - Returns: The response (validated by the target's ``TargetType/validationType``).
    /// - Throws: ``APIError``.
    public func request(_ target: Target) async throws(APIError) -> Response {
        try await result(for: target).get()
    }

    /// Sends a target's request (or stubs it) and calls a completion handler with the result.
    /// - Parameters:
    ///   - target: The target.
    ///   - callbackQueue: The queue for the completion, or `nil` for the provider's.
    ///   - completion: Called once with the result; with a cancellation error if the request was cancelled.
    /// - Returns: A token that cancels the request.
    @discardableResult
    public func request(
        _ target: Target, callbackQueue: DispatchQueue? = nil,
        completion: @escaping @Sendable (Result<Response, APIError>) -> Void
    ) -> any Cancellable {
        let queue = callbackQueue ?? self.callbackQueue
        let task = Task {
            var result = await self.result(for: target)
            if Task.isCancelled, case .success = result {
                result = .failure(Self.cancelled(target))
            }
            let final = result
            if let queue {
                queue.async { completion(final) }
            } else {
                completion(final)
            }
        }
        return CancellableTask(task: task)
    }

    /// The whole request: endpoint, plugins, real or stubbed answer, validation, plugins.
    func result(for target: Target) async -> Result<Response, APIError> {
        let endpoint = endpoint(target)
        let request: URLRequest
        do {
            request = try endpoint.urlRequest()
        } catch {
            return finish(.failure(error), target: target)
        }
        let prepared = plugins.reduce(request) { $1.prepare($0, target: target) }
        for plugin in plugins {
            plugin.willSend(prepared, target: target)
        }
        let answer: Result<Response, APIError>
        switch stubBehavior(for: target) {
        case .never:
            answer = await send(prepared, target: target)
        case .immediate:
            answer = Task.isCancelled ? .failure(Self.cancelled(target)) : Self.stub(endpoint, request: prepared)
        case .delayed(let seconds):
            do {
                try await Task.sleep(for: .seconds(max(0, seconds)))
                answer = Self.stub(endpoint, request: prepared)
            } catch {
                answer = .failure(Self.cancelled(target))
            }
        }
        return finish(Self.validate(answer, target.validationType), target: target)
    }

    private func finish(_ result: Result<Response, APIError>, target: Target) -> Result<Response, APIError> {
        for plugin in plugins {
            plugin.didReceive(result, target: target)
        }
        return plugins.reduce(result) { $1.process($0, target: target) }
    }

    private func send(_ request: URLRequest, target: Target) async -> Result<Response, APIError> {
        guard !Task.isCancelled else { return .failure(Self.cancelled(target)) }
        do {
            let (data, urlResponse) = try await session.data(for: request)
            let http = urlResponse as? HTTPURLResponse
            return .success(Response(statusCode: http?.statusCode ?? 0, data: data, request: request, response: http))
        } catch {
            return .failure(APIError.transport(error, request: request))
        }
    }

    private static func stub(_ endpoint: Endpoint, request: URLRequest) -> Result<Response, APIError> {
        switch endpoint.sampleResponseClosure() {
        case .networkResponse(let statusCode, let data):
            let http = request.url.flatMap {
                HTTPURLResponse(url: $0, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: nil)
            }
            return .success(Response(statusCode: statusCode, data: data, request: request, response: http))
        case .response(let http, let data):
            return .success(Response(statusCode: http.statusCode, data: data, request: request, response: http))
        case .networkError(let error):
            return .failure(APIError.transport(error, request: request))
        }
    }

    private static func validate(_ result: Result<Response, APIError>, _ validation: ValidationType)
        -> Result<Response, APIError>
    {
        guard case .success(let response) = result, let codes = validation.statusCodes,
            !codes.contains(response.statusCode)
        else { return result }
        return .failure(
            APIError(
                .statusCode,
                "The status code \(response.statusCode) of \(response.request?.url?.absoluteString ?? "the response") "
                    + "is not one the target accepts (\(validation)).",
                response: response))
    }

    static func cancelled(_ target: Target) -> APIError {
        APIError(
            .underlying, "The request to \(URL(target: target).absoluteString) was cancelled.",
            underlying: URLError(.cancelled))
    }
}

/// Cancels the task that runs a request.
struct CancellableTask: Cancellable {
    let task: Task<Void, Never>

    var isCancelled: Bool { task.isCancelled }

    func cancel() {
        task.cancel()
    }
}
