import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPStubSession {
    /// How an exchange ended, with what a completion handler may leave out (see ``HTTPResponsePlan/Absence``).
    enum Outcome: Sendable {
        case success(Data, URLResponse, absence: HTTPResponsePlan.Absence?)
        case failure(any Error, absence: HTTPResponsePlan.Absence?)

        /// The values a completion handler receives.
        var completionValues: (Data?, URLResponse?, (any Error)?) {
            switch self {
            case .success(_, let response, .data): (nil, response, nil)
            case .success(let data, let response, _): (data, response, nil)
            case .failure(_, .response): (nil, nil, nil)
            case .failure(let error, _): (nil, nil, error)
            }
        }
    }

    /// A request the stubber received (or one refused before that), waiting to be played.
    struct Exchange: Sendable {
        let start: ContinuousClock.Instant
        /// The longest wait, in seconds, for the response head or the next part of the body.
        let timeout: Double
        let state: State

        enum State: Sendable {
            case decided(HTTPIncomingRequest, HTTPStubDecision, entry: Int)
            case refused(any Error)
        }
    }

    /// How an exchange was played: the outcome, and the journal entry of its last request, which
    /// `complete(_:received:)` completes once the caller's view of the outcome is final.
    struct Played: Sendable {
        let outcome: Outcome
        let entry: Int?
        let entryStart: ContinuousClock.Instant
    }

    /// Receives a request: the stubber decides now, so that requests arrive in the order they are made.
    func receive(_ request: URLRequest) -> Exchange {
        let start = ContinuousClock.now
        let timeout = ResponsePlayer.timeout(of: request, configured: settings.timeout)
        var request = request
        if let url = request.url {
            for (name, value) in settings.additionalHeaders where request.value(forHTTPHeaderField: name) == nil {
                request.setValue(value, forHTTPHeaderField: name)
            }
            if request.value(forHTTPHeaderField: "Cookie") == nil, let cookie = settings.cookies.header(for: url) {
                request.setValue(cookie, forHTTPHeaderField: "Cookie")
            }
        }
        do {
            let incoming = try HTTPIncomingRequest(request)
            let (decision, entry) = stubber.decide(incoming, via: settings.path, received: start)
            return Exchange(start: start, timeout: timeout, state: .decided(incoming, decision, entry: entry))
        } catch {
            return Exchange(start: start, timeout: timeout, state: .refused(error))
        }
    }

    /// Who takes a final response's head and each chunk of its body when they are due (``stream(for:)``),
    /// rather than the body whole at the end.
    package struct Receiver: Sendable {
        /// Takes the head, when it is due.
        package let head: @Sendable (URLResponse) -> Void
        /// Takes a part of the body, when it is due.
        package let chunk: @Sendable (Data) -> Void
        /// Takes a stubbed response as planned, just before its head is delivered: its fields as written (a
        /// field given twice stays two fields) and its reason phrase, which `URLResponse` does not keep.
        var planned: (@Sendable (HTTPResponsePlan.Response) -> Void)? = nil
        /// Fetches what goes to the network (a pass-through, a recording, a proxying stub) with another client
        /// than URLSession: it hands the head and each part to the receiver, and returns the whole body, the
        /// response and when each part came.
        var relay: Relay? = nil
        /// The error a stubbed failure (a fault, a stubbed error) is delivered as, when it is not the plan's own.
        var failure: (@Sendable (HTTPResponsePlan) -> any Error)? = nil
    }

    /// A client that fetches a request from the network for a ``Receiver``.
    package typealias Relay =
        @Sendable (URLRequest, Receiver) async throws -> (
            Data, URLResponse, [HTTPRecordedExchange.Arrival]
        )

    /// Plays a received request's answer: performs the steps of its `ExchangeTimeline` at their times (waits,
    /// redirects, relays, the timeout). The journal entries of redirects are completed here; the last one is
    /// left to the caller. A `receiver` is handed the final response's head and each chunk as they are due;
    /// without one, the body is handed over whole at the end.
    func play(_ exchange: Exchange, receiver: Receiver? = nil) async -> Played {
        guard case .decided(var request, let decision, var entry) = exchange.state else {
            let error: any Error = if case .refused(let error) = exchange.state { error } else { URLError(.unknown) }
            return Played(outcome: .failure(error, absence: nil), entry: nil, entryStart: exchange.start)
        }
        var entryStart = exchange.start
        func played(_ outcome: Outcome) -> Played {
            Played(outcome: outcome, entry: entry, entryStart: entryStart)
        }
        /// The head of a final response: `nil` to go on, or how the exchange ended (the plan's error).
        func head(_ plan: HTTPResponsePlan) -> Played? {
            guard let response = plan.response else {
                let error = receiver?.failure?(plan) ?? plan.error ?? URLError(.unknown)
                return played(.failure(error, absence: plan.absence))
            }
            settings.cookies.store(response, for: request.url)
            receiver?.planned?(response)
            return nil
        }
        /// The end of a final response: the body, handed over whole.
        func finish(_ plan: HTTPResponsePlan) -> Played {
            guard let response = plan.response, let urlResponse = response.httpURLResponse(for: request.url) else {
                let error = HTTPStubberError(
                    code: .invalidResponse,
                    message: "Foundation rejected the response of \(plan.stub) for \(request.url.absoluteString).")
                return played(.failure(error, absence: nil))
            }
            return played(.success(plan.deliveredBody, urlResponse, absence: plan.absence))
        }
        // A response due at once, as most are: the timeline would hold its head and end at 0 and nothing else
        // (no timeout is shorter than nothing), so they are played without building it.
        if case .stub(let plan) = decision, plan.proxy == nil, plan.isImmediate,
            Redirect.target(of: plan) == nil
        {
            return head(plan) ?? finish(plan)
        }
        var timeline = ExchangeTimeline(timeout: exchange.timeout)
        timeline.schedule(decision, for: request, hop: 0, at: 0)
        while let next = timeline.removeNext() {
            if case .chunk = next.step, receiver == nil {
                continue  // the body is handed over whole, at the end
            }
            if let error = await sleep(until: next.time, from: exchange.start, url: request.url) {
                return played(.failure(error, absence: nil))
            }
            switch next.step {
            case .relay(let relayed, let recording, _):
                // A recording keeps what the network says: no URL cache may answer instead (as the URLSession
                // path's relay, which keeps no cache either).
                let session = recording == nil ? networkSession() : NetworkRelay.session
                do {
                    if let receiver, let relay = receiver.relay {
                        let (data, response, arrivals) = try await relay(relayed.urlRequest, receiver)
                        recording?.add(
                            relayed, response: response as? HTTPURLResponse, body: data, error: nil, arrivals: arrivals)
                        return played(.success(data, response, absence: nil))
                    }
                    if receiver != nil || recording != nil {
                        // Streamed: a caller of stream(for:) gets each part as it comes, and a recording when.
                        let (data, response, arrivals) = try await Self.relay(relayed.urlRequest, to: receiver)
                        recording?.add(
                            relayed, response: response as? HTTPURLResponse, body: data, error: nil, arrivals: arrivals)
                        return played(.success(data, response, absence: nil))
                    }
                    let (data, response) = try await session.data(for: relayed.urlRequest)
                    return played(.success(data, response, absence: nil))
                } catch {
                    recording?.add(relayed, response: nil, body: nil, error: error)
                    return played(.failure(Self.cancellation(of: error, url: relayed.url), absence: nil))
                }
            case .forward(let forwarded, _):
                do {
                    if let receiver, let relay = receiver.relay {
                        let (data, response, _) = try await relay(forwarded, receiver)
                        return played(.success(data, response, absence: nil))
                    }
                    let (data, response) = try await NetworkRelay.session.data(for: forwarded)
                    return played(.success(data, response, absence: nil))
                } catch {
                    return played(.failure(Self.cancellation(of: error, url: request.url), absence: nil))
                }
            case .redirect(let plan, let target, let from, let hop):
                settings.cookies.store(plan.response, for: from.url)
                switch Redirect.next(after: plan, to: target, hop: hop, cookies: settings.cookies) {
                case .follow(let nextRequest):
                    // This request's answer, the 3xx, was delivered: to the redirect.
                    stubber.complete(
                        entry, after: .now - entryStart, error: nil, statusCode: plan.response?.statusCode.rawValue)
                    request = nextRequest
                    entryStart = .now
                    let (decision, number) = stubber.decide(nextRequest, via: settings.path)
                    entry = number
                    timeline.schedule(decision, for: nextRequest, hop: hop + 1, at: next.time)
                case .fail(let error):
                    return played(.failure(error, absence: nil))
                }
            case .head:
                if let plan = timeline.response, let ended = head(plan) { return ended }
                if let receiver, let plan = timeline.response {
                    guard let head = plan.response?.httpURLResponse(for: request.url) else { return finish(plan) }
                    receiver.head(head)
                }
            case .chunk(let index):
                if let receiver, let plan = timeline.response, plan.absence != .data, let body = plan.response?.body {
                    // Chunks due at the same time go as one part (up to 64 KiB), as a server writes them in one
                    // batch: a stream of events due at once is not handed over one await at a time.
                    var part = body.subdata(in: plan.chunks[index].range)
                    while part.count < 1 << 16, let following = timeline.next, following.time <= next.time,
                        case .chunk(let more) = following.step
                    {
                        part.append(body[plan.chunks[more].range])
                        _ = timeline.removeNext()
                    }
                    receiver.chunk(part)
                }
            case .finish:
                if let plan = timeline.response { return finish(plan) }
            case .fail(let error):
                return played(.failure(error, absence: nil))
            case .timeOut:
                return played(.failure(ExchangeTimeline.timedOut(request.url), absence: nil))
            }
        }
        return played(.failure(URLError(.unknown), absence: nil))
    }

    /// Fetches a request from the network with the relays' streaming session: `receiver` gets the head and each
    /// part of the body as they come. Returns the whole body, the response, and when each part came.
    static func relay(_ request: URLRequest, to receiver: Receiver?) async throws -> (
        Data, URLResponse, [HTTPRecordedExchange.Arrival]
    ) {
        let task = NetworkRelay.streamingSession.dataTask(with: request)
        let received = Locked((body: Data(), arrivals: [HTTPRecordedExchange.Arrival](), response: URLResponse?.none))
        let sent = ContinuousClock.now
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                NetworkRelay.relays.start(
                    task,
                    NetworkRelay.Relay(
                        response: { response in
                            received.withLock {
                                $0.response = response
                                $0.arrivals.append(.init(byteCount: 0, time: .now - sent))
                            }
                            receiver?.head(response)
                        },
                        data: { data in
                            received.withLock {
                                $0.body.append(data)
                                $0.arrivals.append(.init(byteCount: $0.body.count, time: .now - sent))
                            }
                            receiver?.chunk(data)
                        },
                        complete: { error in
                            let (body, arrivals, response) = received.withLock { ($0.body, $0.arrivals, $0.response) }
                            if let error {
                                continuation.resume(throwing: error)
                            } else if let response {
                                continuation.resume(returning: (body, response, arrivals))
                            } else {
                                continuation.resume(throwing: URLError(.badServerResponse))
                            }
                        }))
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Records in the journal how the exchange ended for the caller: what it received.
    func complete(_ played: Played, received: (data: Data?, response: URLResponse?, error: (any Error)?)) {
        complete(played, response: received.response, error: received.error, bodyByteCount: received.data?.count)
    }

    /// Records in the journal how the exchange ended for the caller: the response, the error, how many bytes
    /// of body it received.
    func complete(_ played: Played, response: URLResponse?, error: (any Error)?, bodyByteCount: Int?) {
        guard let entry = played.entry else { return }
        stubber.complete(
            entry, after: .now - played.entryStart, error: error,
            statusCode: (response as? HTTPURLResponse)?.statusCode, bodyByteCount: bodyByteCount)
    }

    /// Waits until `seconds` after `start`; returns `URLError(.cancelled)` when the task is cancelled.
    private func sleep(until seconds: Double, from start: ContinuousClock.Instant, url: URL) async -> (any Error)? {
        guard seconds > 0 else { return nil }
        do {
            try await Task.sleep(until: start + .seconds(seconds), clock: .continuous)
            return nil
        } catch {
            return Self.cancelled(url)
        }
    }

    /// `URLError(.cancelled)` for a URL, as URLSession reports a cancelled request.
    static func cancelled(_ url: URL?) -> URLError {
        URLError(.cancelled, userInfo: Redirect.failingURLInfo(url, "cancelled"))
    }

    /// A `CancellationError` as URLSession reports it; other errors unchanged.
    static func cancellation(of error: any Error, url: URL) -> any Error {
        error is CancellationError ? cancelled(url) : error
    }
}
