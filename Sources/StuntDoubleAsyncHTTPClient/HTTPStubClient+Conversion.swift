import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPStubClient {
    /// The error a stubbed failure reaches the caller as: for a fault, what AsyncHTTPClient reports when a
    /// server commits it; for a stubbed error, ``clientError(_:deadlinePassed:)``.
    /// - Parameter plan: A plan that fails.
    /// - Returns: The error.
    static func error(for plan: HTTPResponsePlan) -> any Error {
        if plan.fault == .malformedResponseChunk {
            return BrokenChunkedBody()
        }
        if let fault = plan.fault {
            return error(for: fault)
        }
        return clientError(plan.error ?? HTTPClientError.remoteConnectionClosed, deadlinePassed: false)
    }

    /// What AsyncHTTPClient reports when a server commits a fault, as measured against StuntDouble's server:
    /// NIO's `IOError` with `ECONNRESET` for a reset connection, `HTTPClientError.remoteConnectionClosed` for an
    /// empty response, `HTTPParserError.invalidChunkSize` for a broken chunk (from the body, after a `200` head),
    /// and `HTTPParserError.invalidConstant` for random bytes.
    /// - Parameter fault: The fault.
    /// - Returns: The error.
    public static func error(for fault: HTTPStubFault) -> any Error {
        switch fault {
        case .connectionResetByPeer: IOError(errnoCode: ECONNRESET, reason: "read(descriptor:pointer:size:)")
        case .emptyResponse: HTTPClientError.remoteConnectionClosed
        case .malformedResponseChunk: HTTPParserError.invalidChunkSize
        case .randomDataThenClose: HTTPParserError.invalidConstant
        default: HTTPClientError.remoteConnectionClosed
        }
    }

    /// An error as AsyncHTTPClient reports it: URLSession's errors that have an AsyncHTTPClient counterpart
    /// become it (`.cancelled` becomes `CancellationError`, as a cancelled task's request fails in
    /// AsyncHTTPClient; `.timedOut` becomes `.deadlineExceeded`, `.networkConnectionLost`
    /// `.remoteConnectionClosed`); every other error, an `HTTPClientError` you stub or an `HTTPStubberError` for
    /// an unmatched request, is unchanged.
    /// - Parameters:
    ///   - error: The error.
    ///   - deadlinePassed: Whether the request's deadline has passed (a cancellation is then the deadline's).
    /// - Returns: The error AsyncHTTPClient would report.
    public static func clientError(_ error: any Error, deadlinePassed: Bool) -> any Error {
        if deadlinePassed, error is CancellationError || (error as? URLError)?.code == .cancelled {
            return HTTPClientError.deadlineExceeded
        }
        if error is CancellationError {
            return CancellationError()
        }
        guard let urlError = error as? URLError else { return error }
        switch urlError.code {
        case .cancelled: return CancellationError()
        case .timedOut: return HTTPClientError.deadlineExceeded
        case .networkConnectionLost: return HTTPClientError.remoteConnectionClosed
        default: return error
        }
    }

    /// A stub's `MALFORMED_RESPONSE_CHUNK`: a `200` head, then a body that fails (``brokenChunkedResponse``).
    struct BrokenChunkedBody: Error, CustomStringConvertible {
        var description: String {
            "The stub's fault MALFORMED_RESPONSE_CHUNK: a 200 head announcing a chunked body, then bytes that are no "
                + "chunk"
        }
    }

    /// What AsyncHTTPClient returns when a server sends a chunked `200` head and then broken bytes: the head,
    /// and a body that fails with `HTTPParserError.invalidChunkSize`.
    static var brokenChunkedResponse: HTTPClientResponse {
        let (body, parts) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
        parts.finish(throwing: HTTPParserError.invalidChunkSize)
        return HTTPClientResponse(status: .ok, headers: ["transfer-encoding": "chunked"], body: .stream(body))
    }

    /// The request as the stubber reads it, its body read whole.
    static func urlRequest(for request: HTTPClientRequest) async throws -> URLRequest {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased() else {
            throw HTTPClientError.invalidURL
        }
        guard ["http", "https"].contains(scheme) else {
            throw HTTPClientError.unsupportedScheme(scheme)
        }
        guard let host = url.host, !host.isEmpty else {
            throw HTTPClientError.emptyHost
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        if let body = request.body {
            var data = Data()
            for try await buffer in body {
                data.append(contentsOf: buffer.readableBytesView)
            }
            urlRequest.httpBody = data
        }
        return urlRequest
    }

    /// The seconds from now until `deadline` (negative once it has passed).
    static func seconds(until deadline: NIODeadline) -> Double {
        Double((deadline - .now()).nanoseconds) / 1_000_000_000
    }
}
