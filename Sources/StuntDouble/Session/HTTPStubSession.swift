import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session that answers from a stubber directly: no URLProtocol, no URLSession machinery, the same stubs.
///
/// Inject it where your code takes a ``URLSessionProtocol`` (completion handlers) or an
/// ``AsyncURLSessionProtocol`` (`async`):
///
/// ```swift
/// let stubber = HTTPStubber()
/// stubber.add(stub: HTTPStubRequest().match(URL: "https://api.example.com/photos").stub(for: .get, code: 404))
/// let service = APIService(urlSession: stubber.stubSession())
/// ```
///
/// It plays stubs as a `URLSession` made from the stubber does (see ``HTTPStubber/session(configuration:delegate:delegateQueue:)``):
/// matchers, responses, errors, sequences and scenarios, delays and throttling (the body arrives in one piece
/// when its last byte is due), redirects, cookies, the timeout (`URLError(.timedOut)`), cancellation
/// (`URLError(.cancelled)`), and the ignore rules and opt-in mode that send a request to the network (through
/// a `URLSession` of the same configuration). Unmatched requests fail with an ``HTTPStubberError`` whose
/// report names the closest stubs. Every request is recorded in the stubber's ``HTTPStubber/journal``.
///
/// What it reads from its configuration: `timeoutIntervalForRequest` (for requests that keep the default
/// `timeoutInterval` of 60 seconds, as URLSession does), `httpAdditionalHeaders`, and the cookie settings
/// (`httpCookieStorage`, `httpCookieAcceptPolicy`, `httpShouldSetCookies`). Task delegates
/// passed to its methods are not called: there is no network task for them to observe.
///
/// The session keeps its stubber alive.
public final class HTTPStubSession: URLSessionProtocol, AsyncURLSessionProtocol, Sendable, CustomStringConvertible {
    /// The stubber that answers this session's requests.
    public let stubber: HTTPStubber
    /// The queue completion handlers run on: the one given, or a serial queue of the session's own.
    public let delegateQueue: OperationQueue
    let settings: Settings
    private let network: Locked<NetworkSession>

    /// What a session reads from its configuration, once.
    struct Settings: Sendable {
        /// The timeout in seconds: the longest gap between the request and the response head, or between
        /// two parts of the body.
        let timeout: Double
        let additionalHeaders: [(name: String, value: String)]
        let cookies: CookieJar
        /// The delivery path the journal names.
        let path: HTTPDeliveryPath
    }

    /// The `URLSession` that fetches the requests the stubber lets through, made when the first one comes.
    private struct NetworkSession: @unchecked Sendable {
        /// A copy of the configuration, only read under the lock.
        let configuration: URLSessionConfiguration
        var session: URLSession?
    }

    /// Creates a session.
    /// - Parameters:
    ///   - stubber: The stubber that answers; the current test's (``HTTPStubber/current``) by default.
    ///   - configuration: The configuration whose timeout, additional headers and cookie settings apply;
    ///     `.ephemeral` by default (its own cookie storage, so that tests do not share cookies).
    ///   - delegateQueue: The queue for completion handlers, or `nil` for a serial queue of the session's own.
    public convenience init(
        stubber: HTTPStubber = .current, configuration: URLSessionConfiguration = .ephemeral,
        delegateQueue: OperationQueue? = nil
    ) {
        self.init(stubber: stubber, configuration: configuration, delegateQueue: delegateQueue, path: .stubSession)
    }

