import Foundation

/// One request a stubber received: what it was, what the stubber decided, and how delivery ended.
///
/// ```text
/// #2 POST https://api.example.com/cart → stub "add to cart" (CartTests.swift:14): 201, 0 bytes; delivered after 0.000 s
/// ```
public struct HTTPJournalEntry: Sendable, CustomStringConvertible {
    /// The request's number in its stubber, from 1, in the order requests arrived.
    public let number: Int
    /// The request, with its whole body, or the first ``HTTPStubber/journalBodyLimit`` bytes of a longer one
    /// (see ``requestBodyLength``).
    public let request: HTTPIncomingRequest
    /// The length of the request's body as it was received, in bytes (0 without a body); longer than
    /// `request.body` when the journal kept only the beginning of it.
    public let requestBodyLength: Int
    /// Whether the journal kept only the beginning of the request's body (see ``HTTPStubber/journalBodyLimit``).
    public var isRequestBodyTruncated: Bool {
        (request.body?.count ?? 0) < requestBodyLength
    }
    /// When the stubber received the request.
    public var receivedAt: Date {
        Self.processStart.date.addingTimeInterval((received - Self.processStart.instant).seconds)
    }
    /// When the stubber received the request, on the clock that delivery times use: one clock reading per
    /// request serves both.
    let received: ContinuousClock.Instant
    /// A wall-clock time and the continuous clock's reading at that time, for ``receivedAt``.
    private static let processStart = (date: Date(), instant: ContinuousClock.now)
    /// Which delivery path brought the request.
    public let path: HTTPDeliveryPath
    /// What the stubber decided: the stub and its response plan, a pass-through, or the unmatched report.
    public let decision: HTTPStubDecision
    /// How delivery ended, once it has: how long it took and the error the caller received, if any. `nil`
    /// while the response is still being delivered, or when the path cannot tell (``HTTPDeliveryPath/direct``).
    public internal(set) var completion: Completion?
    /// What modules built on StuntDouble found about the exchange (the rules of a loaded OpenAPI document that
    /// the stub's response breaks, for one); read one kind with ``annotations(of:)``.
    public internal(set) var annotations: [any HTTPJournalAnnotation] = []
    /// The length of the planned response's body, when the journal kept only its beginning (a body made for this
    /// request alone, longer than ``HTTPStubber/journalBodyLimit``); `nil` when the plan's body is whole.
    package internal(set) var plannedBodyLength: Int?

    /// How the delivery of a response ended: what the caller received, and when.
    public struct Completion: Sendable {
        /// The time from receiving the request to the end of delivery.
        public let duration: Duration
        /// The error the caller received (the stub's error, a timeout, a cancellation ...), or `nil` when the
        /// response was delivered.
        public let error: (any Error)?
        /// The status code of the response the caller received (the network's, for a request passed
        /// through; the 3xx, for a request answered by a redirect), or `nil` when it received none.
        public let statusCode: HTTPStatusCode?
        /// How many body bytes the caller received with that response, or `nil` when it received none.
        public let bodyByteCount: Int?
    }

    /// The stub that answered, or `nil`.
    public var stub: HTTPStubRequest? {
        decision.plan?.stub
    }

    /// Whether no stub matched and the request failed for it (opt-out mode).
    public var isUnmatched: Bool {
        decision.report != nil
    }

    /// One line: number, request, outcome and delivery.
    public var description: String {
        var text = "#\(number) \(request.method) \(request.url.absoluteString) → "
        switch decision {
        case .stub(let plan):
            text += "\(plan.stub): "
            switch plan.action {
            case .respond(let response): text += "\(response.statusCode.rawValue), \(response.body.count) bytes"
            case .fail(let error): text += "error \(Self.describe(error))"
            }
        case .passThrough(.ignored(let rule)): text += "passed through to the network (\(rule))"
        case .passThrough(.optIn): text += "passed through to the network (opt-in mode)"
        case .passThrough(.recording(let recording)): text += "passed through to the network, recorded (\(recording))"
        case .unmatched: text += "unmatched"
        }
        if let completion {
            let seconds = String(format: "%.3f", completion.duration.seconds)
            if let error = completion.error {
                text += "; failed after \(seconds) s: \(Self.describe(error))"
            } else if case .passThrough = decision, let status = completion.statusCode {
                text +=
                    "; the network answered \(status.rawValue), \(completion.bodyByteCount ?? 0) bytes after \(seconds) s"
            } else {
                text += "; delivered after \(seconds) s"
            }
        }
        return text
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPStubberError { return "\(error.code)" }
        if let error = error as? URLError { return "URLError(\(error.code.rawValue))" }
        return String(describing: error)
    }
}

/// The delivery path a request came through.
public struct HTTPDeliveryPath: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The path's name.
    public let rawValue: String

    /// Creates a path.
    /// - Parameter rawValue: The path's name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The name.
    public var description: String { rawValue }

    /// A `URLSession`, through StuntDouble's URLProtocol.
    public static let urlSession = HTTPDeliveryPath(rawValue: "URLSession")
    /// An ``HTTPStubSession``, without URLSession.
    public static let stubSession = HTTPDeliveryPath(rawValue: "HTTPStubSession")
    /// A direct call of ``HTTPStubber/decision(for:)-(HTTPIncomingRequest)`` or
    /// ``HTTPStubber/response(for:)-(HTTPIncomingRequest)``.
    public static let direct = HTTPDeliveryPath(rawValue: "direct")
}
