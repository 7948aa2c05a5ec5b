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
/// - tasks whose caller keeps only the last body chunk receive the body in one piece, at the time its last
///   byte is due; session-delegate tasks receive every chunk when it is due;
/// - the request's timeout is enforced on the plan's timeline: a gap longer than `timeoutInterval` between
///   the request and the response head, or between chunks, fails with `URLError(.timedOut)`;
/// - redirects are followed here (the client cannot follow them), cookies are stored in the session's
///   storage, download tasks fail with an explanation, and requests the stubber lets through are fetched from
///   the network and relayed.
final class ResponsePlayer: @unchecked Sendable {
    static let maximumRedirects = 20
    private static let timers = DispatchQueue(label: "StuntDouble.ResponsePlayer.timers", attributes: .concurrent)

    private let urlProtocol: URLProtocol
    private let client: (any URLProtocolClient)?
    private let stubber: HTTPStubber
    private let lock = NSLock()
    // Guarded by `lock`:
    private var steps: [Step] = []
    private var stopped = false
    private var finished = false
    private var timer: DispatchWorkItem?
    private var relayTask: URLSessionDataTask?
    /// When the last event of the timeline (the request, a response head, a chunk) happens, for timeouts.
    private var lastEvent = 0.0
    private var timedOut = false
    let context: TaskIntrospection
    private let startTime = DispatchTime.now()
    private let timeout: Double

    private struct Step {
        /// Seconds after the start.
        let time: Double
        let action: Action
    }

    private enum Action {
        case receive(URLResponse, URLCache.StoragePolicy)
        case load(Data)
        case finish
        case fail(any Error)
        /// Work that decides what comes next (a redirect's next request).
        case then(() -> Void)
        /// A point of the timeline with nothing to deliver (a chunk of a body delivered in one piece).
        case none
    }

    private init(
        urlProtocol: URLProtocol, stubber: HTTPStubber, client: (any URLProtocolClient)?, context: TaskIntrospection,
        timeout: TimeInterval
    ) {
        self.urlProtocol = urlProtocol
        self.stubber = stubber
        self.client = client
        self.context = context
        self.timeout = timeout > 0 ? timeout : 60
    }

    // MARK: - Starting and stopping

    /// Answers a request; called in `startLoading`, on the session's work queue.
    ///
    /// An answer that is due at once and needs nothing more (no redirect, no cookies) is delivered right here,
    /// with no player at all: nothing can interleave, since URLSession calls `stopLoading` on the same queue.
    /// Anything else gets a player that plays it over time.
    /// - Returns: The player, which `stopLoading` must stop; `nil` when the answer was delivered.
    static func start(
        urlProtocol: URLProtocol, stubber: HTTPStubber?, client: (any URLProtocolClient)?, request: URLRequest,
        task: URLSessionTask?
    ) -> ResponsePlayer? {
        func fail(_ error: any Error) -> ResponsePlayer? {
            client?.urlProtocol(urlProtocol, didFailWithError: error)
            return nil
        }
        guard let stubber else {
            return fail(
                HTTPStubberError(
                    code: .invalidRequest,
                    message: "The stubber of this URLSession no longer exists, so "
                        + "\(request.url?.absoluteString ?? "the request") cannot be answered. Keep the HTTPStubber "
                        + "alive as long as the sessions made from it."
                ))
        }
        #if canImport(FoundationNetworking)
        if task is URLSessionDownloadTask {
            return fail(
                HTTPStubberError(
                    code: .unsupportedTask,
                    message:
                        "Download tasks cannot be stubbed through URLProtocol on Linux: FoundationNetworking gives "
                        + "a custom URLProtocol no way to hand over the downloaded file (it traps or returns no file). "
                        + "Use data(for:) and write the data to a file yourself."
                ))
        }
        #endif
        let incoming: HTTPIncomingRequest
        do {
            incoming = try makeIncomingRequest(request, task: task)
        } catch {
            return fail(error)
        }
        let decision = stubber.decision(for: incoming)
        switch decision {
        case .unmatched(let report):
            return fail(HTTPStubberError(code: .unmatchedRequest, message: report.description, report: report))
        case .stub(let plan)
        where plan.completionDeadline == .zero && redirectTarget(of: plan) == nil
            && plan.response?.headers.contains(.setCookie) != true:
            guard let response = plan.response else {
                return fail(plan.error ?? URLError(.unknown))
            }
            guard let urlResponse = urlResponse(response, url: plan.request.url) else {
                return fail(invalidResponse(plan))
            }
            client?.urlProtocol(urlProtocol, didReceive: urlResponse, cacheStoragePolicy: response.cachePolicy)
            if !response.body.isEmpty {
                client?.urlProtocol(urlProtocol, didLoad: response.body)
            }
            client?.urlProtocolDidFinishLoading(urlProtocol)
            return nil
        default:
            let player = ResponsePlayer(
                urlProtocol: urlProtocol, stubber: stubber, client: client, context: TaskIntrospection(task),
                timeout: request.timeoutInterval
            )
            player.lock.withLock { player.decide(incoming, decision: decision, hop: 0, at: 0) }
            player.run()
            return player
        }
    }

    /// Stops at once: no client call happens after this returns.
    func stop() {
        lock.withLock {
            stopped = true
            timer?.cancel()
            timer = nil
            relayTask?.cancel()
            relayTask = nil
        }
    }

