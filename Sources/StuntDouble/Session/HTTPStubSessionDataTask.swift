import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A data task of an ``HTTPStubSession``: it sends its request when resumed and calls its completion handler
/// once, on the session's delegate queue.
///
/// Like a `URLSessionDataTask`: resuming a second time does nothing, and cancelling before the completion
/// handler starts makes it receive `URLError(.cancelled)`, whether or not the task was resumed (even when the
/// answer was ready: the handler reads the outcome when it runs, on the delegate queue). The stubber
/// receives the request in `resume()` itself, so requests arrive in the order their tasks were resumed (which
/// response sequences and scenarios depend on).
public final class HTTPStubSessionDataTask: URLSessionDataTaskProtocol, Sendable, CustomStringConvertible {
    /// The request the task was created with.
    public let originalRequest: URLRequest
    private let session: HTTPStubSession
    private let storage: Locked<Storage>

    private struct Storage: Sendable {
        var phase = URLSessionTask.State.suspended
        var cancelled = false
        var handler: Handler?
        var task: Task<Void, Never>?
        var response: URLResponse?
        var error: (any Error)?
    }

    /// Closures live in a struct: reading a closure stored directly behind a lock re-wraps it on each read.
    private struct Handler: Sendable {
        let call: DataTaskCompletionHandler
    }

    init(session: HTTPStubSession, request: URLRequest, completionHandler: @escaping DataTaskCompletionHandler) {
        self.session = session
        originalRequest = request
        storage = Locked(Storage(handler: Handler(call: completionHandler)))
    }

    /// The task's state: suspended until resumed, running, canceling, then completed.
    public var state: URLSessionTask.State {
        storage.withLock { $0.phase }
    }

    /// The response, once the completion handler was called with one.
    public var response: URLResponse? {
        storage.withLock { $0.response }
    }

    /// The error, once the completion handler was called with one.
    public var error: (any Error)? {
        storage.withLock { $0.error }
    }

    /// The method, URL and state.
    public var description: String {
        "HTTPStubSessionDataTask(\(originalRequest.httpMethod ?? "GET") \(originalRequest.url?.absoluteString ?? "?"), "
            + "\(state))"
    }

    /// Sends the request (the stubber receives it now) and plays its answer; does nothing after the first call
    /// or after `cancel()`.
    public func resume() {
        let starts = storage.withLock { storage -> Bool in
            guard storage.phase == .suspended, !storage.cancelled else { return false }
            storage.phase = .running
            return true
        }
        guard starts else { return }
        let exchange = session.receive(originalRequest)
        let task = Task.detached { [self, session] in
            finish(await session.play(exchange))
        }
        let cancelNow = storage.withLock { storage -> Bool in
            storage.task = task
            return storage.cancelled
        }
        if cancelNow {
            task.cancel()
        }
    }

    /// Cancels the task: unless its completion handler already started, it receives `URLError(.cancelled)`.
    public func cancel() {
        let (task, neverStarted) = storage.withLock { storage -> (Task<Void, Never>?, Bool) in
            guard storage.handler != nil, !storage.cancelled else { return (nil, false) }
            let neverStarted = storage.phase == .suspended
            storage.cancelled = true
            storage.phase = .canceling
            return (storage.task, neverStarted)
        }
        task?.cancel()
        if neverStarted {
            let cancelled = HTTPStubSession.cancelled(originalRequest.url)
            finish(HTTPStubSession.Played(outcome: .failure(cancelled, absence: nil), entry: nil, entryStart: .now))
        }
    }

    /// Hands the outcome to the delegate queue, where the completion handler receives it.
    private func finish(_ played: HTTPStubSession.Played) {
        session.delegateQueue.addOperation { [self] in
            deliver(played)
        }
    }

    /// Calls the completion handler, with the cancellation if `cancel()` came first, and records in the journal
    /// what the handler received.
    private func deliver(_ played: HTTPStubSession.Played) {
        let delivery = storage.withLock { storage -> (Handler, SendableValues)? in
            guard let handler = storage.handler else { return nil }
            storage.handler = nil
            storage.task = nil
            storage.phase = .completed
            let outcome: HTTPStubSession.Outcome =
                storage.cancelled
                ? .failure(HTTPStubSession.cancelled(originalRequest.url), absence: nil) : played.outcome
            let values = SendableValues(outcome.completionValues)
            storage.response = values.response
            storage.error = values.error
            return (handler, values)
        }
        guard let (handler, values) = delivery else { return }
        session.complete(played, received: (values.data, values.response, values.error))
        handler.call(values.data, values.response, values.error)
    }

    /// Foundation's values, handed to the delegate queue once.
    private struct SendableValues: @unchecked Sendable {
        let data: Data?
        let response: URLResponse?
        let error: (any Error)?

        init(_ values: (Data?, URLResponse?, (any Error)?)) {
            (data, response, error) = values
        }
    }
}
