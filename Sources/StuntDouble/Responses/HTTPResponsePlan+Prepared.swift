import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPResponsePlan {
    /// What a delivery path derived from this plan's response for its stub and stored with ``storeDerived(_:)``
    /// (the stub server keeps the response's head, ready for the wire), or `nil`: a response object answers
    /// many requests, and what is derived from it once serves them all.
    package func derived<Value: AnyObject & Sendable>(_ type: Value.Type) -> Value? {
        let value = parts.derived.withLock { entry in entry?.stub == stub.id ? entry?.value : nil }
        // The type compared, then the object taken as it (a dynamic cast cost more than the rest of the look-up).
        guard let value, Swift.type(of: value) == Value.self else { return nil }
        return unsafeDowncast(value, to: Value.self)
    }

    /// Keeps what a delivery path derived from this plan's response for its stub (see ``derived(_:)``).
    package func storeDerived(_ value: any AnyObject & Sendable) {
        let stub = self.stub.id
        parts.derived.withLock { $0 = (stub, value) }
    }
}

extension HTTPResponsePlan {
    /// Chunks of a throttled body are about this long apart.
    static let chunkInterval = 0.05
    /// A throttled body is split into at most this many chunks.
    package static let maximumChunkCount = 2000
    /// The longest a response may take: one year. Longer is almost surely a mistake (and would overflow).
    package static let maximumSeconds: Double = 365 * 24 * 3600
    /// The fastest simulated bandwidth: 1 TB/s.
    static let maximumBytesPerSecond: Double = 1e12

    /// The parts of a plan that depend on the response alone: everything but the stub and the request. A
    /// response object keeps its own, so that requests it answers do not work them out again.
    final class Prepared: Sendable {
        let action: Action
        let responseDeadline: Duration
        let chunks: [Chunk]
        let absence: Absence?
        let fault: HTTPStubFault?
        let proxy: HTTPStubProxy?
        let continuation: Continuation?
        /// Whether the body is an event stream's (``HTTPStubResponse/eventStream``).
        let isEventStream: Bool
        /// Whether ``action`` fails: known without copying the action out.
        let fails: Bool
        /// Whether everything is due at once: no delay, no paced body.
        let isImmediate: Bool
        /// What a delivery path derived from the response for a stub, kept for the next request it answers (see
        /// `HTTPResponsePlan.derived(_:)`).
        let derived = Locked<(stub: UInt64, value: any AnyObject & Sendable)?>(nil)

        init(
            action: Action, responseDeadline: Duration, chunks: [Chunk], absence: Absence?, fault: HTTPStubFault? = nil,
            proxy: HTTPStubProxy? = nil, continuation: Continuation? = nil, isEventStream: Bool = false
        ) {
            self.isEventStream = isEventStream
            self.action = action
            fails = if case .fail = action { true } else { false }
            self.responseDeadline = responseDeadline
            self.chunks = chunks
            isImmediate =
                responseDeadline == .zero && (chunks.last?.deadline ?? .zero) == .zero && continuation == nil
            self.absence = absence
            self.fault = fault
            self.proxy = proxy
            self.continuation = continuation
        }

