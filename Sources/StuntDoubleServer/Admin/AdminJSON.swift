import Foundation
import StuntDouble

/// What the admin API writes, in WireMock's JSON shapes: logged requests, serve events, near misses, errors.
enum AdminJSON {
    /// The id of a journal entry: its number, in a UUID's clothes (WireMock's request ids are UUIDs).
    static func id(ofEntry number: Int) -> UUID {
        let hex = String(number, radix: 16)
        let text = "5d0b1e00-0000-8000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
        return UUID(uuidString: text) ?? UUID()
    }

    /// The journal number behind an id made by ``id(ofEntry:)``.
    static func entryNumber(of id: String) -> Int? {
        let lowered = id.lowercased()
        guard lowered.hasPrefix("5d0b1e00-0000-8000-8000-") else { return nil }
        return Int(lowered.dropFirst(24), radix: 16)
    }

    /// A date as WireMock writes `loggedDateString`: ISO 8601 in UTC, with milliseconds.
    static func isoDate(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// Header fields as WireMock lists them: a name with one value gets a string, with several an array.
    static func headers(_ headers: HTTPHeaders) -> JSONNode {
        var order: [String] = []
        var values: [String: [String]] = [:]
        for field in headers {
            let name = field.name.rawValue
            if values[name] == nil { order.append(name) }
            values[name, default: []].append(field.value)
        }
        return .object(
            order.map { name in
                let list = values[name] ?? []
                return (name, list.count == 1 ? .string(list[0]) : .array(list.map(JSONNode.string)))
            })
    }

    /// A body as WireMock logs it: as text when it is UTF-8, and always in base64.
    static func body(_ data: Data?, into members: inout [(String, JSONNode)]) {
        let data = data ?? Data()
        if let text = String(data: data, encoding: .utf8) {
            members.append(("body", .string(text)))
        }
        members.append(("bodyAsBase64", .string(data.base64EncodedString())))
    }

    /// A request as WireMock's `LoggedRequest`.
    static func loggedRequest(_ request: HTTPIncomingRequest, at date: Date, clientIP: String) -> JSONNode {
        let url = request.url
        let path = url.path(percentEncoded: true).isEmpty ? "/" : url.path(percentEncoded: true)
        let target = url.query(percentEncoded: true).map { path + "?" + $0 } ?? path
        var queryOrder: [String] = []
        var query: [String: [String]] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            if query[item.name] == nil { queryOrder.append(item.name) }
            query[item.name, default: []].append(item.value ?? "")
        }
        let cookies = request.headers.cookies.map { ($0.name, JSONNode.string($0.value)) }
        var members: [(String, JSONNode)] = [
            ("url", .string(target)),
            ("absoluteUrl", .string(url.absoluteString)),
            ("method", .string(request.method.rawValue)),
            ("clientIp", .string(clientIP)),
            ("headers", headers(request.headers)),
            ("cookies", .object(cookies)),
            (
                "queryParams",
                .object(
                    queryOrder.map {
                        (
                            $0,
                            .object([("key", .string($0)), ("values", .array((query[$0] ?? []).map(JSONNode.string)))])
                        )
                    })
            ),
            ("browserProxyRequest", .bool(false)),
            ("loggedDate", .number(Int((date.timeIntervalSince1970 * 1000).rounded()))),
            ("loggedDateString", .string(isoDate(date))),
            ("protocol", .string("HTTP/1.1")),
        ]
        body(request.body, into: &members)
        return .object(members)
    }

    /// A journal entry as WireMock's serve event (`GET /__admin/requests`).
    /// A journal entry as WireMock's serve event. The planned response's body is listed up to `bodyLimit` bytes
    /// (the journal's body limit): beyond it, its first bytes with `bodyLength` and `bodyTruncated`, so that a
    /// journal of 10,000 answers from a 64 MiB stub lists in megabytes, not terabytes.
    static func serveEvent(_ entry: HTTPJournalEntry, store: MappingStore, clientIP: String, bodyLimit: Int?)
        -> JSONNode
    {
        var definition: [(String, JSONNode)] = []
        var response: [(String, JSONNode)] = []
        var mapping: JSONNode?
        switch entry.decision {
        case .stub(let plan):
            mapping = listedMapping(store.entry(for: plan.stub)?.json ?? codeStubJSON(plan.stub), bodyLimit: bodyLimit)
            if let fault = plan.fault {
                definition.append(("fault", .string(fault.rawValue)))
            } else if let planned = plan.response {
                definition.append(("status", .number(planned.statusCode.rawValue)))
                definition.append(("headers", headers(planned.headers)))
                let length = entry.plannedBodyLength ?? planned.body.count
                if let bodyLimit, planned.body.count > bodyLimit {
                    body(planned.body.prefix(bodyLimit), into: &definition)
                } else {
                    body(planned.body, into: &definition)
                }
                if let bodyLimit, length > bodyLimit {
                    definition.append(("bodyLength", .number(length)))
                    definition.append(("bodyTruncated", .bool(true)))
                }
            }
        case .unmatched:
            definition = [("status", .number(404)), ("fromConfiguredStub", .bool(false))]
        case .passThrough:
            definition = [("status", .number(502)), ("fromConfiguredStub", .bool(false))]
        }
        if let completion = entry.completion {
            if let status = completion.statusCode {
                response.append(("status", .number(status.rawValue)))
            }
            if let error = completion.error {
                response.append(("fault", .string("\(error)")))
            }
            if let bytes = completion.bodyByteCount {
                response.append(("bodyByteCount", .number(bytes)))
            }
        }
        let milliseconds = entry.completion.map { Int(($0.duration.secondsValue * 1000).rounded()) } ?? 0
        var members: [(String, JSONNode)] = [
            ("id", .string(id(ofEntry: entry.number).uuidString.lowercased())),
            ("request", loggedRequest(entry.request, at: entry.receivedAt, clientIP: clientIP)),
            ("responseDefinition", .object(definition)),
            ("response", .object(response)),
            ("wasMatched", .bool(entry.decision.plan != nil)),
            (
                "timing",
                .object([
                    (
                        "addedDelay",
                        .number(Int(((entry.decision.plan?.responseDeadline.secondsValue ?? 0) * 1000).rounded()))
                    ),
                    ("processTime", .number(0)), ("responseSendTime", .number(0)), ("serveTime", .number(milliseconds)),
                    ("totalTime", .number(milliseconds)),
                ])
            ),
        ]
        if let mapping { members.append(("stubMapping", mapping)) }
        if let plan = entry.decision.plan, let events = plan.events {
            members.append(("serverSentEvents", eventStream(events, of: plan)))
        }
        // StuntDouble's own: the journal number, and for an unmatched request the report of what differed.
        members.append(("number", .number(entry.number)))
        if let report = entry.decision.report {
            members.append(("nearMissReport", .string(report.description)))
        }
        // Each kind of annotation under its name (`contractViolations`), the lines of annotations of one name
        // together.
        var names: [String] = []
        var lines: [String: [JSONNode]] = [:]
        for annotation in entry.annotations {
            if lines[annotation.name] == nil { names.append(annotation.name) }
            lines[annotation.name, default: []] += annotation.lines.map { .string($0) }
        }
        for name in names {
            members.append((name, .array(lines[name] ?? [])))
        }
        return .object(members)
    }

