import Foundation

/// An event stream parser written from the WHATWG HTML standard's "interpreting an event stream" (not from
/// StuntDouble's writer): what a browser's `EventSource` dispatches from the bytes a stub sends, fed in any
/// pieces.
public struct ServerSentEventParser: Sendable {
    /// A dispatched event.
    public struct Event: Hashable, Sendable, CustomStringConvertible {
        /// The event's type (`message` unless the stream named one).
        public let type: String
        /// The event's data, its lines joined with `\n`.
        public let data: String
        /// The last event id when it was dispatched.
        public let lastEventID: String

        /// An event as a client would dispatch it.
        /// - Parameters:
        ///   - type: The type.
        ///   - data: The data.
        ///   - lastEventID: The last event id when it was dispatched.
        public init(type: String = "message", data: String, lastEventID: String = "") {
            self.type = type
            self.data = data
            self.lastEventID = lastEventID
        }

        /// `type("data", id: "7")`.
        public var description: String { "\(type)(\(data.debugDescription), id: \(lastEventID.debugDescription))" }
    }

    private var pending: [UInt8] = []
    private var sawBOMCheck = false
    /// The last byte was a CR: an LF right after it belongs to the same line end.
    private var afterCR = false
    private var data = ""
    private var hasData = false
    private var eventType = ""
    /// The last event id (kept across events, as `EventSource` keeps it).
    public private(set) var lastEventID = ""
    /// The reconnection time the stream set, in milliseconds.
    public private(set) var reconnectionTime: Int?
    /// The comments seen, in order.
    public private(set) var comments: [String] = []

    /// A parser at the start of a stream.
    public init() {}

    /// Feeds bytes; returns the events they complete.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if !sawBOMCheck {
                pending.append(byte)
                if pending.count < 3, pending == Array([0xEF, 0xBB, 0xBF].prefix(pending.count)) { continue }
                sawBOMCheck = true
                let first = pending
                pending = []
                if first == [0xEF, 0xBB, 0xBF] { continue }
                for early in first { take(early, into: &events) }
                continue
            }
            take(byte, into: &events)
        }
        return events
    }

    private mutating func take(_ byte: UInt8, into events: inout [Event]) {
        if afterCR, byte == 0x0A {
            afterCR = false
            return
        }
        afterCR = byte == 0x0D
        if byte == 0x0D || byte == 0x0A {
            let line = String(decoding: pending, as: UTF8.self)
            pending = []
            if let event = process(line) { events.append(event) }
        } else {
            pending.append(byte)
        }
    }

    private mutating func process(_ line: String) -> Event? {
        if line.isEmpty {
            defer {
                data = ""
                hasData = false
                eventType = ""
            }
            guard hasData else { return nil }
            var text = data
            if text.hasSuffix("\n") { text.removeLast() }
            return Event(type: eventType.isEmpty ? "message" : eventType, data: text, lastEventID: lastEventID)
        }
        if line.hasPrefix(":") {
            var comment = String(line.dropFirst())
            if comment.hasPrefix(" ") { comment.removeFirst() }
            comments.append(comment)
            return nil
        }
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
        case "event":
            eventType = String(value)
        case "data":
            data += value + "\n"
            hasData = true
        case "id":
            if !value.contains("\0") { lastEventID = String(value) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) { reconnectionTime = Int(value) }
        default:
            break
        }
        return nil
    }
}