    /// Creates a session for another delivery path (a client of its own kind that plays its requests here).
    /// - Parameters:
    ///   - stubber: The stubber that answers.
    ///   - configuration: The configuration whose timeout, additional headers and cookie settings apply.
    ///   - delegateQueue: The queue for completion handlers, or `nil` for a serial queue of the session's own.
    ///   - path: The delivery path the journal names.
    package init(
        stubber: HTTPStubber, configuration: URLSessionConfiguration, delegateQueue: OperationQueue?,
        path: HTTPDeliveryPath
    ) {
        self.stubber = stubber
        let timeout = configuration.timeoutIntervalForRequest
        let headers = (configuration.httpAdditionalHeaders ?? [:]).compactMap { field -> (String, String)? in
            guard let name = field.key as? String else { return nil }
            return (name, String(describing: field.value))
        }
        settings = Settings(
            timeout: timeout > 0 ? timeout : 60, additionalHeaders: headers.sorted { $0.0 < $1.0 },
            cookies: CookieJar(configuration), path: path)
        if let delegateQueue {
            self.delegateQueue = delegateQueue
        } else {
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            queue.name = "StuntDouble.HTTPStubSession"
            self.delegateQueue = queue
        }
        let copy = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        network = Locked(NetworkSession(configuration: copy))
    }

    /// `HTTPStubSession` and its stubber's number of stubs.
    public var description: String {
        "HTTPStubSession(\(stubber.stubs.count) stubs)"
    }

    // MARK: - async

    /// Sends a request and returns the body and the response, as `URLSession.data(for:delegate:)` does.
    /// - Parameters:
    ///   - request: The request.
    ///   - delegate: Not called (there is no network task to observe); accepted for `URLSession`'s signature.
    /// - Returns: The body and the response.
    /// - Throws: The stub's error, ``HTTPStubberError`` for an unmatched request, `URLError(.timedOut)`,
    ///   `URLError(.cancelled)` when the calling task is cancelled.
    public func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (
        Data, URLResponse
    ) {
        try await answer(request).get()
    }

