import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An answer due at once (a response with no delay, redirect, cookies or relay, or an error), delivered on the
/// task's work queue one turn after `startLoading` rather than inside it.
///
/// Why not inside `startLoading`: FoundationNetworking traps when `resume()` is called a second time on a task
/// whose protocol has already finished but whose completion has not yet been handed to the caller
/// (`TaskRegistry.swift:118: Fatal error: Trying to access a behaviour for a task that in not in the registry`;
/// any URLProtocol that answers inside `startLoading` crashes a process that calls `resume()` twice, within a few
/// thousand tries). A second `resume()` made right after the first reaches the work queue before this answer
/// does, finds the protocol still loading, and is ignored (see `StubbingURLProtocol.startLoading`).
///
/// Suspending pauses the answer and resuming delivers it; stopping (cancelling) drops it. Every call happens on
/// the task's work queue; the lock only makes that a guarantee rather than an assumption.
final class ImmediateAnswer: @unchecked Sendable {
    enum Outcome {
        case respond(URLResponse, URLCache.StoragePolicy, Data)
        case fail(any Error)
    }

    /// Weak: the protocol holds its answer.
    private weak var urlProtocol: URLProtocol?
    private let client: (any URLProtocolClient)?
    private let outcome: Outcome
    private let queue: DispatchQueue
    /// Records in the journal how delivery ended: the error, or `nil` once the response was delivered.
    private let journal: @Sendable ((any Error)?) -> Void
    private let lock = NSLock()
    // Guarded by `lock`:
    private var ended = false
    private var paused = false
    private var due = false

    init(
        urlProtocol: URLProtocol, client: (any URLProtocolClient)?, outcome: Outcome, queue: DispatchQueue,
        journal: @escaping @Sendable ((any Error)?) -> Void
    ) {
        self.urlProtocol = urlProtocol
        self.client = client
        self.outcome = outcome
        self.queue = queue
        self.journal = journal
    }

    /// Delivers on the next turn of the work queue.
    func schedule() {
        queue.async { self.deliver() }
    }

    private func deliver() {
        lock.lock()
        defer { lock.unlock() }
        guard !ended else { return }
        guard !paused else {
            due = true
            return
        }
        ended = true
        guard let urlProtocol else {
            // URLSession let go of the protocol without stopping it: nobody receives the answer.
            journal(URLError(.cancelled))
            return
        }
        switch outcome {
        case .respond(let response, let policy, let body):
            client?.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: policy)
            if !body.isEmpty {
                client?.urlProtocol(urlProtocol, didLoad: body)
            }
            // Journaled first: whoever sees the task end sees its journal entry complete.
            journal(nil)
            client?.urlProtocolDidFinishLoading(urlProtocol)
        case .fail(let error):
            journal(error)
            client?.urlProtocol(urlProtocol, didFailWithError: error)
        }
    }

    /// Stops at once (`stopLoading` of a cancelled task): nothing is delivered after this returns.
    func stop() {
        lock.withLock {
            guard !ended else { return }
            ended = true
            journal(URLError(.cancelled))
        }
    }

    /// Holds the answer while the task is suspended.
    func pause() {
        lock.withLock { paused = true }
    }

    /// Delivers a held answer once the task resumes.
    func resume() {
        let deliverNow = lock.withLock { () -> Bool in
            guard paused else { return false }
            paused = false
            defer { due = false }
            return due && !ended
        }
        if deliverNow {
            schedule()
        }
    }
}
