import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What keeps the exchanges that a stubber lets through to the network: `HTTPRecording` (StuntDoubleWireMock),
/// which writes them as stub files, is one.
///
/// The stubber asks ``records`` for each request that no stub matches: while it is `true`, the request goes to
/// the network (as in opt-in mode), and what it received is handed to ``add(_:response:body:error:)``;
/// ``save()`` writes what was kept.
public protocol HTTPExchangeRecorder: AnyObject, Sendable, CustomStringConvertible {
    /// Whether requests that no stub matches go to the network and are kept.
    var records: Bool { get }
    /// Keeps an exchange that went to the network, or notes that it failed.
    /// - Parameters:
    ///   - request: The request as it was sent.
    ///   - response: The response, when one came.
    ///   - body: The body received.
    ///   - error: Why the exchange failed, when it did.
    func add(_ request: HTTPIncomingRequest, response: HTTPURLResponse?, body: Data?, error: (any Error)?)
    /// Keeps an exchange that went to the network, with when its head and the parts of its body came (a
    /// recorder keeps an event stream's pace from them). By default, the same as ``add(_:response:body:error:)``.
    /// - Parameters:
    ///   - request: The request as it was sent.
    ///   - response: The response, when one came.
    ///   - body: The body received.
    ///   - error: Why the exchange failed, when it did.
    ///   - arrivals: When the head and the parts of the body came, after the request was sent.
    func add(
        _ request: HTTPIncomingRequest, response: HTTPURLResponse?, body: Data?, error: (any Error)?,
        arrivals: [HTTPRecordedExchange.Arrival])
    /// Writes what was kept (a recording's stub files, say).
    /// - Returns: How many exchanges were written.
    /// - Throws: When they cannot be written, or a kept exchange failed.
    @discardableResult
    func save() throws(HTTPStubberError) -> Int
}

extension HTTPExchangeRecorder {
    /// Keeps the exchange without its arrivals.
    /// - Parameters:
    ///   - request: The request as it was sent.
    ///   - response: The response, when one came.
    ///   - body: The body received.
    ///   - error: Why the exchange failed, when it did.
    ///   - arrivals: Not kept.
    public func add(
        _ request: HTTPIncomingRequest, response: HTTPURLResponse?, body: Data?, error: (any Error)?,
        arrivals: [HTTPRecordedExchange.Arrival]
    ) {
        add(request, response: response, body: body, error: error)
    }
}

/// One exchange a recording received from the network.
public struct HTTPRecordedExchange: Sendable {
    /// The request as it was sent.
    public let request: HTTPIncomingRequest
    /// The response's status and headers.
    public let response: HTTPRecordedResponse
    /// The response body, as the caller received it (decompressed).
    public let body: Data
    /// When the exchange was recorded (or, read from a HAR file, started).
    public var date = Date()
    /// When the response's head and the parts of its body arrived, in order; empty when the recorder did not
    /// time them. A recording keeps an event stream's pace from these.
    public var arrivals: [Arrival] = []
    /// What a validating proxy found wrong with the exchange (each rule of an OpenAPI document the request or
    /// the answer breaks, `request: ...` or `answer: ...`); a recording writes them into the mapping's
    /// `metadata`.
    public var contractNotes: [String] = []

    /// A moment of a response's arrival: its head (`byteCount` 0), or a part of its body.
    public struct Arrival: Hashable, Sendable {
        /// How many bytes of the body had arrived by then.
        public let byteCount: Int
        /// The time since the request was sent.
        public let time: Duration

        /// Creates an arrival.
        /// - Parameters:
        ///   - byteCount: How many bytes of the body had arrived by then.
        ///   - time: The time since the request was sent.
        public init(byteCount: Int, time: Duration) {
            self.byteCount = byteCount
            self.time = time
        }
    }

    package init(
        request: HTTPIncomingRequest, response: HTTPRecordedResponse, body: Data, date: Date = Date(),
        arrivals: [Arrival] = [], contractNotes: [String] = []
    ) {
        self.request = request
        self.response = response
        self.body = body
        self.date = date
        self.arrivals = arrivals
        self.contractNotes = contractNotes
    }

    /// The response's body as the events of a stream with the pace at which they arrived, when it is a
    /// `text/event-stream` whose every event is complete; `nil` otherwise (a recorder then keeps the body as
    /// it is).
    public var eventStream: HTTPStubEventStream? {
        guard
            response.headers.contains(where: {
                $0.name.lowercased() == "content-type" && $0.value.lowercased().hasPrefix("text/event-stream")
            })
        else { return nil }
        return HTTPStubEventStream(recorded: body, arrivals: arrivals)
    }
}

/// The status and headers of a recorded response.
public struct HTTPRecordedResponse: Sendable {
    /// The status code.
    public let statusCode: Int
    /// The headers, in the order the response listed them.
    public let headers: [(name: String, value: String)]

    package init(statusCode: Int, headers: [(name: String, value: String)]) {
        self.statusCode = statusCode
        self.headers = headers.sorted { $0.name.lowercased() < $1.name.lowercased() }
    }

    package init(_ response: HTTPURLResponse) {
        statusCode = response.statusCode
        var headers: [(name: String, value: String)] = []
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            headers.append((name, "\(value)"))
        }
        self.headers = headers.sorted { $0.name.lowercased() < $1.name.lowercased() }
    }
}
