import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plays a stubber's answers to one URLProtocol client: the response head, the body and the end, each at
/// the time its plan says.
///
/// FoundationNetworking rules it follows (see the Linux notes article):
/// - it never blocks: waits are timers, and each step schedules the next, so steps of one response run in
///   order and other sessions never wait;
/// - client calls run on the task's work queue when it is known, never after `stopLoading` or the end;
/// - a suspended task pauses its timeline and a resumed one continues it (URLSession calls `stopLoading` on
///   suspend and `startLoading` again on resume);
/// - tasks whose caller keeps only the last body chunk receive the body in one piece, at the time its last
///   byte is due; session-delegate tasks receive every chunk when it is due;
/// - the timeout (the request's, or the session's `timeoutIntervalForRequest` when the request kept the default)
///   is enforced on the plan's timeline: a gap longer than it between the request and the response head, or
///   between chunks, fails with `URLError(.timedOut)`;
/// - redirects are followed here (the client cannot follow them), cookies are stored in the session's
///   storage, download tasks fail with an explanation, and requests the stubber lets through are fetched from
///   the network and relayed.
///
/// Here: its state, the fast path for answers due at once, and stopping, pausing and resuming. Building and
/// performing its `ExchangeTimeline` is in `ResponsePlayer+Timeline.swift`, relaying in `+Relay.swift`, reading
/// streamed upload bodies in `+Requests.swift`.
final class ResponsePlayer: @unchecked Sendable {
    static let timers = DispatchQueue(label: "StuntDouble.ResponsePlayer.timers", attributes: .concurrent)

    /// Weak: the protocol holds its player.
    weak var urlProtocol: URLProtocol?
    let client: (any URLProtocolClient)?
    let stubber: HTTPStubber
    let context: TaskIntrospection
    /// The session's cookie settings, read from the task's session when a response first needs them.
    lazy var cookies = CookieJar(context.session?.configuration)
    /// The task's work queue, read once in `startLoading` (on that queue).
    let workQueue: DispatchQueue?
    let timeout: Double
    /// The clock the timeline is played on: the system's, or a test's.
    let clock: DeliveryClock
    /// The request as the caller made it, whose settings (timeout, cache policy) relayed requests keep.
    let original: URLRequest
    let lock = NSLock()
    // Guarded by `lock`:
    /// What happens when: built from the stubber's decisions, performed by `run()` on timers.
    var timeline: ExchangeTimeline
    var stopped = false
    var finished = false
    /// Seconds after the start at which a suspended task paused, or `nil`.
    var pausedAt: Double?
    /// When the exchange began on `clock` (moved on by the time a suspended task spent paused).
    var startTime: UInt64
    var timer: DispatchWorkItem?
    var relayTask: URLSessionDataTask?
    /// A relayed body kept for a task that takes its body in one piece (completion handlers on Linux).
    var relayedBody = Data()
    /// The URL of the request being answered (changes with redirects), for timeout errors.
    var currentURL: URL?
    /// The journal entry of the request being answered (changes with redirects), and when it was received.
    var journalEntry: (number: Int, receivedAt: ContinuousClock.Instant)?
    /// The status code handed to the client, and the body bytes since, for the journal.
    var delivered: (statusCode: Int, bodyByteCount: Int)?

    enum Action {
        case receive(URLResponse, URLCache.StoragePolicy)
        case load(Data)
        case finish
        case fail(any Error)
    }

    init(
        urlProtocol: URLProtocol, stubber: HTTPStubber, client: (any URLProtocolClient)?, task: URLSessionTask?,
        request: URLRequest
    ) {
        self.urlProtocol = urlProtocol
        self.stubber = stubber
        self.client = client
        self.original = request
        let context = TaskIntrospection(task)
        self.context = context
        self.workQueue = context.workQueue
        let timeout = Self.timeout(of: request, configured: context.session?.configuration.timeoutIntervalForRequest)
        self.timeout = timeout
        self.timeline = ExchangeTimeline(timeout: timeout)
        let clock = stubber.deliveryClock
        self.clock = clock
        self.startTime = clock.now()
        self.currentURL = request.url
    }

