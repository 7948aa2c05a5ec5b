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
final class ResponsePlayer: @unchecked Sendable {
    private static let timers = DispatchQueue(label: "StuntDouble.ResponsePlayer.timers", attributes: .concurrent)

    /// Weak: the protocol holds its player.
    private weak var urlProtocol: URLProtocol?
    private let client: (any URLProtocolClient)?
    private let stubber: HTTPStubber
    let context: TaskIntrospection
    /// The session's cookie settings, read from the task's session when a response first needs them.
    private lazy var cookies = CookieJar(context.session?.configuration)
    /// The task's work queue, read once in `startLoading` (on that queue).
    private let workQueue: DispatchQueue?
    private let timeout: Double
    /// The request as the caller made it, whose settings (timeout, cache policy) relayed requests keep.
    private let original: URLRequest
    private let lock = NSLock()
    // Guarded by `lock`:
    /// What happens when: built from the stubber's decisions, performed by `run()` on timers.
    private var timeline: ExchangeTimeline
    private var stopped = false
    private var finished = false
    /// Seconds after the start at which a suspended task paused, or `nil`.
    private var pausedAt: Double?
    private var startTime = DispatchTime.now()
    private var timer: DispatchWorkItem?
    private var relayTask: URLSessionDataTask?
    /// The URL of the request being answered (changes with redirects), for timeout errors.
    private var currentURL: URL?
    /// The journal entry of the request being answered (changes with redirects), and when it was received.
    private var journalEntry: (number: Int, receivedAt: ContinuousClock.Instant)?
    /// The status code handed to the client, and the body bytes since, for the journal.
    private var delivered: (statusCode: Int, bodyByteCount: Int)?

    private enum Action {
        case receive(URLResponse, URLCache.StoragePolicy)
        case load(Data)
        case finish
        case fail(any Error)
    }