    /// Gets a URL and returns the body and the response.
    /// - Parameters:
    ///   - url: The URL.
    ///   - delegate: Not called; accepted for `URLSession`'s signature.
    /// - Returns: The body and the response.
    /// - Throws: As ``data(for:delegate:)`` does.
    public func data(from url: URL, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (Data, URLResponse) {
        try await answer(URLRequest(url: url)).get()
    }

    /// Uploads data: the stubs see it as the request's body.
    /// - Parameters:
    ///   - request: The request (its own body is ignored).
    ///   - bodyData: The body.
    ///   - delegate: Not called; accepted for `URLSession`'s signature.
    /// - Returns: The body and the response.
    /// - Throws: As ``data(for:delegate:)`` does.
    public func upload(
        for request: URLRequest, from bodyData: Data, delegate: (any URLSessionTaskDelegate)? = nil
    ) async throws -> (Data, URLResponse) {
        var request = request
        request.httpBodyStream = nil
        request.httpBody = bodyData
        return try await answer(request).get()
    }

    /// Uploads a file: the stubs see its content as the request's body.
    /// - Parameters:
    ///   - request: The request (its own body is ignored).
    ///   - fileURL: The file.
    ///   - delegate: Not called; accepted for `URLSession`'s signature.
    /// - Returns: The body and the response.
    /// - Throws: `URLError(.fileDoesNotExist)` when the file cannot be read, or as ``data(for:delegate:)`` does.
    public func upload(
        for request: URLRequest, fromFile fileURL: URL, delegate: (any URLSessionTaskDelegate)? = nil
    ) async throws -> (Data, URLResponse) {
        try await answer(Self.request(request, bodyFrom: fileURL).get()).get()
    }

    // MARK: - Completion handlers

    /// Creates a task that sends a request and calls a completion handler on ``delegateQueue``, as
    /// `URLSession.dataTask(with:completionHandler:)` does. The request is received when you call `resume()`.
    /// - Parameters:
    ///   - request: The request.
    ///   - completionHandler: Called once: with the data and the response, or the error.
    /// - Returns: The task, not yet started.
    public func dataTask(with request: URLRequest, completionHandler: @escaping DataTaskCompletionHandler)
        -> HTTPStubSessionDataTask
    {
        HTTPStubSessionDataTask(session: self, request: request, completionHandler: completionHandler)
    }

    /// Creates a task that gets a URL and calls a completion handler on ``delegateQueue``.
    /// - Parameters:
    ///   - url: The URL.
    ///   - completionHandler: Called once: with the data and the response, or the error.
    /// - Returns: The task, not yet started.
    public func dataTask(with url: URL, completionHandler: @escaping DataTaskCompletionHandler)
        -> HTTPStubSessionDataTask
    {
        dataTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    // Disfavoured, as URLSession's own: ``URLSessionProtocol`` needs this return type, direct calls get the
    // concrete task.
    /// Creates a data task, typed for ``URLSessionProtocol``.
    /// - Parameters:
    ///   - request: The request.
    ///   - completionHandler: Called once: with the data and the response, or the error.
    /// - Returns: The task, not yet started.
    @_disfavoredOverload
    public func dataTask(with request: URLRequest, completionHandler: @escaping DataTaskCompletionHandler)
        -> URLSessionDataTaskProtocol
    {
        HTTPStubSessionDataTask(session: self, request: request, completionHandler: completionHandler)
    }

    /// Creates an upload task whose body is the given data.
    /// - Parameters:
    ///   - request: The request (its own body is ignored).
    ///   - bodyData: The body.
    ///   - completionHandler: Called once: with the data and the response, or the error.
    /// - Returns: The task, not yet started.
    public func uploadTask(
        with request: URLRequest, from bodyData: Data, completionHandler: @escaping DataTaskCompletionHandler
    ) -> HTTPStubSessionDataTask {
        var request = request
        request.httpBodyStream = nil
        request.httpBody = bodyData
        return dataTask(with: request, completionHandler: completionHandler)
    }

    // MARK: - Answering

    /// The whole exchange: receive the request now, then play its answer.
    func answer(_ request: URLRequest) async -> Result<(Data, URLResponse), any Error> {
        // A cancelled task's request is never sent, as with URLSession.
        guard !Task.isCancelled else { return .failure(Self.cancelled(request.url)) }
        let played = await play(receive(request))
        switch played.outcome {
        case .success(let data, let response, _):
            complete(played, received: (data, response, nil))
            return .success((data, response))
        case .failure(let error, _):
            complete(played, received: (nil, nil, error))
            return .failure(error)
        }
    }

    /// A request's body replaced by a file's content.
    static func request(_ request: URLRequest, bodyFrom fileURL: URL) -> Result<URLRequest, any Error> {
        do {
            var request = request
            request.httpBodyStream = nil
            request.httpBody = try Data(contentsOf: fileURL)
            return .success(request)
        } catch {
            return .failure(
                URLError(
                    .fileDoesNotExist,
                    userInfo: Redirect.failingURLInfo(
                        request.url,
                        "The file to upload, \(fileURL.path), cannot be read: \(error.localizedDescription)")
                ))
        }
    }

    /// The network session for pass-through requests.
    func networkSession() -> URLSession {
        network.withLock { network in
            if let session = network.session { return session }
            let session = URLSession(configuration: network.configuration)
            network.session = session
            return session
        }
    }

    deinit {
        network.withLock { $0.session?.finishTasksAndInvalidate() }
    }
}

extension HTTPStubber {
    /// A session that answers from this stubber directly, without URLSession: for code that takes a
    /// ``URLSessionProtocol`` or an ``AsyncURLSessionProtocol``.
    ///
    /// ```swift
    /// let service = APIService(urlSession: stubber.stubSession())
    /// ```
    /// - Parameters:
    ///   - configuration: The configuration whose timeout, additional headers and cookie settings apply;
    ///     `.ephemeral` by default.
    ///   - delegateQueue: The queue for completion handlers, or `nil` for a serial queue of the session's own.
    /// - Returns: The session. It keeps the stubber alive.
    public func stubSession(
        configuration: URLSessionConfiguration = .ephemeral, delegateQueue: OperationQueue? = nil
    ) -> HTTPStubSession {
        HTTPStubSession(stubber: self, configuration: configuration, delegateQueue: delegateQueue)
    }
}