    /// StuntDouble's own view of an event stream a request was answered with: its events (the first 100), each
    /// with the time after the request it was due, how many times they play, and how the stream ends.
    static func eventStream(_ events: [HTTPStubEvent], of plan: HTTPResponsePlan) -> JSONNode {
        var due = 0.0
        let listed = events.prefix(100).map { event -> JSONNode in
            due += event.delay
            var members: [(String, JSONNode)] = [("dueMilliseconds", .number(Int((due * 1000).rounded())))]
            if let type = event.event { members.append(("event", .string(type))) }
            if let id = event.id { members.append(("id", .string(id))) }
            if let data = event.data { members.append(("data", .string(String(data.prefix(1000))))) }
            if let comment = event.comment { members.append(("comment", .string(comment))) }
            return .object(members)
        }
        var members: [(String, JSONNode)] = [("events", .array(listed)), ("eventCount", .number(events.count))]
        let plays = plan.continuation.map { $0.plays.map { JSONNode.number($0) } ?? .string("forever") } ?? .number(1)
        members.append(("plays", plays))
        members.append(("end", .string(plan.continuation?.staysOpen == true ? "open" : "close")))
        return .object(members)
    }

    /// A mapping as a serve event lists it: a `body` or `base64Body` longer than `bodyLimit` bytes cut to its
    /// beginning, with `bodyLength` and `bodyTruncated` (each serve event lists its mapping: a journal of 10,000
    /// answers from a mapping with a 64 MiB body would list 640 GB).
    static func listedMapping(_ mapping: JSONNode, bodyLimit: Int?) -> JSONNode {
        guard let bodyLimit, let members = mapping.members, let response = mapping["response"]?.members,
            response.contains(where: {
                ($0.key == "body" || $0.key == "base64Body") && ($0.value.string?.utf8.count ?? 0) > bodyLimit
            })
        else { return mapping }
        var listed: [JSONNode.Member] = []
        for member in response {
            guard member.key == "body" || member.key == "base64Body", let text = member.value.string,
                text.utf8.count > bodyLimit
            else {
                listed.append(member)
                continue
            }
            listed.append(
                JSONNode.Member(
                    key: member.key, value: .string(String(decoding: text.utf8.prefix(bodyLimit), as: UTF8.self))))
            listed.append(JSONNode.Member(key: "bodyLength", value: .number(text.utf8.count)))
            listed.append(JSONNode.Member(key: "bodyTruncated", value: .bool(true)))
        }
        return JSONNode(
            kind: .object(
                members.map {
                    $0.key == "response" ? JSONNode.Member(key: "response", value: JSONNode(kind: .object(listed))) : $0
                }))
    }

    /// A stub made in Swift, listed as far as JSON can say: its name and where it was made.
    static func codeStubJSON(_ stub: HTTPStubRequest) -> JSONNode {
        .object([
            ("name", .string(stub.description)),
            ("request", .object([])),
            ("response", .object([])),
            (
                "metadata",
                .object([
                    (
                        "stuntdouble",
                        .object([("madeIn", .string("Swift")), ("description", .string(stub.description))])
                    )
                ])
            ),
        ])
    }

    /// WireMock's validation error body: one error per diagnostic, with a JSON pointer to the field.
    static func errors(_ diagnostics: [StubFileDiagnostic]) -> JSONNode {
        let errors = diagnostics.filter { $0.severity == .error }
        return .object([
            (
                "errors",
                .array(
                    errors.map { diagnostic in
                        let pointer = "/" + (diagnostic.field ?? "").replacingOccurrences(of: ".", with: "/")
                        return .object([
                            ("code", .number(10)),
                            ("source", .object([("pointer", .string(pointer))])),
                            ("title", .string("Invalid stub mapping")),
                            ("detail", .string("\(diagnostic.line):\(diagnostic.column): \(diagnostic.message)")),
                        ])
                    })
            )
        ])
    }

    /// A plain error body: `{"errors": [{"title": ...}]}`.
    static func error(_ title: String) -> JSONNode {
        .object([("errors", .array([.object([("code", .number(10)), ("title", .string(title))])]))])
    }
}

extension Duration {
    /// The duration in seconds.
    var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