    /// The request's timeout, or the session's when the request kept the default (60 seconds), as
    /// FoundationNetworking's own HTTP protocol does (and `HTTPStubSession` too).
    static func timeout(of request: URLRequest, configured: Double?) -> Double {
        let requested = request.timeoutInterval
        if requested != 60, requested > 0 { return requested }
        if let configured, configured > 0 { return configured }
        return 60
    }

    // MARK: - Starting, pausing and stopping

    /// How a request is being answered: what `stopLoading` must stop, pause or resume.
    enum Answer {
        /// Due at once: delivered on the next turn of the task's work queue.
        case immediate(ImmediateAnswer)
        /// Played over time.
        case playing(ResponsePlayer)
        /// Delivered already (the task's work queue could not be found: delivered inside `startLoading`).
        case delivered

        func stop() {
            switch self {
            case .immediate(let answer): answer.stop()
            case .playing(let player): player.stop()
            case .delivered: break
            }
        }

        func pause() {
            switch self {
            case .immediate(let answer): answer.pause()
            case .playing(let player): player.pause()
            case .delivered: break
            }
        }

        func resume() {
            switch self {
            case .immediate(let answer): answer.resume()
            case .playing(let player): player.resume()
            case .delivered: break
            }
        }
    }

    /// Answers a request; called in `startLoading`, on the session's work queue.
    ///
    /// An answer that is due at once and needs nothing more (no redirect, no cookies) gets no player: it is
    /// delivered on the next turn of the work queue (see ``ImmediateAnswer`` for why not at once). Anything else
    /// gets a player that plays it over time, starting on that next turn too.
    /// - Returns: What `stopLoading` must stop.
    static func start(
        urlProtocol: URLProtocol, stubber found: Result<HTTPStubber, HTTPStubberError>,
        client: (any URLProtocolClient)?, request: URLRequest, task: URLSessionTask?
    ) -> Answer {
        func answer(_ outcome: ImmediateAnswer.Outcome, journal: @escaping @Sendable ((any Error)?) -> Void) -> Answer {
            guard let task, let queue = TaskIntrospection.workQueue(of: task) else {
                switch outcome {
                case .respond(let response, let policy, let body):
                    client?.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: policy)
                    if !body.isEmpty { client?.urlProtocol(urlProtocol, didLoad: body) }
                    // Journaled first: whoever sees the task end sees its journal entry complete.
                    journal(nil)
                    client?.urlProtocolDidFinishLoading(urlProtocol)
                case .fail(let error):
                    journal(error)
                    client?.urlProtocol(urlProtocol, didFailWithError: error)
                }
                return .delivered
            }
            let answer = ImmediateAnswer(
                urlProtocol: urlProtocol, client: client, outcome: outcome, queue: queue, journal: journal)
            answer.schedule()
            return .immediate(answer)
        }
        func fail(_ error: any Error) -> Answer {
            answer(.fail(error), journal: { _ in })
        }
        let stubber: HTTPStubber
        switch found {
        case .success(let found): stubber = found
        case .failure(let error): return fail(error)
        }
        #if canImport(FoundationNetworking)
        if task is URLSessionUploadTask, request.httpBody == nil, request.httpBodyStream == nil,
            case .streamed = TaskIntrospection(task).uploadBody()
        {
            let player = ResponsePlayer(
                urlProtocol: urlProtocol, stubber: stubber, client: client, task: task, request: request)
            player.startAfterReadingStreamedBody(of: request)
            return .playing(player)
        }
        #endif
        let incoming: HTTPIncomingRequest
        do {
            incoming = try makeIncomingRequest(request, task: task)
        } catch {
            return fail(error)
        }
        let receivedAt = ContinuousClock.now
        let (decision, entry) = stubber.decide(incoming, via: .urlSession, received: receivedAt)
        /// Fails the request, recording the error in its journal entry.
        func failJournaled(_ error: any Error) -> Answer {
            answer(.fail(error)) { _ in stubber.complete(entry, after: .now - receivedAt, error: error) }
        }
        #if canImport(FoundationNetworking)
        if task is URLSessionDownloadTask {
            // Journaled like any request (verify and the unmatched-request checks see it), then refused.
            return failJournaled(
                HTTPStubberError(
                    code: .unsupportedTask,
                    message: "Download tasks cannot be stubbed through URLProtocol on Linux: FoundationNetworking "
                        + "gives a custom URLProtocol no way to hand over the downloaded file (it traps or returns no "
                        + "file). Use data(for:) and write the data to a file yourself."
                ))
        }
        #endif
        switch decision {
        case .unmatched(let report):
            return failJournaled(
                HTTPStubberError(code: .unmatchedRequest, message: report.description, report: report))
        case .stub(let plan)
        where plan.isImmediate && Redirect.target(of: plan) == nil && plan.proxy == nil
            && plan.response?.headers.contains(.setCookie) != true:
            guard let response = plan.response else {
                return failJournaled(plan.error ?? URLError(.unknown))
            }
            guard let urlResponse = urlResponse(response, url: plan.request.url) else {
                return failJournaled(invalidResponse(plan))
            }
            let statusCode = response.statusCode.rawValue
            let bodyByteCount = response.body.count
            return answer(.respond(urlResponse, response.cachePolicy, response.body)) { error in
                stubber.complete(
                    entry, after: .now - receivedAt, error: error, statusCode: statusCode,
                    bodyByteCount: bodyByteCount)
            }
        default:
            let player = ResponsePlayer(
                urlProtocol: urlProtocol, stubber: stubber, client: client, task: task, request: request
            )
            player.lock.withLock {
                player.journalEntry = (entry, receivedAt)
                player.decide(incoming, decision: decision, hop: 0, at: 0)
            }
            // Not inside startLoading, for the reason ImmediateAnswer gives.
            player.onWorkQueue { player.run() }
            return .playing(player)
        }
    }

    /// Stops at once: no client call happens after this returns.
    func stop() {
        let relay = lock.withLock { () -> URLSessionDataTask? in
            if !stopped, !finished {
                completeJournalEntry(URLError(.cancelled))
            }
            stopped = true
            endTimeline()
            defer { relayTask = nil }
            return relayTask
        }
        // Cancelling a task from a session work queue would deadlock: do it from elsewhere.
        if let relay {
            DispatchQueue.global().async { relay.cancel() }
        }
    }

    /// Pauses the timeline of a suspended task.
    func pause() {
        lock.withLock {
            guard !stopped, !finished, pausedAt == nil else { return }
            pausedAt = elapsed
            timer?.cancel()
            timer = nil
        }
    }

    /// Continues the timeline where it paused, when a suspended task resumes; does nothing otherwise (a
    /// second `resume()` calls `startLoading` again).
    func resume() {
        let resumed = lock.withLock { () -> Bool in
            guard let pausedAt, !stopped, !finished else { return false }
            // Move the start so that the time spent suspended does not count.
            startTime = clock.now() &- UInt64(pausedAt * 1e9)
            self.pausedAt = nil
            return true
        }
        if resumed {
            run()
        }
    }

    /// Records in the journal how the delivery of the current request ended (the lock is held): with an
    /// error, or with what the client received (or the redirect's status, when it answered with one).
    func completeJournalEntry(_ error: (any Error)?, redirectStatus: Int? = nil) {
        guard let (number, receivedAt) = journalEntry else { return }
        journalEntry = nil
        stubber.complete(
            number, after: .now - receivedAt, error: error, statusCode: redirectStatus ?? delivered?.statusCode,
            bodyByteCount: delivered?.bodyByteCount)
    }

    /// Forgets what is left to do once the task ended (so that no timer or closure keeps the player alive).
    func endTimeline() {
        timer?.cancel()
        timer = nil
        timeline.clear()
    }
}
