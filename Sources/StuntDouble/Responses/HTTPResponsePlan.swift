import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What to deliver for a stubbed request, and when: the plan every delivery path plays the same way.
///
/// Times are measured from the moment the request was received. A response's head (status and headers) is
/// due at ``responseDeadline``; its body arrives in ``chunks``, each due at its deadline; a failure is due at
/// ``responseDeadline``.
public struct HTTPResponsePlan: Sendable {
    /// What the request receives.
    public enum Action: Sendable {
        /// A response.
        case respond(Response)
        /// An error, such as `URLError(.notConnectedToInternet)` or ``HTTPStubberError``.
        case fail(any Error)
    }

    /// A response to deliver: the final status, headers (with `Content-Type` and `Content-Length`) and body.
    public struct Response: Hashable, Sendable {
        /// The status code.
        public let statusCode: HTTPStatusCode
        /// The header fields, as delivered.
        public let headers: HTTPHeaders
        /// The body (empty when there is none).
        public let body: Data
        /// Whether a URL cache may store the response.
        public let cachePolicy: URLCache.StoragePolicy
        /// The reason phrase a server sends (``HTTPStubResponse/statusMessage``), or `nil` for the standard one.
        public let reasonPhrase: String?
        /// The header fields as Foundation takes them, made once with the response (which a prepared
        /// response then hands to every request it answers).
        let headerFields: [String: String]
        /// Why the response cannot go on the wire as HTTP/1.1 (a server sends a 500 naming the stub instead), or
        /// `nil`: worked out once with the response, like ``headerFields``.
        package let wireProblem: String?

        init(
            statusCode: HTTPStatusCode, headers: HTTPHeaders, body: Data, cachePolicy: URLCache.StoragePolicy,
            reasonPhrase: String? = nil
        ) {
            self.statusCode = statusCode
            self.headers = headers
            self.body = body
            self.cachePolicy = cachePolicy
            self.reasonPhrase = reasonPhrase
            headerFields = headers.dictionary
            wireProblem = Self.wireProblem(statusCode: statusCode, reasonPhrase: reasonPhrase, headers: headers)
        }

