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
    struct RelayAnswer: @unchecked Sendable {
        let data: Data?
        let response: URLResponse?
        let error: (any Error)?
    }

    func deliver(_ answer: RelayAnswer) {
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
}
