import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP Archive files (HAR 1.2, what browsers' developer tools, proxies and mitmproxy save): read as
/// exchanges to stub or write as stub files, and written from a journal or a recording.
///
/// ```swift
/// let stubber = HTTPStubber()
/// try stubber.load(harAt: Bundle.module.url(forResource: "checkout", withExtension: "har")!)
/// // every request of the archive answers as it did when the archive was saved
/// try stubber.harDocument().write(to: URL(fileURLWithPath: "journal.har"))   // what this stubber answered
/// ```
public enum HAR {
    /// What a HAR file holds.
    public struct Archive: Sendable {
        /// Each entry with a response, in the file's order.
        public let exchanges: [HTTPRecordedExchange]
        /// The entries left out, and why (a request that got no response, status 0).
        public let skipped: [String]
    }

    /// Reads a HAR file.
    /// - Parameters:
    ///   - data: The file's contents.
    ///   - name: The file's name, for errors.
    /// - Returns: Its exchanges.
    /// - Throws: ``HTTPStubberError/Code/invalidJSON`` when it is not JSON, ``HTTPStubberError/Code/invalidStubFile``
    ///   naming the entry and field when it is not a HAR file.
    public static func read(_ data: Data, name: String = "the HAR file") throws(HTTPStubberError) -> Archive {
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw HTTPStubberError(
                code: .invalidJSON, message: "\(name) is not JSON (\(error.localizedDescription)); a HAR file is JSON.")
        }
        func problem(_ text: String) -> HTTPStubberError {
            HTTPStubberError(code: .invalidStubFile, message: "\(name) is not a HAR file: \(text).")
        }
        guard let log = (json as? [String: Any])?["log"] as? [String: Any] else {
            throw problem("it has no \"log\" object")
        }
        guard let entries = log["entries"] as? [[String: Any]] else {
            throw problem("log.entries is missing or not an array of objects")
        }
        var exchanges: [HTTPRecordedExchange] = []
        var skipped: [String] = []
        let formatter = dateFormatter()
        let wholeSeconds = ISO8601DateFormatter()
        for (index, entry) in entries.enumerated() {
            let place = "log.entries[\(index)]"
            guard let request = entry["request"] as? [String: Any], let response = entry["response"] as? [String: Any]
            else { throw problem("\(place) has no request or no response object") }
            guard let method = request["method"] as? String, !method.isEmpty else {
                throw problem("\(place).request.method is missing")
            }
            guard let urlText = request["url"] as? String, let url = URL(string: urlText), url.host != nil else {
                throw problem("\(place).request.url is missing or not an absolute URL")
            }
            guard let status = (response["status"] as? NSNumber)?.intValue else {
                throw problem("\(place).response.status is missing or not a number")
            }
            guard status >= 100, status <= 599 else {
                skipped.append("\(method) \(urlText): no response (status \(status))")
                continue
            }
            var requestHeaders = HTTPHeaders()
            for (name, value) in Self.headers(request["headers"]) where !name.hasPrefix(":") {
                requestHeaders.add(name: .init(rawValue: name), value: value)
            }
            var body: Data?
            if let postData = request["postData"] as? [String: Any], let text = postData["text"] as? String {
                body =
                    (postData["encoding"] as? String) == "base64"
                    ? Data(base64Encoded: text) ?? Data() : Data(text.utf8)
            }
            let incoming: HTTPIncomingRequest
            do {
                incoming = try HTTPIncomingRequest(
                    method: HTTPMethod(rawValue: method.uppercased()), url: url, headers: requestHeaders, body: body)
            } catch {
                throw problem("\(place).request cannot be read: \(error.message)")
            }
            let content = response["content"] as? [String: Any] ?? [:]
            let text = content["text"] as? String ?? ""
            let responseBody: Data
            if (content["encoding"] as? String) == "base64" {
                guard let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                    throw problem("\(place).response.content.text is not valid base64")
                }
                responseBody = decoded
            } else {
                responseBody = Data(text.utf8)
            }
            // HAR keeps the body decoded: its Content-Encoding no longer applies, and HTTP/2 pseudo-headers are no
            // headers at all.
            let headers = Self.headers(response["headers"]).filter {
                !$0.name.hasPrefix(":") && $0.name.lowercased() != "content-encoding"
            }
            exchanges.append(
                HTTPRecordedExchange(
                    request: incoming, response: HTTPRecordedResponse(statusCode: status, headers: headers),
                    body: responseBody,
                    date: (entry["startedDateTime"] as? String).flatMap {
                        formatter.date(from: $0) ?? wholeSeconds.date(from: $0)
                    }
                        ?? Date(timeIntervalSince1970: 0),
                    arrivals: Self.arrivals(of: response["_serverSentEvents"], body: responseBody)))
        }
        return Archive(exchanges: exchanges, skipped: skipped)
    }

    /// When an event stream's events came, from StuntDouble's `_serverSentEvents` (each event's
    /// `timeMilliseconds` after the request), matched with the events of the body; none when they do not match.
    private static func arrivals(of value: Any?, body: Data) -> [HTTPRecordedExchange.Arrival] {
        guard let timed = value as? [[String: Any]], let events = HTTPStubEventStream.events(in: body),
            timed.count == events.count
        else { return [] }
        var arrivals = [HTTPRecordedExchange.Arrival(byteCount: 0, time: .zero)]
        for (event, entry) in zip(events, timed) {
            guard let milliseconds = (entry["timeMilliseconds"] as? NSNumber)?.doubleValue, milliseconds.isFinite,
                milliseconds >= 0, milliseconds <= HTTPResponsePlan.maximumSeconds * 1000
            else { return [] }
            arrivals.append(.init(byteCount: event.end, time: .milliseconds(milliseconds)))
        }
        return arrivals
    }

    /// An event stream's events as `_serverSentEvents`: each one's fields and its time after the request.
    private static func eventsNode(_ stream: HTTPStubEventStream) -> JSONNode {
        var time = 0
        return .array(
            stream.events.map { event in
                time += Int((event.delay * 1000).rounded())
                var members: [(String, JSONNode)] = [("timeMilliseconds", .number(time))]
                if let type = event.event { members.append(("event", .string(type))) }
                if let id = event.id { members.append(("id", .string(id))) }
                if let data = event.data { members.append(("data", .string(data))) }
                return .object(members)
            })
    }

    private static func headers(_ value: Any?) -> [(name: String, value: String)] {
        (value as? [[String: Any]] ?? []).compactMap { header in
            guard let name = header["name"] as? String, let value = header["value"] as? String else { return nil }
            return (name, value)
        }
    }

    /// A formatter for HAR's dates: ISO 8601 with fractions of a second (one per document read or written).
    private static func dateFormatter() -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }

    // MARK: - Writing

    /// A HAR 1.2 document of exchanges.
    /// - Parameter exchanges: The exchanges, in order.
    /// - Returns: The document, pretty-printed JSON.
    public static func document(of exchanges: [HTTPRecordedExchange]) -> Data {
        let formatter = dateFormatter()
        return document(
            entries: exchanges.map { exchange in
                entry(
                    formatter: formatter, request: exchange.request, date: exchange.date, time: 0,
                    status: exchange.response.statusCode,
                    headers: exchange.response.headers, body: exchange.body, error: nil,
                    events: exchange.arrivals.isEmpty ? nil : exchange.eventStream)
            })
    }

    /// A HAR 1.2 document of a journal: each request and what it received (a stub's response with its body; for
    /// a request that went to the network or failed, its status or the error, in `_error`).
    /// - Parameter journal: Journal entries, in order.
    /// - Returns: The document, pretty-printed JSON.
    public static func document(ofJournal journal: [HTTPJournalEntry]) -> Data {
        let formatter = dateFormatter()
        return document(
            entries: journal.map { entry in
                let milliseconds =
                    entry.completion.map {
                        Double($0.duration.components.seconds) * 1000 + Double($0.duration.components.attoseconds)
                            / 1e15
                    } ?? 0
                if let plan = entry.decision.plan, let response = plan.response, entry.completion?.error == nil {
                    // An event stream played once keeps when each event was due.
                    let events =
                        plan.isEventStream && plan.continuation == nil
                        ? HTTPStubEventStream(
                            recorded: response.body,
                            arrivals: [.init(byteCount: 0, time: plan.responseDeadline)]
                                + plan.chunks.map { .init(byteCount: $0.range.upperBound, time: $0.deadline) })
                        : nil
                    return Self.entry(
                        formatter: formatter, request: entry.request, date: entry.receivedAt, time: milliseconds,
                        status: response.statusCode.rawValue,
                        headers: response.headers.map { (name: $0.name.rawValue, value: $0.value) },
                        body: response.body,
                        error: nil, events: events)
                }
                let error =
                    entry.completion?.error.map { "\($0.localizedDescription)" }
                    ?? (entry.isUnmatched ? "no stub matched" : nil)
                return Self.entry(
                    formatter: formatter, request: entry.request, date: entry.receivedAt, time: milliseconds,
                    status: entry.completion?.statusCode?.rawValue ?? 0, headers: [], body: Data(), error: error)
            })
    }

    private static func document(entries: [JSONNode]) -> Data {
        let log = JSONNode.object([
            ("version", .string("1.2")),
            ("creator", .object([("name", .string("StuntDouble")), ("version", .string("0.1.0"))])),
            ("pages", .array([])),
            ("entries", .array(entries)),
        ])
        return Data((JSONNode.object([("log", log)]).rendered(pretty: true) + "\n").utf8)
    }

    private static func entry(
        formatter: ISO8601DateFormatter, request: HTTPIncomingRequest, date: Date, time: Double, status: Int,
        headers: [(name: String, value: String)],
        body: Data, error: String?, events: HTTPStubEventStream? = nil
    ) -> JSONNode {
        let requestHeaders = request.headers.map { (name: $0.name.rawValue, value: $0.value) }
        var requestMembers: [(String, JSONNode)] = [
            ("method", .string(request.method.rawValue)), ("url", .string(request.url.absoluteString)),
            ("httpVersion", .string("HTTP/1.1")), ("cookies", .array([])),
            ("headers", Self.headerArray(requestHeaders)),
            (
                "queryString",
                .array(
                    PercentEncoding.queryPairs(request.route.query).map { pair in
                        .object([("name", .string(pair.name)), ("value", .string(pair.value))])
                    })
            ),
            ("headersSize", .number(-1)), ("bodySize", .number(request.body?.count ?? 0)),
        ]
        if let body = request.body, !body.isEmpty {
            let mimeType = request.headers[.contentType] ?? "application/octet-stream"
            var postData: [(String, JSONNode)] = [("mimeType", .string(mimeType))]
            if let text = String(data: body, encoding: .utf8) {
                postData.append(("text", .string(text)))
            } else {
                postData.append(("text", .string(body.base64EncodedString())))
                postData.append(("encoding", .string("base64")))
            }
            requestMembers.append(("postData", .object(postData)))
        }
        let mimeType = headers.first { $0.name.lowercased() == "content-type" }?.value ?? ""
        var content: [(String, JSONNode)] = [("size", .number(body.count)), ("mimeType", .string(mimeType))]
        if !body.isEmpty {
            if let text = String(data: body, encoding: .utf8) {
                content.append(("text", .string(text)))
            } else {
                content.append(("text", .string(body.base64EncodedString())))
                content.append(("encoding", .string("base64")))
            }
        }
        var responseMembers: [(String, JSONNode)] = [
            ("status", .number(status)),
            ("statusText", .string(status == 0 ? "" : HTTPURLResponse.localizedString(forStatusCode: status))),
            ("httpVersion", .string("HTTP/1.1")), ("cookies", .array([])), ("headers", Self.headerArray(headers)),
            ("content", .object(content)),
            ("redirectURL", .string(headers.first { $0.name.lowercased() == "location" }?.value ?? "")),
            ("headersSize", .number(-1)), ("bodySize", .number(body.count)),
        ]
        if let error { responseMembers.append(("_error", .string(error))) }
        // HAR has no place for when each part of a body came: an event stream's events keep theirs here.
        if let events { responseMembers.append(("_serverSentEvents", eventsNode(events))) }
        let wait = JSONNode.number(text: String(format: "%.3f", time))
        return .object([
            ("startedDateTime", .string(formatter.string(from: date))), ("time", wait),
            ("request", .object(requestMembers)), ("response", .object(responseMembers)), ("cache", .object([])),
            ("timings", .object([("send", .number(0)), ("wait", wait), ("receive", .number(0))])),
        ])
    }

    private static func headerArray(_ headers: [(name: String, value: String)]) -> JSONNode {
        .array(headers.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })
    }
}

