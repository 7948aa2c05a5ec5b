import Foundation

/// One server-sent event of an ``HTTPStubEventStream``: its fields, and how long after the event before it (or
/// after the response's head, for the first) it is sent.
///
/// ```swift
/// HTTPStubEvent(data: #"{"delta": "Hel"}"#, delay: 0.05)
/// HTTPStubEvent(data: "bye", event: "end", id: "7")
/// HTTPStubEvent(comment: "keep-alive", delay: 15)
/// ```
///
/// On the wire an event is written as the WHATWG HTML standard's event stream format says: a comment line
/// (`: text`), then `event:`, `id:` and `retry:` lines, then one `data:` line for each line of ``data``, then a
/// blank line, which makes a client dispatch the event.
public struct HTTPStubEvent: Hashable, Sendable {
    /// The event's data, or `nil` for none (a client dispatches no event without data). Text with line breaks is
    /// sent as several `data:` lines, which a client joins again with `\n`.
    public var data: String?
    /// The event's type (`event:`), or `nil` for the default, `message`.
    public var event: String?
    /// The event's id (`id:`), which a client sends back in `Last-Event-ID` when it reconnects; `nil` for none.
    public var id: String?
    /// The reconnection time in milliseconds the client should use (`retry:`), or `nil` for none.
    public var retry: Int?
    /// A comment line (`: text`), which clients ignore: the usual keep-alive. `nil` for none.
    public var comment: String?
    /// Seconds after the event before (or after the response's head, for the first event) that this one is sent.
    public var delay: TimeInterval

    /// Creates an event.
    /// - Parameters:
    ///   - data: The data, or `nil`.
    ///   - event: The event type, or `nil` for `message`.
    ///   - id: The id, or `nil`.
    ///   - retry: The reconnection time in milliseconds, or `nil`.
    ///   - comment: A comment line, or `nil`.
    ///   - delay: Seconds after the event before.
    public init(
        data: String? = nil, event: String? = nil, id: String? = nil, retry: Int? = nil, comment: String? = nil,
        delay: TimeInterval = 0
    ) {
        self.data = data
        self.event = event
        self.id = id
        self.retry = retry
        self.comment = comment
        self.delay = delay
    }

    /// The event as an event stream carries it, ending with the blank line that dispatches it.
    var encoded: String {
        var text = ""
        func line(_ field: String, _ value: String) {
            text += value.isEmpty ? field + "\n" : field + " " + value + "\n"
        }
        if let comment {
            for part in Self.lines(of: comment) { line(":", part) }
        }
        if let event { line("event:", event) }
        if let id { line("id:", id) }
        if let retry { line("retry:", String(retry)) }
        if let data {
            for part in Self.lines(of: data) { line("data:", part) }
        }
        // An event of no field at all is nothing on the wire: a pause.
        return text.isEmpty ? "" : text + "\n"
    }

