import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StuntDoubleAsyncHTTPClient

/// A service as server-side Swift writes one (a Vapor route's dependency): it calls another service with
/// AsyncHTTPClient, through the protocol, so that tests can hand it a stub client.
struct ForecastService: Sendable {
    struct Forecast: Codable, Equatable {
        var city: String
        var high: Int
    }

    struct Failure: Error, Equatable {
        let status: UInt
        let message: String
    }

    let client: any HTTPClientProtocol
    let baseURL: String
    let token: String

    func forecast(for city: String) async throws -> Forecast {
        var request = HTTPClientRequest(url: "\(baseURL)/forecasts/\(city)")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await client.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else {
            throw Failure(status: response.status.code, message: String(buffer: body))
        }
        return try JSONDecoder().decode(Forecast.self, from: Data(body.readableBytesView))
    }

    /// Reports a reading: a JSON body sent as a stream of parts, as a service forwards one.
    func report(_ forecast: Forecast) async throws -> HTTPResponseStatus {
        var request = HTTPClientRequest(url: "\(baseURL)/readings")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = try encoder.encode(forecast)
        let parts = AsyncStream<ByteBuffer> { continuation in
            for start in stride(from: 0, to: json.count, by: 4) {
                continuation.yield(ByteBuffer(bytes: json[start..<min(start + 4, json.count)]))
            }
            continuation.finish()
        }
        request.body = .stream(parts, length: .known(Int64(json.count)))
        let response = try await client.execute(request, deadline: .now() + .seconds(120))
        return response.status
    }
}
