import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Building the exchange's `ExchangeTimeline` from the stubber's decisions, and performing its steps on timers
/// as they come due.
extension ResponsePlayer {
    // MARK: - Building the timeline (called with the lock held)

    /// Asks the stubber about a request and appends what follows: a final response, a redirect, a relay or a
    /// failure. `offset` is when the request is made, in seconds after the start.
    func decide(_ request: HTTPIncomingRequest, decision: HTTPStubDecision? = nil, hop: Int, at offset: Double) {
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
    func follow(_ plan: HTTPResponsePlan, to next: HTTPIncomingRequest, hop: Int, at time: Double) {
        // This request's delivery ended when its 3xx arrived: to the redirect.
        completeJournalEntry(nil, redirectStatus: plan.response?.statusCode.rawValue)
        decide(next, hop: hop + 1, at: time)
    }

    /// Asks the task's delegate whether to follow a redirect, as URLSession does for a server's redirect; the
    /// timeline waits for the answer (within the timeout). The delegate may change the next request, or refuse
    /// it: then the redirect's response is the final one.
    func ask(
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
    func onWorkQueue(_ work: @escaping @Sendable () -> Void) {
        if let workQueue {
            workQueue.async(execute: work)
        } else {
            work()
        }
    }

    /// Performs a step of the timeline (the lock is held).
    func perform(_ step: ExchangeTimeline.Step, at time: Double) {
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
            if (plan.chunks.count > 1 || plan.continuation != nil) && context.receivesChunks {
                perform(.load(body.subdata(in: plan.chunks[index].range)))
            } else if index == plan.chunks.count - 1, plan.continuation == nil {
                perform(.load(body))
            }
        case .finish:
            if let plan = timeline.response, plan.continuation != nil, !context.receivesChunks {
                // A task that keeps only its last chunk (Linux) receives a stream's plays in one piece.
                perform(.load(plan.deliveredBody))
            }
            perform(.finish)
        case .fail(let error):
            perform(.fail(error))
        case .timeOut:
            perform(.fail(ExchangeTimeline.timedOut(currentURL)))
        }
    }

    // MARK: - Running the timeline

    var elapsed: Double {
        Double(clock.now() &- startTime) / 1e9
    }

    /// Performs every step that is due, then schedules a wake-up for the next one.
    func run() {
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
    func schedule(after wait: Double) {
        timer?.cancel()
        let deadline = startTime &+ UInt64((elapsed + wait) * 1e9)
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
        clock.schedule(deadline, work)
    }

    /// Performs one action; the lock is held, so `stopLoading` cannot interleave with a client call.
    func perform(_ action: Action) {
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

    static func invalidResponse(_ plan: HTTPResponsePlan) -> HTTPStubberError {
        HTTPStubberError(
            code: .invalidResponse,
            message: "Foundation rejected the response of \(plan.stub) for \(plan.request.url.absoluteString)."
        )
    }
}
