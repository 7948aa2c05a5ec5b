import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects what a session delegate receives, with times, for tests of progressive delivery.
final class RecordingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Chunk {
        let data: Data
        let time: ContinuousClock.Instant
    }

    private let lock = NSLock()
    private var chunksStorage: [Chunk] = []
    private var responseStorage: URLResponse?
    private var responses = 0
    private var continuation: CheckedContinuation<(any Error)?, Never>?
    private var completion: (any Error)??

    var chunks: [Chunk] { lock.withLock { chunksStorage } }
    var response: URLResponse? { lock.withLock { responseStorage } }
    /// How many response heads arrived (one, for a correct delivery).
    var responseCount: Int { lock.withLock { responses } }
    var body: Data { chunks.reduce(into: Data()) { $0.append($1.data) } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        lock.withLock {
            responseStorage = response
            responses += 1
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { chunksStorage.append(Chunk(data: data, time: .now)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let waiting = lock.withLock { () -> CheckedContinuation<(any Error)?, Never>? in
            completion = .some(error)
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: error)
    }

    /// Waits for the task to complete; returns its error.
    func completed() async -> (any Error)? {
        await withCheckedContinuation { continuation in
            let done = lock.withLock { () -> (any Error)?? in
                if let completion { return completion }
                self.continuation = continuation
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}

/// Signals once, for tests that wait until a stub has received its request.
final class Signal: @unchecked Sendable {
    private let lock = NSLock()
    private var signalled = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func fire() {
        let toResume = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            signalled = true
            defer { waiters = [] }
            return waiters
        }
        toResume.forEach { $0.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool in
                if signalled { return true }
                waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}

extension URLSession {
    /// `data(for:)`, as text, or the error's description.
    func text(for request: URLRequest) async -> String {
        do {
            let (data, _) = try await data(for: request)
            return String(decoding: data, as: UTF8.self)
        } catch {
            return "error: \(error)"
        }
    }
}

/// Seconds elapsed since `start`.
func secondsSince(_ start: ContinuousClock.Instant) -> Double {
    (ContinuousClock.now - start).seconds
}

/// A session delegate that gives streamed uploads their body, as Alamofire's `upload(InputStream, to:)` does,
/// and records the rest.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let recording = RecordingDelegate()
    private let body: Data

    init(body: Data) {
        self.body = body
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping (InputStream?) -> Void
    ) {
        completionHandler(InputStream(data: body))
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        recording.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        recording.urlSession(session, dataTask: dataTask, didReceive: data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        recording.urlSession(session, task: task, didCompleteWithError: error)
    }
}
