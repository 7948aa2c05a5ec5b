import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects what a session delegate receives, with times, for tests of progressive delivery; and answers as
/// a client library's delegate would: the body of streamed uploads (Alamofire's `upload(InputStream, to:)`),
/// and a decision about each redirect (Alamofire's `RedirectHandler`).
final class RecordingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Chunk {
        let data: Data
        let time: ContinuousClock.Instant
    }

    private let streamedBody: Data?
    private let redirect: @Sendable (URLRequest) -> URLRequest?
    private let onChunk: @Sendable (_ count: Int, _ task: URLSessionDataTask) -> Void
    private let lock = NSLock()
    private var chunksStorage: [Chunk] = []
    private var responseStorage: URLResponse?
    private var responses = 0
    private var continuation: CheckedContinuation<(any Error)?, Never>?
    private var completion: (any Error)??
    private var redirects: [(status: Int, target: URL?)] = []
    private var sent: [Int64] = []

    /// - Parameters:
    ///   - streamedBody: The body a streamed upload asks for, or `nil` to give none.
    ///   - redirect: The request to follow for a proposed redirect, or `nil` to refuse it; follows by default.
    ///   - onChunk: Called on the delegate queue after each body chunk is kept, with how many have arrived.
    init(
        streamedBody: Data? = nil, redirect: @escaping @Sendable (URLRequest) -> URLRequest? = { $0 },
        onChunk: @escaping @Sendable (_ count: Int, _ task: URLSessionDataTask) -> Void = { _, _ in }
    ) {
        self.streamedBody = streamedBody
        self.redirect = redirect
        self.onChunk = onChunk
    }

    /// The redirects the delegate was asked about: status and proposed target.
    var redirectsAsked: [(status: Int, target: URL?)] { lock.withLock { redirects } }
    /// The totals `didSendBodyData` reported, each before any response arrived (-1 if after).
    var bytesSent: [Int64] { lock.withLock { sent } }

    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping (InputStream?) -> Void
    ) {
        completionHandler(streamedBody.map { InputStream(data: $0) })
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        lock.withLock { redirects.append((response.statusCode, request.url)) }
        completionHandler(redirect(request))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        lock.withLock { sent.append(responseStorage == nil ? totalBytesSent : -1) }
    }

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
        let count = lock.withLock {
            chunksStorage.append(Chunk(data: data, time: .now))
            return chunksStorage.count
        }
        onChunk(count, dataTask)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let waiting = lock.withLock { () -> CheckedContinuation<(any Error)?, Never>? in
            completion = .some(error)
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: error)
    }

    /// Whether the task has completed.
    var isComplete: Bool { lock.withLock { completion != nil } }

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
