import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests the stubber lets through (ignore rules, opt-in mode, recordings, proxying stubs): fetched from
/// the network and relayed to the client.
extension ResponsePlayer {
    /// Fetches a request the stubber lets through from the network, and relays the answer. The request is
    /// started from another queue: creating a task from the session work queue would deadlock. It keeps the
    /// caller's timeout and cache policy.
    func relay(_ request: URLRequest, first: Bool, recording: (any HTTPExchangeRecorder, HTTPIncomingRequest)? = nil) {
        var adjusted = request
        if !first {
            adjusted.timeoutInterval = timeout
            adjusted.cachePolicy = original.cachePolicy
        }
        let request = adjusted
        // What came, for a recording: the body, and when the head and each part arrived.
        let received = Locked((body: Data(), arrivals: [HTTPRecordedExchange.Arrival](), response: URLResponse?.none))
        let sent = ContinuousClock.now
        let relay = NetworkRelay.Relay(
            response: { [weak self] response in
                received.withLock {
                    $0.response = response
                    $0.arrivals.append(.init(byteCount: 0, time: .now - sent))
                }
                self?.onWorkQueue { [weak self] in self?.relayed(.response(response)) }
            },
            data: { [weak self] data in
                if recording != nil {
                    received.withLock {
                        $0.body.append(data)
                        $0.arrivals.append(.init(byteCount: $0.body.count, time: .now - sent))
                    }
                }
                self?.onWorkQueue { [weak self] in self?.relayed(.data(data)) }
            },
            complete: { [weak self] error in
                if let (recording, incoming) = recording {
                    let (body, arrivals, response) = received.withLock { ($0.body, $0.arrivals, $0.response) }
                    recording.add(
                        incoming, response: response as? HTTPURLResponse, body: body, error: error,
                        arrivals: arrivals)
                }
                self?.onWorkQueue { [weak self] in self?.relayed(.complete(error)) }
            })
        DispatchQueue.global().async { [weak self] in
            guard let self else { return }
            let task = NetworkRelay.streamingSession.dataTask(with: request)
            let proceed = lock.withLock {
                guard !stopped, !finished else { return false }
                relayTask = task
                return true
            }
            if proceed {
                NetworkRelay.relays.start(task, relay)
            }
        }
    }

    /// Something a relay received from the network.
    enum RelayEvent: @unchecked Sendable {
        case response(URLResponse)
        case data(Data)
        case complete((any Error)?)
    }

    /// Hands what the network sent on to the client, as it comes: the head, each part of the body (in one piece
    /// at the end for a task that keeps only its last chunk, on Linux), then the end.
    func relayed(_ event: RelayEvent) {
        lock.withLock {
            guard !stopped, !finished else { return }
            switch event {
            case .response(let response):
                // The answer has begun: from now on the relay's own timeout (the same) watches for silence.
                endTimeline()
                if let response = response as? HTTPURLResponse, let url = response.url {
                    let setCookie = response.allHeaderFields.compactMap { field -> String? in
                        (field.key as? String)?.lowercased() == "set-cookie" ? field.value as? String : nil
                    }
                    cookies.store(setCookie, for: url)
                }
                perform(.receive(response, .notAllowed))
            case .data(let data):
                if context.receivesChunks {
                    perform(.load(data))
                } else {
                    relayedBody.append(data)
                }
            case .complete(let error):
                relayTask = nil
                if let error {
                    perform(.fail(error))
                } else if delivered == nil {
                    perform(.fail(URLError(.badServerResponse)))
                } else {
                    if !relayedBody.isEmpty { perform(.load(relayedBody)) }
                    relayedBody = Data()
                    perform(.finish)
                }
            }
        }
    }
}