    /// The lines of a text, split at CRLF, CR or LF as an event stream's parser splits them.
    private static func lines(of text: String) -> [String] {
        var lines: [String] = []
        var current = ""
        var afterCR = false
        for scalar in text.unicodeScalars {
            if afterCR, scalar == "\n" {
                afterCR = false
                continue
            }
            afterCR = scalar == "\r"
            if scalar == "\r" || scalar == "\n" {
                lines.append(current)
                current = ""
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        lines.append(current)
        return lines
    }

    /// Why the event cannot be sent as written, or `nil`; `place` names it (`event 3`).
    package func problem(_ place: String) -> String? {
        func breaksLine(_ value: String?) -> Bool {
            value?.unicodeScalars.contains { $0 == "\r" || $0 == "\n" } == true
        }
        if breaksLine(event) {
            return "\(place)'s event type contains a line break, which would end the field early; use one line"
        }
        if breaksLine(id) || id?.unicodeScalars.contains("\0") == true {
            return "\(place)'s id contains a line break or a NUL character (a client ignores such an id); use one line"
        }
        if let retry, retry < 0 {
            return "\(place)'s retry is \(retry); use a number of milliseconds of 0 or more"
        }
        if !(delay.isFinite && delay >= 0 && delay <= HTTPResponsePlan.maximumSeconds) {
            return "\(place)'s delay is \(delay); use a finite number of seconds from 0 to one year"
        }
        return nil
    }
}

/// A `text/event-stream` response's events (server-sent events), each sent when its delay is over, as LLM
/// chat completions, live feeds and notification streams answer.
///
/// ```swift
/// stubber.add(
///     stub: HTTPStubRequest()
///         .match(URL: "https://api.example.com/v1/chat/completions")
///         .stub(
///             for: .post,
///             response: .eventStream([
///                 HTTPStubEvent(data: #"{"delta": "Hel"}"#, delay: 0.05),
///                 HTTPStubEvent(data: #"{"delta": "lo"}"#, delay: 0.05),
///                 HTTPStubEvent(data: "[DONE]", delay: 0.05),
///             ])))
/// ```
///
/// Every delivery path sends each event when it is due: a stub server as a chunk of a chunked (HTTP/1.1) or
/// streamed (HTTP/2) body, flushed at once; URLSession as data its delegate receives then; ``HTTPStubSession``
/// through its ``HTTPStubSession/stream(for:)``. The events can play several times, or until the client leaves,
/// and the response can end after the last or stay open.
public struct HTTPStubEventStream: Hashable, Sendable {
    /// How many times the events play.
    public enum Repetition: Hashable, Sendable {
        /// This many times in all (`.times(1)`: once).
        case times(Int)
        /// Again and again until the client leaves. One play must take some time: an event needs a delay.
        case forever
    }

    /// What happens after the last event.
    public enum End: Hashable, Sendable {
        /// The response ends (a client's `EventSource` would reconnect).
        case close
        /// The response stays open, sending nothing more, until the client leaves or times out.
        case stayOpen
    }

    /// The events, in order.
    public var events: [HTTPStubEvent]
    /// How many times the events play; once by default.
    public var repetition: Repetition
    /// What happens after the last event; by default, the response ends.
    public var end: End

    /// Creates an event stream.
    /// - Parameters:
    ///   - events: The events, in order.
    ///   - repetition: How many times they play.
    ///   - end: What happens after the last.
    public init(_ events: [HTTPStubEvent], repetition: Repetition = .times(1), end: End = .close) {
        self.events = events
        self.repetition = repetition
        self.end = end
    }

    /// The most times a stream's events may play (more is `.forever`).
    static let maximumPlays = 1_000_000

    /// Why the stream cannot be sent, or `nil`.
    package func problem() -> String? {
        for (index, event) in events.enumerated() {
            if let problem = event.problem("event \(index + 1)") { return problem }
        }
        switch repetition {
        case .times(let count) where count < 1 || count > Self.maximumPlays:
            return "the event stream plays .times(\(count)); use 1 to \(Self.maximumPlays), or .forever"
        case .forever where !events.contains(where: { $0.delay > 0 }):
            return "the event stream repeats forever with no delay between its events, which would send them as "
                + "fast as the client takes them without end; give an event a delay"
        default:
            break
        }
        let play = events.reduce(0) { $0 + $1.delay }
        if case .times(let count) = repetition, play * Double(count) > HTTPResponsePlan.maximumSeconds {
            return "the event stream would take \(play * Double(count)) seconds; keep it under one year"
        }
        return nil
    }
}

extension HTTPStubResponse {
    /// A `200` `text/event-stream` response of these events (server-sent events).
    ///
    /// ```swift
    /// .eventStream([HTTPStubEvent(data: "tick", delay: 1)], repetition: .forever)
    /// ```
    /// - Parameters:
    ///   - events: The events, in order, each with its delay after the one before.
    ///   - repetition: How many times they play; once by default.
    ///   - end: What happens after the last; by default, the response ends.
    ///   - code: The status code; `200 OK` by default.
    /// - Returns: The response.
    public static func eventStream(
        _ events: [HTTPStubEvent], repetition: HTTPStubEventStream.Repetition = .times(1),
        end: HTTPStubEventStream.End = .close, code: HTTPStatusCode = .ok
    ) -> HTTPStubResponse {
        let response = HTTPStubResponse(statusCode: code)
        response.eventStream = HTTPStubEventStream(events, repetition: repetition, end: end)
        return response
    }

    /// The events this response sends as a `text/event-stream` body, or `nil` for an ordinary body. When set,
    /// they are the body (``body`` is not sent); the response gets `Content-Type: text/event-stream` (unless
    /// ``contentType`` or ``headers`` say otherwise) and `Cache-Control: no-cache` (unless ``headers`` have one), and no
    /// `Content-Length`: a server sends it chunked. ``responseDelay`` and ``HTTPStubResponseInterval/delayedBy(_:)``
    /// delay its head; the events' own delays pace the rest.
    public var eventStream: HTTPStubEventStream? {
        get { storage.withLock { $0.eventStream } }
        set { storage.withLock { $0.eventStream = newValue } }
    }
}

extension HTTPStubEventStream {
    /// The events of a recorded `text/event-stream` body, read as the WHATWG standard reads a stream, each with
    /// the delay after the one before at which it arrived (in whole milliseconds; none without `arrivals`). The
    /// first event's delay counts from the request: each event replays at the time after the request at which it
    /// came (a head seen late, on a loaded machine, would otherwise squeeze the events after it together).
    /// `nil` when the body does not end with a complete event (its last bytes would be lost), or has none.
    /// - Parameters:
    ///   - body: The body.
    ///   - arrivals: When the head and the body's parts arrived.
    package init?(recorded body: Data, arrivals: [HTTPRecordedExchange.Arrival]) {
        guard let read = Self.events(in: body) else { return nil }
        var previous = 0
        // Events and arrivals are both in the body's order: one walk through each, not a search per event (a
        // long recorded stream has as many arrivals as events).
        var next = arrivals.startIndex
        self.init(
            read.map { event, end in
                // The event is complete when the blank line after it has arrived; in whole milliseconds, as stub
                // files write delays, counted from the request so that they do not drift.
                while next < arrivals.endIndex, arrivals[next].byteCount < end { next += 1 }
                let time = next < arrivals.endIndex ? Self.milliseconds(arrivals[next].time) : previous
                var event = event
                event.delay = Double(max(0, time - previous)) / 1000
                previous = max(previous, time)
                return event
            })
    }

    /// The events of an event-stream body, each with the offset just past the blank line that ends it; `nil`
    /// when the body does not end with a complete event, or has none.
    package static func events(in body: Data) -> [(event: HTTPStubEvent, end: Int)]? {
        var bytes = body[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        var events: [(event: HTTPStubEvent, end: Int)] = []
        var current = Block()
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == 0x0A || byte == 0x0D else {
                index += 1
                continue
            }
            let line = String(decoding: bytes[lineStart..<index], as: UTF8.self)
            index += 1
            if byte == 0x0D, index < bytes.endIndex, bytes[index] == 0x0A { index += 1 }
            lineStart = index
            if !line.isEmpty {
                current.take(line)
            } else if !current.isEmpty {
                events.append((current.event, index - body.startIndex))
                current = Block()
            }
        }
        guard lineStart == bytes.endIndex, current.isEmpty, !events.isEmpty else { return nil }
        return events
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int((duration.seconds * 1000).rounded())
    }

    /// The fields of an event being read.
    private struct Block {
        var data: [String] = []
        var comments: [String] = []
        var type: String?
        var id: String?
        var retry: Int?
        var isEmpty: Bool { data.isEmpty && comments.isEmpty && type == nil && id == nil && retry == nil }

        var event: HTTPStubEvent {
            HTTPStubEvent(
                data: data.isEmpty ? nil : data.joined(separator: "\n"), event: type, id: id, retry: retry,
                comment: comments.isEmpty ? nil : comments.joined(separator: "\n"))
        }

        mutating func take(_ line: String) {
            let field: Substring
            var value: Substring
            if let colon = line.firstIndex(of: ":") {
                field = line[..<colon]
                value = line[line.index(after: colon)...]
                if value.hasPrefix(" ") { value = value.dropFirst() }
            } else {
                field = Substring(line)
                value = ""
            }
            switch field {
            case "": comments.append(String(value))
            case "data": data.append(String(value))
            case "event": type = String(value)
            case "id" where !value.contains("\0"): id = String(value)
            case "retry" where !value.isEmpty && value.allSatisfy({ $0.isASCII && $0.isNumber }):
                retry = Int(value)
            default: break  // a field clients ignore
            }
        }
    }
}
