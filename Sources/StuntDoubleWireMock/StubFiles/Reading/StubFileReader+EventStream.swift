import Foundation
import StuntDouble

/// A response's `serverSentEvents`: StuntDouble's own field (WireMock has none), beside WireMock's.
///
/// ```json
/// "response": {
///   "status": 200,
///   "serverSentEvents": {
///     "events": [
///       { "jsonData": { "delta": "Hel" }, "delayMilliseconds": 50 },
///       { "data": "[DONE]", "event": "end", "id": "2", "delayMilliseconds": 50 }
///     ],
///     "times": 1,
///     "end": "close"
///   }
/// }
/// ```
extension StubFileReader {
    static let eventStreamKeys = ["events", "times", "end"]
    static let eventKeys = ["data", "jsonData", "event", "id", "retry", "comment", "delayMilliseconds"]

    /// Reads `serverSentEvents`, reporting each wrong part at its place; with templating, each event's `data`,
    /// `jsonData`, `event` and `id` are templates.
    /// - Returns: The templates of the events that have any.
    mutating func readEventStream(_ node: JSONNode, field: String, templated: Bool, into response: inout ResponseSpec)
        -> [ResponseSpec.EventTemplates]
    {
        guard let members = object(node, field) else { return [] }
        let fields = checkKeys(members, field: field, known: Self.eventStreamKeys, unsupported: [:])
        guard let eventsNode = fields["events"], let items = eventsNode.items, !items.isEmpty else {
            error(
                fields["events"] ?? node, Self.join(field, "events"),
                "expected an array of events, such as [{\"data\": \"hello\", \"delayMilliseconds\": 100}]")
            return []
        }
        var stream = HTTPStubEventStream([])
        var templates: [ResponseSpec.EventTemplates] = []
        for (index, item) in items.enumerated() {
            let path = "\(Self.join(field, "events"))[\(index)]"
            guard let eventMembers = object(item, path) else { continue }
            let values = checkKeys(eventMembers, field: path, known: Self.eventKeys, unsupported: [:])
            var event = HTTPStubEvent()
            var eventTemplates = ResponseSpec.EventTemplates(index: index)
            if let data = values["data"], values["jsonData"] != nil {
                warning(data, Self.join(path, "data"), "ignored: jsonData is given too, and wins; remove one")
            }
            if let json = values["jsonData"], !Self.isNull(json) {
                // As a jsonBody is sent: compact, on one line (JSON's own line breaks are escaped).
                event.data = json.compactText
                if templated, let text = event.data, text.contains("{{") {
                    eventTemplates.data = compile(text, in: json, field: Self.join(path, "jsonData"))
                }
            } else if let data = values["data"] {
                event.data = strictString(data, Self.join(path, "data"), "data (JSON goes in jsonData)")
                if templated, let text = event.data, text.contains("{{") {
                    eventTemplates.data = compile(text, in: data, field: Self.join(path, "data"))
                }
            }
            if let type = values["event"] {
                event.event = strictString(type, Self.join(path, "event"), "event")
                if templated, let text = event.event, text.contains("{{") {
                    eventTemplates.event = compile(text, in: type, field: Self.join(path, "event"))
                }
            }
            if let id = values["id"] {
                event.id = string(id, Self.join(path, "id"))
                if templated, let text = event.id, text.contains("{{") {
                    eventTemplates.id = compile(text, in: id, field: Self.join(path, "id"))
                }
            }
            if let retry = values["retry"] {
                event.retry = integer(retry, Self.join(path, "retry"))
            }
            if let comment = values["comment"] {
                event.comment = strictString(comment, Self.join(path, "comment"), "comment")
            }
            if let delay = values["delayMilliseconds"] {
                event.delay = milliseconds(delay, Self.join(path, "delayMilliseconds")) ?? 0
            }
            if let problem = event.problem("this event") {
                error(item, path, problem)
            }
            if eventTemplates.isTemplated { templates.append(eventTemplates) }
            stream.events.append(event)
        }
        if let times = fields["times"] {
            let path = Self.join(field, "times")
            if case .string("forever") = times.kind {
                stream.repetition = .forever
            } else if let count = integer(times, path) {
                stream.repetition = .times(count)
            }
        }
        if let end = fields["end"] {
            switch end.kind {
            case .string("close"): stream.end = .close
            case .string("open"): stream.end = .stayOpen
            default:
                error(
                    end, Self.join(field, "end"),
                    "expected \"close\" (the response ends after the last event) or \"open\" (it stays open until "
                        + "the client leaves)")
            }
        }
        if stream.events.allSatisfy({ $0.problem("") == nil }), let problem = stream.problem() {
            error(node, field, problem)
        }
        response.eventStream = stream
        return templates
    }
}

extension ResponseSpec {
    /// The templates of one event of a templated `serverSentEvents`.
    struct EventTemplates: Sendable {
        /// The event's place in the stream.
        let index: Int
        var data: ResponseTemplate?
        var event: ResponseTemplate?
        var id: ResponseTemplate?

        var isTemplated: Bool { data != nil || event != nil || id != nil }
    }
}