    private static func makeIncomingRequest(_ request: URLRequest, task: URLSessionTask?) throws(HTTPStubberError)
        -> HTTPIncomingRequest
    {
        guard task is URLSessionUploadTask, request.httpBody == nil, request.httpBodyStream == nil else {
            return try HTTPIncomingRequest(request)
        }
        switch TaskIntrospection(task).uploadBody() {
        case .notApplicable:
            return try HTTPIncomingRequest(request)
        case .body(let body):
            var withBody = request
            withBody.httpBody = body
            return try HTTPIncomingRequest(withBody)
        case .unreadable(let why):
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
        switch decision ?? stubber.decision(for: request) {
        case .stub(let plan):
            if let target = Self.redirectTarget(of: plan) {
                let time = offset + plan.responseDeadline.seconds
                append(
                    time, isEvent: true,
                    .then { [self] in
                        // The redirect's cookies are stored before the next request is built, so that it carries them.
                        storeCookies(of: plan.response, for: request.url)
                        switch redirection(after: plan, to: target, hop: hop) {
                        case .follow(let nextRequest): decide(nextRequest, hop: hop + 1, at: time)
                        case .fail(let error): append(time, isEvent: false, .fail(error))
                        }
                    })
            } else {
                appendFinal(plan, at: offset)
            }
        case .passThrough:
            append(offset, isEvent: false, .then { [self] in relay(request.urlRequest) })
        case .unmatched(let report):
            append(
                offset, isEvent: false,
                .fail(HTTPStubberError(code: .unmatchedRequest, message: report.description, report: report)))
        }
    }

    private func appendFinal(_ plan: HTTPResponsePlan, at offset: Double) {
        let head = offset + plan.responseDeadline.seconds
        guard let response = plan.response else {
            append(head, isEvent: true, .fail(plan.error ?? URLError(.unknown)))
            return
        }
        let url = plan.request.url
        guard let urlResponse = Self.urlResponse(response, url: url) else {
            append(head, isEvent: true, .fail(Self.invalidResponse(plan)))
            return
        }
        if response.headers.contains(.setCookie) {
            append(head, isEvent: true, .then { [self] in storeCookies(of: response, for: url) })
        }
        append(head, isEvent: true, .receive(urlResponse, response.cachePolicy))
        let chunked = plan.chunks.count > 1 && context.receivesChunks
        for (index, chunk) in plan.chunks.enumerated() {
            let time = offset + chunk.deadline.seconds
            if chunked {
                append(time, isEvent: true, .load(response.body.subdata(in: chunk.range)))
            } else if index == plan.chunks.count - 1 {
                append(time, isEvent: true, .load(response.body))
            } else {
                append(time, isEvent: true, .none)
            }
        }
        append(offset + plan.completionDeadline.seconds, isEvent: false, .finish)
    }

    /// Appends a step; an event later than the timeout allows after the previous one becomes a timeout.
    private func append(_ time: Double, isEvent: Bool, _ action: Action) {
        guard !timedOut else { return }
        if isEvent {
            if time - lastEvent > timeout {
                timedOut = true
                let info = Self.failingURLInfo(urlProtocol.request.url, "The request timed out.")
                steps.append(Step(time: lastEvent + timeout, action: .fail(URLError(.timedOut, userInfo: info))))
                return
            }
            lastEvent = max(lastEvent, time)
        }
        steps.append(Step(time: time, action: action))
    }

    // MARK: - Running the timeline

    private var elapsed: Double {
        Double(DispatchTime.now().uptimeNanoseconds - startTime.uptimeNanoseconds) / 1e9
    }

    /// Performs every step that is due, then schedules a wake-up for the next one.
    private func run() {
        lock.lock()
        defer { lock.unlock() }
        while !stopped, !finished, !steps.isEmpty {
            let step = steps[0]
            let wait = step.time - elapsed
            if wait > 0.0002 {
                schedule(after: wait)
                return
            }
            steps.removeFirst()
            perform(step.action)
        }
    }

    private func schedule(after wait: Double) {
        let deadline = startTime + (elapsed + wait)
        let work = DispatchWorkItem { [self] in
            if let queue = context.workQueue {
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
        switch action {
        case .receive(let response, let policy):
            client?.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: policy)
        case .load(let data):
            if !data.isEmpty {
                client?.urlProtocol(urlProtocol, didLoad: data)
            }
        case .finish:
            finished = true
            client?.urlProtocolDidFinishLoading(urlProtocol)
        case .fail(let error):
            finished = true
            client?.urlProtocol(urlProtocol, didFailWithError: error)
        case .then(let work):
            work()
        case .none:
            break
        }
    }

    /// Fetches a request the stubber lets through from the network, and relays the answer. The request is
    /// started from another queue: creating a task from the session work queue would deadlock.
    private func relay(_ request: URLRequest) {
        DispatchQueue.global().async { [self] in
            let task = NetworkRelay.session.dataTask(with: request) { [self] data, response, error in
                let answer = RelayAnswer(data: data, response: response, error: error)
                if let queue = context.workQueue {
                    queue.async { self.deliver(answer) }
                } else {
                    deliver(answer)
                }
            }
            let cancelled = lock.withLock {
                relayTask = task
                return stopped
            }
            if !cancelled {
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
            if let response = answer.response as? HTTPURLResponse, let url = response.url {
                let setCookie = response.allHeaderFields.compactMap { field -> String? in
                    (field.key as? String)?.lowercased() == "set-cookie" ? field.value as? String : nil
                }
                storeCookies(setCookie, for: url)
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