        /// Why a response cannot be sent as HTTP/1.1, or `nil`.
        private static func wireProblem(statusCode: HTTPStatusCode, reasonPhrase: String?, headers: HTTPHeaders)
            -> String?
        {
            let code = statusCode.rawValue
            if code < 200 {
                return "\(code) is an informational status, which cannot end a response; use 200 to 599"
            }
            if let reasonPhrase, reasonPhrase.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                return "its status message contains a line break or another control character"
            }
            for field in headers {
                let name = field.name.rawValue
                if name.isEmpty || !name.utf8.allSatisfy(isTokenByte) {
                    return "the header name \"\(name)\" is not a valid HTTP field name"
                }
                if field.value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                    return "the value of header \(name) contains a line break or another control character (only "
                        + "tabs may be in a header value)"
                }
            }
            return nil
        }

        /// Whether a byte may be in a field name (RFC 9110's `tchar`).
        package static func isTokenByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"),
                UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"),
                UInt8(ascii: "|"), UInt8(ascii: "~"):
                return true
            default:
                return false
            }
        }

        /// Whether two responses have the same status, headers, body and cache policy.
        /// - Parameters:
        ///   - lhs: A response.
        ///   - rhs: Another response.
        /// - Returns: Whether they are equal.
        public static func == (lhs: Response, rhs: Response) -> Bool {
            lhs.statusCode == rhs.statusCode && lhs.headers == rhs.headers && lhs.body == rhs.body
                && lhs.cachePolicy == rhs.cachePolicy && lhs.reasonPhrase == rhs.reasonPhrase
        }

        /// Hashes the status, headers, body and cache policy.
        /// - Parameter hasher: The hasher.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(statusCode)
            hasher.combine(headers)
            hasher.combine(body)
            hasher.combine(cachePolicy)
            hasher.combine(reasonPhrase)
        }

        /// The response as `HTTPURLResponse` for the given URL.
        /// - Parameter url: The URL the response answers.
        /// - Returns: The response, or `nil` when Foundation rejects it.
        public func httpURLResponse(for url: URL) -> HTTPURLResponse? {
            HTTPURLResponse(
                url: url, statusCode: statusCode.rawValue, httpVersion: "HTTP/1.1", headerFields: headerFields)
        }
    }

    /// A part of the body and the time by which it is due.
    public struct Chunk: Hashable, Sendable {
        /// The bytes of ``Response/body`` in this chunk.
        public let range: Range<Int>
        /// When the chunk is due, from the moment the request was received.
        public let deadline: Duration

        /// Creates a chunk.
        /// - Parameters:
        ///   - range: The bytes of the body in the chunk.
        ///   - deadline: When the chunk is due.
        public init(range: Range<Int>, deadline: Duration) {
            self.range = range
            self.deadline = deadline
        }
    }

    /// The request, as the stub matched it (with ``HTTPIncomingRequest/templateVariables``).
    public let request: HTTPIncomingRequest
    /// The stub that matched.
    public let stub: HTTPStubRequest
    /// Everything else, shared by every plan of the same response.
    private let parts: Prepared
    /// Whether the response was made for this request alone (a response provider's, a template's, an echo):
    /// then its body is no other plan's, and the journal keeps only its beginning when it is long.
    package internal(set) var isPerRequest = false
    /// What the request receives.
    public var action: Action { parts.action }
    /// When the response head, or the failure, is due.
    public var responseDeadline: Duration { parts.responseDeadline }
    /// The body's chunks in order, with their deadlines; empty for a failure or an empty body.
    public var chunks: [Chunk] { parts.chunks }
    /// What the stub leaves out, as hand-written mocks can (``HTTPStubResponse/noResponse()``,
    /// ``HTTPStubResponse/noData(statusCode:)``); `nil` for a complete response or an error.
    public var absence: Absence? { parts.absence }
    /// The fault a stub server commits instead of answering (``HTTPStubResponse/fault``), or `nil`. In-process
    /// paths deliver ``action``, which then fails with the error URLSession reports for the fault.
    public var fault: HTTPStubFault? { parts.fault }
    /// Where the request is forwarded instead (``HTTPStubResponse/proxy``), or `nil`. Delivery paths forward
    /// it after ``responseDeadline``; ``action`` is then an empty `200`, not what the client receives.
    public var proxy: HTTPStubProxy? { parts.proxy }

    /// What a response leaves out that a real server always sends.
    public enum Absence: Hashable, Sendable {
        /// No response at all. ``action`` fails with `URLError(.badServerResponse)`, for the APIs that must
        /// return a response; an ``HTTPStubSession`` completion handler receives `(nil, nil, nil)`.
        case response
        /// No data. ``action`` responds with an empty body, for the APIs that always return data; an
        /// ``HTTPStubSession`` completion handler receives `nil` data.
        case data
    }

    /// How the body's chunks go on after the last (an ``HTTPStubResponse/eventStream`` that repeats or stays
    /// open), or `nil` for a body that ends with its last chunk.
    public var continuation: Continuation? { parts.continuation }

    /// How an event stream's chunks go on after the last: they play again, each a ``period`` after its time in
    /// the play before, and the response may then stay open.
    public struct Continuation: Hashable, Sendable {
        /// How many times the chunks play in all, or `nil` for until the client leaves.
        public let plays: Int?
        /// How much later each chunk is due in a play than in the one before: the sum of the events' delays.
        public let period: Duration
        /// Whether the response stays open after the last play, until the client leaves.
        public let staysOpen: Bool

        /// Whether the response never ends on its own.
        public var isEndless: Bool { plays == nil || staysOpen }
    }

    /// When delivery is complete: the last chunk's deadline (in the last play of a stream that repeats), or the
    /// response deadline; `nil` for a stream that never ends on its own (``Continuation/isEndless``).
    public var completionDeadline: Duration? {
        guard let continuation else { return chunks.last?.deadline ?? responseDeadline }
        guard !continuation.isEndless, let plays = continuation.plays else { return nil }
        return (chunks.last?.deadline ?? responseDeadline) + continuation.period * (plays - 1)
    }

    /// Whether the plan fails instead of responding (without copying its response or error out).
    var fails: Bool { parts.fails }

    /// Whether the body is an event stream's (``HTTPStubResponse/eventStream``).
    var isEventStream: Bool { parts.isEventStream }

    /// Whether everything is due at once, when the request is received: no delay, no paced body.
    var isImmediate: Bool { parts.isImmediate }

    /// The response, or `nil` for a failure.
    public var response: Response? {
        if case .respond(let response) = action { response } else { nil }
    }

    /// The error, or `nil` for a response.
    public var error: (any Error)? {
        if case .fail(let error) = action { error } else { nil }
    }

    /// The body of a response (empty for a failure).
    public var body: Data {
        response?.body ?? Data()
    }
}

extension HTTPResponsePlan {
    /// What a delivery path derived from this plan's response for its stub and stored with ``storeDerived(_:)``
    /// (the stub server keeps the response's head, ready for the wire), or `nil`: a response object answers
    /// many requests, and what is derived from it once serves them all.
    package func derived<Value: AnyObject & Sendable>(_ type: Value.Type) -> Value? {
        parts.derived.withLock { entry in
            guard let entry, entry.stub == stub.id else { return nil }
            return entry.value as? Value
        }
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

extension HTTPStubRequest {
    /// A plan of each of the stub's fixed responses (the ones that do not depend on the request), its request a
    /// placeholder: for delivery paths that derive what they need from a response before any request comes (the
    /// stub server makes a response's wire form when the stub is loaded, with ``HTTPResponsePlan/storeDerived(_:)``,
    /// so that its first request costs no more than the others).
    package func fixedResponsePlans() -> [HTTPResponsePlan] {
        let definition = snapshot().definition
        var responses: [HTTPStubResponse] = []
        for source in Array(definition.responses.values) + [definition.everyMethod].compactMap({ $0 }) {
            switch source {
            case .fixed(let response): responses.append(response)
            case .sequence(let sequence): responses += sequence.responses
            case .echo, .dynamic: break
            }
        }
        guard !responses.isEmpty, let url = URL(string: "http://localhost/"),
            let placeholder = try? HTTPIncomingRequest(method: .get, url: url)
        else { return [] }
        return responses.map { HTTPResponsePlan(stub: self, request: placeholder, response: $0) }
    }
}
