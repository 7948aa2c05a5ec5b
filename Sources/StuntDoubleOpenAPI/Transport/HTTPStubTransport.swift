import Foundation
import HTTPTypes
import OpenAPIRuntime
import StuntDouble

extension HTTPDeliveryPath {
    /// Requests made by a generated client through ``HTTPStubTransport``.
    public static let clientTransport = HTTPDeliveryPath(rawValue: "ClientTransport")
}

/// A `ClientTransport` for clients that swift-openapi-generator makes, answered by a stubber in process: no
/// URLSession, no socket. Each request is decided, journaled and verified as through every other delivery
/// path, and the plan's timing is kept (the delay before the head, the body's chunks at their deadlines).
///
/// ```swift
/// let stubber = HTTPStubber()
/// try stubber.load(openAPIAt: URL(fileURLWithPath: "openapi.yaml"))
/// let client = Client(serverURL: URL(string: "https://api.example.com")!, transport: HTTPStubTransport(stubber: stubber))
/// let pets = try await client.listPets().ok.body.json
/// ```
///
/// A request no stub answers throws `HTTPStubberError` with the report of the closest stubs; one that would
/// go to the network (opt-in mode, an ignore rule, a proxy or a recording) goes to `upstream` when one is
/// given, and otherwise throws.
public struct HTTPStubTransport: ClientTransport {
    /// The stubber that answers.
    public let stubber: HTTPStubber
    /// Where requests the stubber lets through go, if anywhere (such as a `URLSessionTransport`).
    public let upstream: (any ClientTransport)?
    /// The largest request body read, in bytes.
    public let maximumBodySize: Int

    /// Creates a transport.
    /// - Parameters:
    ///   - stubber: The stubber that answers.
    ///   - upstream: Where requests the stubber lets through go; `nil` to fail them.
    ///   - maximumBodySize: The largest request body read; 64 MiB by default.
    public init(stubber: HTTPStubber, upstream: (any ClientTransport)? = nil, maximumBodySize: Int = 64 << 20) {
        self.stubber = stubber
        self.upstream = upstream
        self.maximumBodySize = maximumBodySize
    }

