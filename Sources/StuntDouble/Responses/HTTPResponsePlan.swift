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
    /// Everything else, shared by every plan of the same response (`HTTPResponsePlan+Prepared.swift`).
    let parts: Prepared
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