        /// The parts of a valid response, or `nil` when the plan needs the stub or the request (an invalid
        /// response, whose error names the stub; no response at all, whose error names the URL).
        convenience init?(_ response: HTTPStubResponse.Storage) {
            guard HTTPResponsePlan.validate(response, bodySize: response.body?.count ?? 0) == nil,
                response.failError != nil || response.absence != .response
            else { return nil }
            let absence = response.failError == nil ? response.absence : nil
            var start = response.responseDelay ?? 0
            if case .delayedBy(let delay) = response.responseTime {
                start += delay
            }
            if let error = response.failError {
                self.init(action: .fail(error), responseDeadline: .seconds(start), chunks: [], absence: absence)
                return
            }
            if let fault = response.fault {
                let error = URLError(
                    fault.urlError,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "The stub's fault \(fault): a server would break the connection (\(fault.summary))."
                    ])
                self.init(
                    action: .fail(error), responseDeadline: .seconds(start), chunks: [], absence: nil, fault: fault)
                return
            }
            if let proxy = response.proxy {
                let empty = Response(
                    statusCode: .ok, headers: HTTPHeaders(), body: Data(), cachePolicy: .notAllowed, reasonPhrase: nil)
                self.init(
                    action: .respond(empty), responseDeadline: .seconds(start), chunks: [], absence: nil, proxy: proxy)
                return
            }
            if let stream = response.eventStream {
                self.init(stream, of: response, start: start)
                return
            }
            let body = response.absence == .data ? Data() : response.body ?? Data()
            var headers = response.headers
            if let contentType = response.contentType {
                headers[.contentType] = contentType.rawValue
            }
            if !headers.contains(.contentLength), !headers.contains(.transferEncoding) {
                headers[.contentLength] = String(body.count)
            }
            let action = Action.respond(
                Response(
                    statusCode: response.statusCode, headers: headers, body: body, cachePolicy: response.cachePolicy,
                    reasonPhrase: response.statusMessage))
            let chunks: [Chunk]
            if body.isEmpty {
                chunks = []
            } else if case .withSpeed(let speed) = response.responseTime {
                let rate = speed.bytesPerSecond
                let perChunk = max(
                    1, Int(rate * HTTPResponsePlan.chunkInterval),
                    (body.count + HTTPResponsePlan.maximumChunkCount - 1) / HTTPResponsePlan.maximumChunkCount)
                chunks = stride(from: 0, to: body.count, by: perChunk).map { lower in
                    let upper = min(lower + perChunk, body.count)
                    return Chunk(range: lower..<upper, deadline: .seconds(start + Double(upper) / rate))
                }
            } else if case .dribbled(let count, let duration) = response.responseTime {
                chunks = HTTPResponsePlan.dribble(bodySize: body.count, chunks: count, over: duration, from: start)
            } else {
                chunks = [Chunk(range: 0..<body.count, deadline: .seconds(start))]
            }
            self.init(action: action, responseDeadline: .seconds(start), chunks: chunks, absence: absence)
        }
    }

    /// The chunks of a dribbled body: `count` parts as equal as bytes allow (the first ones a byte longer),
    /// part `k` due `k × duration / count` after `start`.
    static func dribble(bodySize: Int, chunks count: Int, over duration: TimeInterval, from start: TimeInterval)
        -> [Chunk]
    {
        let parts = min(max(count, 1), bodySize)
        let base = bodySize / parts
        let longer = bodySize % parts
        var lower = 0
        return (1...parts).map { part in
            let upper = lower + base + (part <= longer ? 1 : 0)
            defer { lower = upper }
            return Chunk(range: lower..<upper, deadline: .seconds(start + duration * Double(part) / Double(parts)))
        }
    }

    /// The same plan for another copy of its request (the journal's, with a truncated body).
    func replacingRequest(_ request: HTTPIncomingRequest) -> HTTPResponsePlan {
        var plan = HTTPResponsePlan(stub: stub, request: request, prepared: parts)
        plan.isPerRequest = isPerRequest
        return plan
    }

    /// The plan with only the first `limit` bytes of its response's body, for a journal that must not keep a
    /// long body made for one request (a 64 MiB template, rendered for each request, kept 10,000 times). Not
    /// for delivery: its chunks are gone.
    func keepingBodyPrefix(_ limit: Int) -> HTTPResponsePlan {
        guard case .respond(let response) = action, response.body.count > limit else { return self }
        let kept = Response(
            statusCode: response.statusCode, headers: response.headers, body: Data(response.body.prefix(limit)),
            cachePolicy: response.cachePolicy, reasonPhrase: response.reasonPhrase)
        var plan = HTTPResponsePlan(
            stub: stub, request: request,
            prepared: Prepared(
                action: .respond(kept), responseDeadline: responseDeadline, chunks: [], absence: absence, fault: fault,
                proxy: proxy, continuation: continuation))
        plan.isPerRequest = true
        return plan
    }

    init(stub: HTTPStubRequest, request: HTTPIncomingRequest, prepared: Prepared) {
        self.stub = stub
        self.request = request
        parts = prepared
    }

    /// The plan of a response object: its prepared parts when it has them.
    init(stub: HTTPStubRequest, request: HTTPIncomingRequest, response: HTTPStubResponse) {
        if let prepared = response.prepared() {
            self.init(stub: stub, request: request, prepared: prepared)
        } else {
            self.init(stub: stub, request: request, response: response.snapshot())
        }
    }

    init(stub: HTTPStubRequest, request: HTTPIncomingRequest, response: HTTPStubResponse.Storage) {
        if let prepared = Prepared(response) {
            self.init(stub: stub, request: request, prepared: prepared)
        } else if let problem = Self.validate(response, bodySize: response.body?.count ?? 0) {
            let error = HTTPStubberError(
                code: .invalidResponse, message: "The response of \(stub) is invalid: \(problem).")
            self.init(
                stub: stub, request: request,
                prepared: Prepared(action: .fail(error), responseDeadline: .zero, chunks: [], absence: nil))
        } else {
            // No response at all (HTTPStubResponse.noResponse()), for the APIs that must return one.
            var start = response.responseDelay ?? 0
            if case .delayedBy(let delay) = response.responseTime {
                start += delay
            }
            let error = URLError(
                .badServerResponse,
                userInfo: [
                    NSLocalizedDescriptionKey: "\(stub) answers with no response (HTTPStubResponse.noResponse()).",
                    NSURLErrorFailingURLErrorKey: request.url,
                ])
            self.init(
                stub: stub, request: request,
                prepared: Prepared(
                    action: .fail(error), responseDeadline: .seconds(start), chunks: [], absence: .response))
        }
    }
}
