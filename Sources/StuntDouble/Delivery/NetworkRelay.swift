import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session that fetches, from the network, requests that a stubber lets through (an ignore rule, opt-in
/// mode) after its URLProtocol took them: the cases the protocol cannot know before it reads the request's
/// body, and redirects to unstubbed URLs. Cookies are the caller's session's business, so this one keeps none.
enum NetworkRelay {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()
}

extension NetworkRelay {
    /// The session of the URLProtocol path's relays: its delegate hands each relay the network's head and each
    /// part of the body as it comes, so that a relayed stream (server-sent events, a long download) reaches the
    /// client as it arrives, and a recording knows when each part came.
    static let streamingSession: URLSession = URLSession(
        configuration: session.configuration, delegate: relays, delegateQueue: nil)

    /// The relays in progress, by task.
    static let relays = Relays()

    /// What a relay does with each thing its task receives, on the session's delegate queue, in order.
    struct Relay: Sendable {
        let response: @Sendable (URLResponse) -> Void
        let data: @Sendable (Data) -> Void
        let complete: @Sendable ((any Error)?) -> Void
    }

    /// The streaming session's delegate: hands each task's events to its relay.
    final class Relays: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private let relays = Locked<[Int: Relay]>([:])

        /// Starts a task whose events go to `relay`.
        func start(_ task: URLSessionDataTask, _ relay: Relay) {
            relays.withLock { $0[task.taskIdentifier] = relay }
            task.resume()
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            relays.withLock { $0[dataTask.taskIdentifier] }?.response(response)
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            relays.withLock { $0[dataTask.taskIdentifier] }?.data(data)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let relay = relays.withLock { $0.removeValue(forKey: task.taskIdentifier) }
            relay?.complete(error)
        }
    }
}