extension HTTPStubber {
    /// Stubs every exchange of a HAR file: a stub per distinct request (method and full URL), answering with the
    /// recorded status, headers and body; a request the file holds several times answers in the file's order,
    /// then with its last answer.
    /// - Parameter url: The HAR file.
    /// - Returns: The archive read (its exchanges, and the entries left out).
    /// - Throws: ``HTTPStubberError`` when the file cannot be read or is not a HAR file.
    @discardableResult
    public func load(harAt url: URL) throws(HTTPStubberError) -> HAR.Archive {
        let data = try HTTPStubberError.readFile(at: url, as: "The HAR file")
        let archive = try HAR.read(data, name: url.path)
        var order: [String] = []
        var groups: [String: [HTTPRecordedExchange]] = [:]
        for exchange in archive.exchanges {
            let key = "\(exchange.request.method.rawValue) \(exchange.request.url.absoluteString)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(exchange)
        }
        for key in order {
            guard let exchanges = groups[key], let first = exchanges.first else { continue }
            let responses = exchanges.map { exchange in
                let response = HTTPStubResponse()
                response.statusCode = HTTPStatusCode(rawValue: exchange.response.statusCode)
                var headers = HTTPHeaders()
                for header in exchange.response.headers
                where !["content-length", "transfer-encoding"].contains(header.name.lowercased()) {
                    headers.add(name: .init(rawValue: header.name), value: header.value)
                }
                response.headers = headers
                if let stream = exchange.eventStream {
                    // Its events, at the pace `_serverSentEvents` kept (or at once, from a HAR without it).
                    response.eventStream = stream
                } else {
                    response.body = exchange.body
                }
                return response
            }
            let stub = HTTPStubRequest(name: "HAR \(key)").match(URL: first.request.url.absoluteString)
            if responses.count == 1 {
                stub.stub(for: first.request.method, response: responses[0])
            } else {
                stub.stub(for: first.request.method, sequence: responses)
            }
            add(stub: stub)
        }
        return archive
    }

    /// The journal as a HAR 1.2 document: each request this stubber received and what it answered.
    /// - Returns: The document.
    public func harDocument() -> Data {
        HAR.document(ofJournal: journal)
    }
}