    /// Answers a request from the stubber.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (
        HTTPResponse, HTTPBody?
    ) {
        let start = ContinuousClock.now
        let bytes: Data? = if let body { try await Data(collecting: body, upTo: maximumBodySize) } else { nil }
        let url = try Self.url(of: request, baseURL: baseURL)
        var headers = HTTPHeaders()
        for field in request.headerFields {
            headers.add(name: HTTPHeaders.Name(rawValue: field.name.rawName), value: field.value)
        }
        let incoming = try HTTPIncomingRequest(
            method: HTTPMethod(rawValue: request.method.rawValue), url: url, headers: headers, body: bytes)
        let (decision, entry) = stubber.decide(incoming, via: .clientTransport, received: start)
        do {
            let result = try await play(
                decision, request: request, body: bytes, baseURL: baseURL, operationID: operationID, start: start)
            stubber.complete(
                entry, after: .now - start, error: nil, statusCode: result.0.status.code, bodyByteCount: result.2)
            return (result.0, result.1)
        } catch {
            stubber.complete(entry, after: .now - start, error: error)
            throw error
        }
    }

    private func play(
        _ decision: HTTPStubDecision, request: HTTPRequest, body: Data?, baseURL: URL, operationID: String,
        start: ContinuousClock.Instant
    ) async throws -> (HTTPResponse, HTTPBody?, Int) {
        switch decision {
        case .unmatched(let report):
            throw HTTPStubberError(code: .unmatchedRequest, message: report.description, report: report)
        case .passThrough(let reason):
            return try await forward(
                request, body: body, baseURL: baseURL, operationID: operationID,
                otherwise:
                    "\(request.method) \(request.path ?? "/") is not stubbed: \(reason). HTTPStubTransport has no "
                    + "upstream transport to send it to: stub it, or give one.")
        case .stub(let plan) where plan.proxy != nil:
            try await Task.sleep(until: start + plan.responseDeadline, clock: .continuous)
            return try await forward(
                request, body: body, baseURL: baseURL, operationID: operationID,
                otherwise:
                    "\(plan.stub) proxies \(request.method) \(request.path ?? "/"); HTTPStubTransport has no "
                    + "upstream transport to send it to.")
        case .stub(let plan):
            // The response's steps, as every delivery path performs them: the head (or the plan's error) when
            // it is due, each chunk of the body at its own time, then the end.
            let sendsBody = plan.absence != .data && request.method != .head
            var steps = ResponseSteps(plan, at: .zero, body: sendsBody)
            let head = steps.removeNext()
            try await Task.sleep(until: start + (head?.time ?? .zero), clock: .continuous)
            if let error = plan.error { throw error }
            guard let planned = plan.response else { throw URLError(.badServerResponse) }
            // What HTTP cannot carry (a status outside 100-999, a control character in a header) the server
            // refuses to send; a client here would trap on it.
            if let problem = planned.wireProblem {
                throw HTTPStubberError(
                    code: .invalidResponse, message: "\(plan.stub) answers what HTTP cannot carry: \(problem)")
            }
            guard (0...999).contains(planned.statusCode.rawValue) else {
                throw HTTPStubberError(
                    code: .invalidResponse,
                    message: "\(plan.stub) answers status \(planned.statusCode.rawValue), which HTTP cannot carry.")
            }
            var response = HTTPResponse(status: .init(code: planned.statusCode.rawValue))
            for field in planned.headers {
                if let name = HTTPField.Name(field.name.rawValue) {
                    response.headerFields.append(HTTPField(name: name, value: field.value))
                }
            }
            guard sendsBody else { return (response, nil, 0) }
            let bodyData = planned.body
            let chunks = steps.chunks
            if chunks.count <= 1, plan.continuation == nil, steps.next.map({ $0.time <= (head?.time ?? .zero) }) ?? true
            {
                // The whole body with the head, as most stubs answer.
                return (response, HTTPBody(bodyData), bodyData.count)
            }
            // Throttled or dribbled: each chunk when it is due.
            let paced = steps
            let stream = AsyncThrowingStream<HTTPBody.ByteChunk, any Error> { continuation in
                let task = Task {
                    var steps = paced
                    do {
                        while let step = steps.removeNext() {
                            try await Task.sleep(until: start + step.time, clock: .continuous)
                            switch step.step {
                            case .chunk(let index): continuation.yield(ArraySlice(bodyData[chunks[index].range]))
                            case .head, .finish, .timeOut: break
                            }
                        }
                        if steps.isHeldOpen {
                            // An event stream that stays open: until the client stops reading.
                            while true { try await Task.sleep(for: .seconds(3600)) }
                        }
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { _ in task.cancel() }
            }
            // An event stream that repeats sends its body once a play; one that never ends has no length.
            let plays: Int? =
                if let continuation = plan.continuation { continuation.isEndless ? nil : continuation.plays } else { 1 }
            let length = plays.map { bodyData.count * $0 }
            return (
                response,
                HTTPBody(stream, length: length.map { .known(Int64($0)) } ?? .unknown, iterationBehavior: .single),
                length ?? 0
            )
        }
    }

    /// Sends a request the stubber lets through to the upstream transport, or throws `notStubbed` saying why.
    private func forward(
        _ request: HTTPRequest, body: Data?, baseURL: URL, operationID: String, otherwise message: String
    ) async throws -> (HTTPResponse, HTTPBody?, Int) {
        guard let upstream else { throw HTTPStubberError(code: .notStubbed, message: message) }
        let (response, responseBody) = try await upstream.send(
            request, body: body.map { HTTPBody($0) }, baseURL: baseURL, operationID: operationID)
        return (response, responseBody, 0)
    }

    /// The request's URL: the base URL's, with the request's path and query after it.
    private static func url(of request: HTTPRequest, baseURL: URL) throws -> URL {
        let base =
            baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        guard let url = URL(string: base + (request.path ?? "")) else {
            throw HTTPStubberError(
                code: .invalidRequest,
                message: "\(baseURL.absoluteString) and \(request.path ?? "") do not make a URL.")
        }
        return url
    }
}
