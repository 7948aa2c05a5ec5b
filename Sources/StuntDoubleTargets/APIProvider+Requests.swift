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
    ///
    /// An immediately stubbed request with no callback queue completes before this method returns (as
    /// tests written for synchronous stubs expect). Otherwise the completion runs on the callback queue, or on
    /// any thread when there is none.
    /// - Parameters:
    ///   - target: The target.
    ///   - callbackQueue: The queue for the completion, or `nil` for the provider's.
    ///   - completion: Called once with the result. If ``Cancellable/cancel()`` returns before the completion
    ///     runs, the result is the cancellation, never a late success.
    /// - Returns: A token that cancels the request.
    @discardableResult
    public func request(
        _ target: Target, callbackQueue: DispatchQueue? = nil,
        completion: @escaping @Sendable (Result<Response, APIError>) -> Void
    ) -> any Cancellable {
        let queue = callbackQueue ?? self.callbackQueue
        let token = CompletionToken()
        let deliver: @Sendable (Result<Response, APIError>) -> Void = { result in
            // Claimed at the last moment: a cancel() that returned before this point wins.
            guard let final = token.claim(result, cancelled: Self.cancelled(target)) else { return }
            completion(final)
        }
        if queue == nil, stubBehavior(for: target) == .immediate {
            deliver(immediateResult(for: target))
            return token
        }
        token.task = Task {
            let result = await self.result(for: target)
            if let queue {
                queue.async { deliver(result) }
            } else {
                deliver(result)
            }
        }
        return token
    }

    /// The whole request: endpoint, plugins, real or stubbed answer, validation, plugins.
    ///
    /// A request that cannot be built (see ``Endpoint/urlRequest()``) is never prepared nor sent: plugins see
    /// only its failure, in ``PluginType/didReceive(_:target:)`` and ``PluginType/process(_:target:)``.
    func result(for target: Target) async -> Result<Response, APIError> {
        let (endpoint, prepared): (Endpoint, URLRequest)
        switch prepare(target) {
        case .failure(let error): return finish(.failure(error), target: target)
        case .success(let built): (endpoint, prepared) = built
        }
        let answer: Result<Response, APIError>
        switch stubBehavior(for: target) {
        case .never:
            answer = await send(prepared, target: target)
        case .immediate:
            answer = Task.isCancelled ? .failure(Self.cancelled(target)) : Self.stub(endpoint, request: prepared)
        case .delayed(let seconds):
            do {
                try await Task.sleep(for: .seconds(Self.delay(seconds)))
                answer = Self.stub(endpoint, request: prepared)
            } catch {
                answer = .failure(Self.cancelled(target))
            }
        }
        return finish(Self.validate(answer, target.validationType), target: target)
    }

    /// The same steps for an immediately stubbed request, without suspending.
    private func immediateResult(for target: Target) -> Result<Response, APIError> {
        switch prepare(target) {
        case .failure(let error):
            return finish(.failure(error), target: target)
        case .success(let (endpoint, prepared)):
            return finish(Self.validate(Self.stub(endpoint, request: prepared), target.validationType), target: target)
        }
    }

    /// The endpoint and its request, prepared by every plugin, which are then told it is being sent.
    private func prepare(_ target: Target) -> Result<(Endpoint, URLRequest), APIError> {
        let endpoint = endpoint(target)
        let request: URLRequest
        do {
            request = try endpoint.urlRequest()
        } catch {
            return .failure(error)
        }
        let prepared = plugins.reduce(request) { $1.prepare($0, target: target) }
        for plugin in plugins {
            plugin.willSend(prepared, target: target)
        }
        return .success((endpoint, prepared))
    }

    /// A delay in seconds that `Task.sleep` accepts: negative or NaN is none, longer than a year (or infinite)
    /// is a year, in effect until cancelled.
    private static func delay(_ seconds: TimeInterval) -> Double {
        guard seconds > 0 else { return 0 }
        return min(seconds, 365 * 24 * 3600)
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

/// A request's cancellation and its single delivery: whichever comes first of `cancel()` and the moment the
/// completion is about to run decides what the completion receives.
final class CompletionToken: Cancellable, @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private var delivered = false
    private var storedTask: Task<Void, Never>?

    var task: Task<Void, Never>? {
        get { lock.withLock { storedTask } }
        set {
            let cancelNow = lock.withLock { () -> Bool in
                storedTask = newValue
                return cancelled
            }
            if cancelNow { newValue?.cancel() }
        }
    }

    var isCancelled: Bool { lock.withLock { cancelled } }

    func cancel() {
        let task = lock.withLock { () -> Task<Void, Never>? in
            cancelled = true
            return storedTask
        }
        task?.cancel()
    }

    /// The result to deliver (the cancellation, if `cancel()` came first), or `nil` if it was delivered already.
    func claim(_ result: Result<Response, APIError>, cancelled error: APIError) -> Result<Response, APIError>? {
        lock.withLock {
            guard !delivered else { return nil }
            delivered = true
            if cancelled, case .success = result {
                return .failure(error)
            }
            return result
        }
    }
}