    private init(
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
                    client?.urlProtocolDidFinishLoading(urlProtocol)
                    journal(nil)
                case .fail(let error):
                    client?.urlProtocol(urlProtocol, didFailWithError: error)
                    journal(error)
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
        where plan.completionDeadline == .zero && Redirect.target(of: plan) == nil && plan.proxy == nil
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

    #if canImport(FoundationNetworking)
    /// Answers a streamed upload (`uploadTask(withStreamedRequest:)`) once its body is read: FoundationNetworking
    /// asks the task's delegate for the body stream (`urlSession(_:task:needNewBodyStream:)`) only for its own
    /// HTTP protocol, so StuntDouble asks it the same way, on the session's delegate queue, and reads the stream
    /// away from the work queue. The request's timeout applies to the wait; a delegate that gives no stream
    /// fails the request with an error that says so.
    private func startAfterReadingStreamedBody(of request: URLRequest) {
        let url = request.url?.absoluteString ?? "?"
        let source = lock.withLock { () -> TaskIntrospection.TaskDelegate? in
            timeline.wait(from: 0)
            return context.delegate
        }
        run()
        guard let source else {
            deliverStreamedBody(
                .failure(
                    HTTPStubberError(
                        code: .unreadableRequestBody,
                        message: "The body of the streamed upload to \(url) cannot be read: StuntDouble found no "
                            + "session delegate to ask for its body stream. Give the session a delegate that "
                            + "implements urlSession(_:task:needNewBodyStream:), or upload with upload(for:from:)."
                    )), for: request)
            return
        }
        source.bodyStream { [weak self] stream in
            guard let self else { return }
            guard let stream else {
                deliverStreamedBody(
                    .failure(
                        HTTPStubberError(
                            code: .unreadableRequestBody,
                            message: "The streamed upload to \(url) has no body: its delegate's "
                                + "urlSession(_:task:needNewBodyStream:) gave no stream (or the delegate does not "
                                + "implement it). Give it a stream, or upload with upload(for:from:)."
                        )), for: request)
                return
            }
            // Reading can block (a bound stream pair fed by another thread): never on the work queue.
            DispatchQueue.global().async { [weak self] in
                let body: Result<Data, HTTPStubberError>
                do throws(HTTPIncomingRequest.StreamError) {
                    body = .success(try HTTPIncomingRequest.read(stream.stream))
                } catch {
                    body = .failure(
                        HTTPStubberError(
                            code: .unreadableRequestBody,
                            message: "The body stream of the streamed upload to \(url) failed: \(error.reason)."))
                }
                self?.deliverStreamedBody(body, for: request)
            }
        }
    }

    /// Continues a streamed upload with its body (or fails it), on the task's work queue.
    private func deliverStreamedBody(_ body: Result<Data, HTTPStubberError>, for request: URLRequest) {
        onWorkQueue { [self] in
            lock.withLock {
                guard !stopped, !finished else { return }
                endTimeline()  // the wait's timeout step
                let now = elapsed
                timeline.resume(at: now)
                do {
                    var withBody = request
                    withBody.httpBody = try body.get()
                    context.delegate?.didSendBody(count: withBody.httpBody?.count ?? 0)
                    decide(try HTTPIncomingRequest(withBody), hop: 0, at: now)
                } catch {
                    timeline.fail(error, at: now)
                }
            }
            run()
        }
    }
    #endif

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
            startTime = .now() - pausedAt
            self.pausedAt = nil
            return true
        }
        if resumed {
            run()
        }
    }

    /// Records in the journal how the delivery of the current request ended (the lock is held): with an
    /// error, or with what the client received (or the redirect's status, when it answered with one).
    private func completeJournalEntry(_ error: (any Error)?, redirectStatus: Int? = nil) {
        guard let (number, receivedAt) = journalEntry else { return }
        journalEntry = nil
        stubber.complete(
            number, after: .now - receivedAt, error: error, statusCode: redirectStatus ?? delivered?.statusCode,
            bodyByteCount: delivered?.bodyByteCount)
    }

    /// Forgets what is left to do once the task ended (so that no timer or closure keeps the player alive).
    private func endTimeline() {
        timer?.cancel()
        timer = nil
        timeline.clear()
    }

    private static func makeIncomingRequest(_ request: URLRequest, task: URLSessionTask?) throws(HTTPStubberError)
        -> HTTPIncomingRequest
    {
        guard task is URLSessionUploadTask else {
            return try HTTPIncomingRequest(request)
        }
        // An upload's body is the task's, not the request's (whose httpBody, if any, is stale). Its delegate
        // hears that the body was sent (in one piece), as for a real upload.
        let introspection = TaskIntrospection(task)
        switch introspection.uploadBody() {
        case .notApplicable, .streamed:  // a streamed upload here carries its stream in the request
            let incoming = try HTTPIncomingRequest(request)
            introspection.delegate?.didSendBody(count: incoming.body?.count ?? 0)
            return incoming
        case .body(let body):
            var withBody = request
            withBody.httpBody = body
            introspection.delegate?.didSendBody(count: body?.count ?? 0)
            return try HTTPIncomingRequest(withBody)
        case .unreadable(let why):
            if request.httpBody != nil || request.httpBodyStream != nil {
                return try HTTPIncomingRequest(request)
            }
            throw HTTPStubberError(
                code: .unreadableRequestBody,
                message: "The body of the upload to \(request.url?.absoluteString ?? "?") cannot be read: \(why). "
                    + "Send it with a data task whose request has an httpBody instead."
            )
        }
    }

    // MARK: - Building the timeline (called with the lock held)

    /// Asks the stubber about a request and appends what follows: a final response, a redirect, a relay or a
    /// failure. `offset` is when the request is made, in seconds after the start.
    private func decide(_ request: HTTPIncomingRequest, decision: HTTPStubDecision? = nil, hop: Int, at offset: Double)
    {
        currentURL = request.url
        let decision =
            decision
            ?? {
                let (decision, entry) = stubber.decide(request, via: .urlSession)
                journalEntry = (entry, .now)
                return decision
            }()
        timeline.schedule(decision, for: request, hop: hop, at: offset)
    }

    /// Follows a redirect to its next request.
    private func follow(_ plan: HTTPResponsePlan, to next: HTTPIncomingRequest, hop: Int, at time: Double) {
        // This request's delivery ended when its 3xx arrived: to the redirect.
        completeJournalEntry(nil, redirectStatus: plan.response?.statusCode.rawValue)
        decide(next, hop: hop + 1, at: time)
    }

    /// Asks the task's delegate whether to follow a redirect, as URLSession does for a server's redirect; the
    /// timeline waits for the answer (within the timeout). The delegate may change the next request, or refuse
    /// it: then the redirect's response is the final one.
    private func ask(
        _ delegate: TaskIntrospection.TaskDelegate, about plan: HTTPResponsePlan, _ head: HTTPURLResponse,
        next: HTTPIncomingRequest, hop: Int, at time: Double
    ) {
        timeline.wait(from: time)
        let waitingSince = time
        delegate.willRedirect(head, to: next.urlRequest) { [weak self] chosen in
            self?.onWorkQueue { [self] in
                guard let self else { return }
                lock.withLock {
                    guard !stopped, !finished else { return }
                    endTimeline()  // the wait's timeout step
                    let now = max(elapsed, waitingSince)
                    timeline.resume(at: now)
                    guard let chosen else {
                        // Refused: the 3xx is delivered as it is, now.
                        timeline.scheduleResponse(plan, at: now - plan.responseDeadline.seconds)
                        return
                    }
                    do {
                        follow(plan, to: try HTTPIncomingRequest(chosen), hop: hop, at: now)
                    } catch {
                        timeline.fail(error, at: now)
                    }
                }
                run()
            }
        }
    }

    /// Runs work on the task's work queue (or here, when it is not known).
    private func onWorkQueue(_ work: @escaping @Sendable () -> Void) {
        if let workQueue {
            workQueue.async(execute: work)
        } else {
            work()
        }
    }

    /// Performs a step of the timeline (the lock is held).
    private func perform(_ step: ExchangeTimeline.Step, at time: Double) {
        switch step {
        case .relay(let request, let recording, let hop):
            relay(request.urlRequest, first: hop == 0, recording: recording.map { ($0, request) })
        case .forward(let forwarded, let hop):
            relay(forwarded, first: hop == 0)
        case .redirect(let plan, let target, let request, let hop):
            // The redirect's cookies are stored before the next request is built, so that it carries them.
            cookies.store(plan.response, for: request.url)
            switch Redirect.next(after: plan, to: target, hop: hop, cookies: cookies) {
            case .follow(let nextRequest):
                if let delegate = context.delegate, let response = plan.response,
                    let head = Self.urlResponse(response, url: request.url)
                {
                    ask(delegate, about: plan, head, next: nextRequest, hop: hop, at: time)
                } else {
                    follow(plan, to: nextRequest, hop: hop, at: time)
                }
            case .fail(let error): timeline.fail(error, at: time)
            }
        case .head:
            guard let plan = timeline.response else { return }
            guard let response = plan.response else {
                perform(.fail(plan.error ?? URLError(.unknown)))
                return
            }
            let url = plan.request.url
            guard let urlResponse = Self.urlResponse(response, url: url) else {
                perform(.fail(Self.invalidResponse(plan)))
                return
            }
            if response.headers.contains(.setCookie) {
                cookies.store(response, for: url)
            }
            perform(.receive(urlResponse, response.cachePolicy))
        case .chunk(let index):
            guard let plan = timeline.response, let body = plan.response?.body else { return }
            if plan.chunks.count > 1 && context.receivesChunks {
                perform(.load(body.subdata(in: plan.chunks[index].range)))
            } else if index == plan.chunks.count - 1 {
                perform(.load(body))
            }
        case .finish:
            perform(.finish)
        case .fail(let error):
            perform(.fail(error))
        case .timeOut:
            perform(.fail(timeoutError()))
        }
    }

    private func timeoutError() -> URLError {
        URLError(.timedOut, userInfo: Redirect.failingURLInfo(currentURL, "The request timed out."))
    }

    // MARK: - Running the timeline

    private var elapsed: Double {
        Double(DispatchTime.now().uptimeNanoseconds &- startTime.uptimeNanoseconds) / 1e9
    }

    /// Performs every step that is due, then schedules a wake-up for the next one.
    private func run() {
        lock.lock()
        defer { lock.unlock() }
        while !stopped, !finished, pausedAt == nil, let entry = timeline.next {
            let wait = entry.time - elapsed
            if wait > 0.0002 {
                schedule(after: wait)
                return
            }
            _ = timeline.removeNext()
            perform(entry.step, at: entry.time)
        }
    }

    /// Wakes the player at a time (the lock is held). The timer holds the player weakly, so that a cancelled
    /// timer keeps nothing alive until its deadline.
    private func schedule(after wait: Double) {
        timer?.cancel()
        let deadline = startTime + (elapsed + wait)
        let queue = workQueue
        let work = DispatchWorkItem { [weak self] in
            guard let self else { return }
            if let queue {
                queue.async { self.run() }
            } else {
                run()
            }
        }
        timer = work
        Self.timers.asyncAfter(deadline: deadline, execute: work)
    }

    /// Performs one action; the lock is held, so `stopLoading` cannot interleave with a client call.
    private func perform(_ action: Action) {
        guard let urlProtocol else {
            // URLSession let go of the protocol without stopping it: nobody receives the rest.
            finished = true
            completeJournalEntry(URLError(.cancelled))
            endTimeline()
            return
        }
        switch action {
        case .receive(let response, let policy):
            delivered = ((response as? HTTPURLResponse)?.statusCode ?? 0, 0)
            client?.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: policy)
        case .load(let data):
            if !data.isEmpty {
                delivered?.bodyByteCount += data.count
                client?.urlProtocol(urlProtocol, didLoad: data)
            }
        case .finish:
            finished = true
            completeJournalEntry(nil)
            endTimeline()
            client?.urlProtocolDidFinishLoading(urlProtocol)
        case .fail(let error):
            finished = true
            completeJournalEntry(error)
            endTimeline()
            relayTask.map { relay in DispatchQueue.global().async { relay.cancel() } }
            relayTask = nil
            client?.urlProtocol(urlProtocol, didFailWithError: error)
        }
    }

    /// Fetches a request the stubber lets through from the network, and relays the answer. The request is
    /// started from another queue: creating a task from the session work queue would deadlock. It keeps the
    /// caller's timeout and cache policy.
    private func relay(_ request: URLRequest, first: Bool, recording: (HTTPRecording, HTTPIncomingRequest)? = nil) {
        var adjusted = request
        if !first {
            adjusted.timeoutInterval = timeout
            adjusted.cachePolicy = original.cachePolicy
        }
        let request = adjusted
        DispatchQueue.global().async { [weak self] in
            guard let self else { return }
            let task = NetworkRelay.session.dataTask(with: request) { [weak self] data, response, error in
                if let (recording, incoming) = recording {
                    recording.add(incoming, response: response as? HTTPURLResponse, body: data, error: error)
                }
                guard let self else { return }
                let answer = RelayAnswer(data: data, response: response, error: error)
                if let queue = workQueue {
                    queue.async { self.deliver(answer) }
                } else {
                    deliver(answer)
                }
            }
            let proceed = lock.withLock {
                guard !stopped, !finished else { return false }
                relayTask = task
                return true
            }
            if proceed {
                task.resume()
            }
        }
    }

    /// What the network answered a relayed request; Foundation's values, handed from queue to queue once.
    private struct RelayAnswer: @unchecked Sendable {
        let data: Data?
        let response: URLResponse?
        let error: (any Error)?
    }

    private func deliver(_ answer: RelayAnswer) {
        lock.withLock {
            guard !stopped, !finished else { return }
            relayTask = nil
            if let response = answer.response as? HTTPURLResponse, let url = response.url {
                let setCookie = response.allHeaderFields.compactMap { field -> String? in
                    (field.key as? String)?.lowercased() == "set-cookie" ? field.value as? String : nil
                }
                cookies.store(setCookie, for: url)
            }
            if let error = answer.error {
                perform(.fail(error))
            } else if let response = answer.response {
                perform(.receive(response, .notAllowed))
                perform(.load(answer.data ?? Data()))
                perform(.finish)
            } else {
                perform(.fail(URLError(.badServerResponse)))
            }
        }
    }

    private static func invalidResponse(_ plan: HTTPResponsePlan) -> HTTPStubberError {
        HTTPStubberError(
            code: .invalidResponse,
            message: "Foundation rejected the response of \(plan.stub) for \(plan.request.url.absoluteString)."
        )
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
