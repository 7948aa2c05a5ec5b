import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An AsyncHTTPClient stand-in that answers from an `HTTPStubber` in process: no server, no network.
///
/// It plays stubs as every other delivery path does: the same matching, journal and unmatched-request
/// reports, delays, throttled and streamed bodies, event streams and redirects. What AsyncHTTPClient would
/// report, it reports: a stub that answers after the deadline ends in `HTTPClientError.deadlineExceeded`
/// (before the head or while the body streams), a cancelled task in `CancellationError`, and a fault
/// in the error AsyncHTTPClient reports when a server commits it (`HTTPStubClient.error(for:)`).
///
/// ```swift
/// let stubber = HTTPStubber()
/// let forecast = HTTPStubRequest()
///     .match(URL: "https://api.weather.test/forecast/oslo")
///     .stub(for: .get, json: #"{"high": 4}"#)
/// stubber.add(stub: forecast)
/// let service = WeatherService(client: stubber.stubClient())
/// #expect(try await service.forecast(for: "oslo").high == 4)
/// try stubber.verify(forecast, called: .once)
/// ```
///
/// Requests that go to the network (an ignore rule, opt-in mode, a recording, a proxying stub) go through
/// a real `HTTPClient`: `HTTPClient.shared` unless you pass your own.
public final class HTTPStubClient: HTTPClientProtocol, CustomStringConvertible {
    /// The stubber that answers this client's requests.
    public let stubber: HTTPStubber
    /// The client that fetches the requests the stubber lets through.
    public let network: HTTPClient
    private let session: HTTPStubSession

    /// Creates a client.
    /// - Parameters:
    ///   - stubber: The stubber that answers; the current test's (`HTTPStubber.current`) by default.
    ///   - network: The client that fetches what the stubber lets through; `HTTPClient.shared` by default.
    public init(stubber: HTTPStubber = .current, passingThroughTo network: HTTPClient = .shared) {
        self.stubber = stubber
        self.network = network
        // AsyncHTTPClient keeps no cookies and adds no headers; its only timeout is the request's deadline.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        session = HTTPStubSession(
            stubber: stubber, configuration: configuration, delegateQueue: nil, path: .asyncHTTPClient)
    }

    /// `HTTPStubClient` and its stubber's number of stubs.
    public var description: String {
        "HTTPStubClient(\(stubber.stubs.count) stubs)"
    }

    /// Sends a request to the stubber and returns the response once its head is due; the body arrives as
    /// the stub delivers it.
    /// - Parameters:
    ///   - request: The request. A streamed body is read whole first (the stubs match on it).
    ///   - deadline: When the request must be over, body included.
    ///   - logger: Passed to the real client for requests that go to the network.
    /// - Returns: The response.
    /// - Throws: `HTTPClientError.deadlineExceeded` when the deadline passes first, `CancellationError` when
    ///   the calling task is cancelled, `.invalidURL` or `.unsupportedScheme` for a URL AsyncHTTPClient refuses,
    ///   `HTTPStubberError` for an unmatched request (its report says why), and a stub's error as
    ///   `HTTPStubClient.error(for:)` delivers it.
    public func execute(_ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger?) async throws
        -> HTTPClientResponse
    {
        var urlRequest = try await Self.urlRequest(for: request)
        let remaining = Self.seconds(until: deadline)
        guard remaining > 0 else { throw HTTPClientError.deadlineExceeded }
        // The stubbed exchange must not time out on URLSession's terms first: the deadline decides.
        urlRequest.timeoutInterval = remaining + 60
        let exchange = Exchange(request: request, deadline: deadline, logger: logger, network: network)
        let sent = urlRequest
        do {
            let (body, response) = try await exchange.head {
                try await self.session.stream(
                    for: sent, planned: exchange.plan, relay: exchange.relay, failure: Self.error(for:))
            }
            return exchange.response(head: response, body: body)
        } catch is BrokenChunkedBody {
            return Self.brokenChunkedResponse
        }
    }
}

extension HTTPStubber {
    /// A client that answers from this stubber in process, for code written against ``HTTPClientProtocol``.
    ///
    /// ```swift
    /// let service = WeatherService(client: stubber.stubClient())
    /// ```
    /// - Parameter network: The client that fetches what the stubber lets through; `HTTPClient.shared` by
    ///   default.
    /// - Returns: The client. It keeps the stubber alive.
    public func stubClient(passingThroughTo network: HTTPClient = .shared) -> HTTPStubClient {
        HTTPStubClient(stubber: self, passingThroughTo: network)
    }
}

extension HTTPDeliveryPath {
    /// An ``HTTPStubClient``: code written for AsyncHTTPClient, answered in process.
    public static let asyncHTTPClient = HTTPDeliveryPath(rawValue: "AsyncHTTPClient")
}
