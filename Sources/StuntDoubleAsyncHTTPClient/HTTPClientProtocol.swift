import AsyncHTTPClient
import Logging
import NIOCore

/// What code that calls AsyncHTTPClient needs from its client: `execute`, with a deadline or a timeout.
///
/// Write a service against this protocol instead of `HTTPClient` (which is a final class), pass it
/// `HTTPClient.shared` or a client of your own in production, and an ``HTTPStubClient`` in tests:
///
/// ```swift
/// struct WeatherService {
///     let client: any HTTPClientProtocol
///
///     func forecast(for city: String) async throws -> Forecast {
///         let request = HTTPClientRequest(url: "https://api.weather.test/forecast/\(city)")
///         let response = try await client.execute(request, timeout: .seconds(10))
///         return try JSONDecoder().decode(Forecast.self, from: await response.body.collect(upTo: 1 << 20))
///     }
/// }
///
/// let service = WeatherService(client: HTTPClient.shared)  // production
/// let tested = WeatherService(client: stubber.stubClient())  // tests: no server, no network
/// ```
///
/// `HTTPClient` conforms as it is: its own `execute(_:deadline:logger:)` is the requirement.
public protocol HTTPClientProtocol: Sendable {
    /// Sends a request and returns the response once its head has arrived; the body streams on.
    /// - Parameters:
    ///   - request: The request.
    ///   - deadline: When the request must be over, body included.
    ///   - logger: The logger for the request, or `nil`.
    /// - Returns: The response, whose body may still be arriving.
    /// - Throws: `HTTPClientError` (`.deadlineExceeded`, `.cancelled`, ...) or the error the request failed with.
    func execute(_ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger?) async throws
        -> HTTPClientResponse
}

extension HTTPClientProtocol {
    /// Sends a request that must be over by `deadline`, without a logger.
    /// - Parameters:
    ///   - request: The request.
    ///   - deadline: When the request must be over, body included.
    /// - Returns: The response, whose body may still be arriving.
    /// - Throws: As ``execute(_:deadline:logger:)`` does.
    public func execute(_ request: HTTPClientRequest, deadline: NIODeadline) async throws -> HTTPClientResponse {
        try await execute(request, deadline: deadline, logger: nil)
    }

    /// Sends a request that must be over within `timeout`, as `HTTPClient.execute(_:timeout:logger:)` does.
    /// - Parameters:
    ///   - request: The request.
    ///   - timeout: How long the request may take, body included.
    ///   - logger: The logger for the request, or `nil`.
    /// - Returns: The response, whose body may still be arriving.
    /// - Throws: As ``execute(_:deadline:logger:)`` does.
    public func execute(_ request: HTTPClientRequest, timeout: TimeAmount, logger: Logger? = nil) async throws
        -> HTTPClientResponse
    {
        try await execute(request, deadline: .now() + timeout, logger: logger)
    }
}

extension HTTPClient: HTTPClientProtocol {}
