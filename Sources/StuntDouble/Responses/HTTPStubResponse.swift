import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a stub answers: a status, headers and a body, or an error; and when.
///
/// A response is an object: configure it in place, even after its stub was added.
///
/// ```swift
/// let response = HTTPStubResponse()
/// response.statusCode = .unauthorized
/// response.contentType = .json
/// response.body = Data(#"{"error": "expired token"}"#.utf8)
/// response.responseDelay = 0.2
/// ```
///
/// When it is delivered, a response gets a `Content-Type` header from ``contentType`` (which wins over a
/// `Content-Type` in ``headers``) and a `Content-Length` header from its body unless ``headers`` already has
/// one.
public final class HTTPStubResponse: Sendable {
    package struct Storage: Sendable {
        package var statusCode: HTTPStatusCode = .ok { didSet { prepared = nil } }
        package var statusMessage: String? { didSet { prepared = nil } }
        var contentType: HTTPContentType? { didSet { prepared = nil } }
        var failError: (any Error)? { didSet { prepared = nil } }
        package var fault: HTTPStubFault? { didSet { prepared = nil } }
        package var proxy: HTTPStubProxy? { didSet { prepared = nil } }
        package var body: Data? { didSet { prepared = nil } }
        package var headers = HTTPHeaders() { didSet { prepared = nil } }
        var cachePolicy: URLCache.StoragePolicy = .notAllowed { didSet { prepared = nil } }
        package var responseDelay: TimeInterval? { didSet { prepared = nil } }
        package var responseTime: HTTPStubResponseInterval = .immediate { didSet { prepared = nil } }
        var absence: HTTPResponsePlan.Absence? { didSet { prepared = nil } }
        package var eventStream: HTTPStubEventStream? { didSet { prepared = nil } }
        /// What every request receives from these values, worked out once (`nil` until a request needs it,
        /// and again after any change): a response is read for every request it answers.
        var prepared: HTTPResponsePlan.Prepared??
    }

    package let storage: Locked<Storage>

    /// Creates a `200 OK` response with no body.
    public init() {
        storage = Locked(Storage())
    }

    /// Creates a response.
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - contentType: The `Content-Type`, or `nil`.
    ///   - body: The body, or `nil`.
    ///   - headers: Further header fields.
    public convenience init(
        statusCode: HTTPStatusCode, contentType: HTTPContentType? = nil, body: Data? = nil, headers: HTTPHeaders = [:]
    ) {
        self.init()
        storage.withLock {
            $0.statusCode = statusCode
            $0.contentType = contentType
            $0.body = body
            $0.headers = headers
        }
    }

    /// Creates a response that fails with an error.
    /// - Parameter error: The error the request fails with, such as `URLError(.notConnectedToInternet)`.
    public convenience init(error: any Error) {
        self.init()
        storage.withLock { $0.failError = error }
    }

    /// The HTTP status code; `200 OK` by default.
    public var statusCode: HTTPStatusCode {
        get { storage.withLock { $0.statusCode } }
        set { storage.withLock { $0.statusCode = newValue } }
    }

    /// The reason phrase a server sends after the status code (`HTTP/1.1 200 Fine Thanks`), or `nil` for the
    /// standard one. Only a stub server sends it: URLSession gives callers no reason phrase.
    public var statusMessage: String? {
        get { storage.withLock { $0.statusMessage } }
        set { storage.withLock { $0.statusMessage = newValue } }
    }

    /// The `Content-Type` of the body, written into the response headers.
    public var contentType: HTTPContentType? {
        get { storage.withLock { $0.contentType } }
        set { storage.withLock { $0.contentType = newValue } }
    }

    /// When set, the request fails with this error instead of receiving a response.
    public var failError: (any Error)? {
        get { storage.withLock { $0.failError } }
        set { storage.withLock { $0.failError = newValue } }
    }

    /// When set, a stub server breaks the connection this way instead of answering (WireMock's `fault`), and
    /// in-process requests fail with the error URLSession reports for it (``HTTPStubFault/urlError``). An
    /// error (``failError``) wins over a fault.
    public var fault: HTTPStubFault? {
        get { storage.withLock { $0.fault } }
        set { storage.withLock { $0.fault = newValue } }
    }

    /// When set, the request is forwarded to another server and its answer is the response (WireMock's
    /// `proxyBaseUrl`); a delay still applies before the request is forwarded. An error or a fault wins.
    public var proxy: HTTPStubProxy? {
        get { storage.withLock { $0.proxy } }
        set { storage.withLock { $0.proxy = newValue } }
    }

    /// The body, or `nil` for none.
    public var body: Data? {
        get { storage.withLock { $0.body } }
        set { storage.withLock { $0.body = newValue } }
    }

    /// The header fields.
    public var headers: HTTPHeaders {
        get { storage.withLock { $0.headers } }
        set { storage.withLock { $0.headers = newValue } }
    }

    /// Whether a URL cache may store the response; `.notAllowed` by default.
    public var cachePolicy: URLCache.StoragePolicy {
        get { storage.withLock { $0.cachePolicy } }
        set { storage.withLock { $0.cachePolicy = newValue } }
    }

    /// Seconds to wait before responding at all (latency), or `nil` for none. It adds to ``responseTime``.
    public var responseDelay: TimeInterval? {
        get { storage.withLock { $0.responseDelay } }
        set { storage.withLock { $0.responseDelay = newValue } }
    }

    /// How the response is delivered once the ``responseDelay`` has passed; `.immediate` by default.
    public var responseTime: HTTPStubResponseInterval {
        get { storage.withLock { $0.responseTime } }
        set { storage.withLock { $0.responseTime = newValue } }
    }

    /// A consistent copy of every property, read under one lock.
    func snapshot() -> Storage {
        storage.current
    }

    /// The plan parts every request receives from this response now, worked out once per change; `nil` when
    /// they depend on the request or the stub (an invalid response, ``noResponse()``), and the plan must be
    /// made from a ``snapshot()``.
    func prepared() -> HTTPResponsePlan.Prepared? {
        storage.withLock { storage in
            if let prepared = storage.prepared { return prepared }
            let prepared = HTTPResponsePlan.Prepared(storage)
            storage.prepared = .some(prepared)
            return prepared
        }
    }
}
