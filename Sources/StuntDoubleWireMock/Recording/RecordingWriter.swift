import Foundation
import StuntDouble

/// Turns recorded exchanges into stub files: one mapping per exchange, keys sorted, bodies where a reviewer
/// reads them best, secrets redacted, names and ids that depend only on the exchanges.
struct RecordingWriter {
    let options: HTTPRecording.Options

    /// The files for `exchanges`, by path relative to the recording's root, with `existing` files kept.
    func files(for exchanges: [HTTPRecordedExchange], keeping existing: [String: Data]) -> [String: Data] {
        var files = existing
        var names = Set(
            existing.keys.compactMap { path -> String? in
                guard path.hasPrefix("mappings/"), path.hasSuffix(".json") else { return nil }
                return String(path.dropFirst("mappings/".count).dropLast(".json".count))
            })
        let origins = Set(exchanges.map { Self.origin(of: $0.request.url) })
        let recognized = exchanges.map { exchange in
            options.extensions.lazy.compactMap { found in
                found.recordRequest?(exchange.request).map { (found.name, $0) }
            }.first
        }
        let requests = exchanges.indices.map { index in
            requestNode(for: exchanges[index].request, withHost: origins.count > 1, recognized: recognized[index])
        }
        func summary(_ index: Int) -> String {
            Self.summary(of: exchanges[index].request) + (recognized[index].map { " " + $0.1.label } ?? "")
        }
        // Identical requests answer in the order recorded: a scenario whose state moves on at each answer.
        var scenarioOf: [Int: (name: String, position: Int, count: Int)] = [:]
        for indices in RecordedBody.repeats(of: requests.map { $0.rendered(sortedKeys: true) }) {
            let name = "recorded " + summary(indices[0])
            for (position, index) in indices.enumerated() {
                scenarioOf[index] = (name, position, indices.count)
            }
        }
        for (index, exchange) in exchanges.enumerated() {
            let slug = Self.slug(for: exchange.request) + (recognized[index].map { "-" + Self.slug($0.1.label) } ?? "")
            let name = Self.unique(String(slug.prefix(120)), in: &names)
            var members: [(String, JSONNode)] = [
                ("id", .string(Self.stableID(for: name))),
                ("name", .string(summary(index))),
                ("request", requests[index]),
            ]
            let (response, bodyFile) = responseNode(for: exchange, fileName: name)
            members.append(("response", response))
            if !exchange.contractNotes.isEmpty {
                // Recorded through a validating proxy: what the exchange breaks, for whoever reads or serves it.
                members.append(
                    (
                        "metadata",
                        .object([
                            (
                                "stuntdouble",
                                .object([("contractViolations", .array(exchange.contractNotes.map(JSONNode.string)))])
                            )
                        ])
                    ))
            }
            if let bodyFile {
                files["__files/\(bodyFile.name)"] = bodyFile.data
            }
            if let scenario = scenarioOf[index] {
                let state = { (position: Int) in position == 0 ? "Started" : "\(scenario.name) #\(position + 1)" }
                if scenario.position + 1 < scenario.count {
                    members.append(("newScenarioState", .string(state(scenario.position + 1))))
                }
                members.append(("requiredScenarioState", .string(state(scenario.position))))
                members.append(("scenarioName", .string(scenario.name)))
            }
            let mapping = JSONNode.object(members.sorted { $0.0 < $1.0 })
            files["mappings/\(name).json"] = Data((mapping.rendered(pretty: true) + "\n").utf8)
        }
        return files
    }

    // MARK: - The request

    private func requestNode(
        for request: HTTPIncomingRequest, withHost: Bool,
        recognized: (name: String, request: StubFileExtension.RecordedRequest)?
    ) -> JSONNode {
        var members: [(String, JSONNode)] = [("method", .string(request.method.rawValue))]
        let route = request.route
        let redactedQuery = PercentEncoding.queryPairs(route.query).contains {
            options.redactedQueryParameters.contains($0.name)
        }
        if redactedQuery {
            // The path, and each parameter by itself: a redacted one matches any value.
            members.append(("urlPath", .string(route.path)))
            var parameters: [(String, JSONNode)] = []
            for pair in PercentEncoding.queryPairs(route.query) where !parameters.contains(where: { $0.0 == pair.name })
            {
                let pattern: JSONNode =
                    options.redactedQueryParameters.contains(pair.name)
                    ? .object([("matches", .string(".*"))]) : .object([("equalTo", .string(pair.value))])
                parameters.append((pair.name, pattern))
            }
            members.append(("queryParameters", .object(parameters.sorted { $0.0 < $1.0 })))
        } else {
            members.append(("url", .string(StubFileURLMatcher.pathAndQuery(of: request))))
        }
        if withHost, let host = request.url.host {
            members.append(("host", .object([("equalTo", .string(host))])))
        }
        if !options.matchedHeaders.isEmpty {
            var headers: [(String, JSONNode)] = []
            for name in options.matchedHeaders {
                let values = request.headers.values(for: HTTPHeaders.Name(rawValue: name))
                let pattern: JSONNode =
                    if values.isEmpty {
                        .object([("absent", .bool(true))])
                    } else if isRedactedHeader(name) {
                        .object([("matches", .string(".*"))])
                    } else {
                        .object([("equalTo", .string(values.joined(separator: ", ")))])
                    }
                headers.append((name, pattern))
            }
            members.append(("headers", .object(headers.sorted { $0.0.lowercased() < $1.0.lowercased() })))
        }
        if let recognized {
            switch recognized.request.pattern {
            case .parameters(let parameters):
                members.append(
                    (
                        "customMatcher",
                        .object([
                            ("name", .string(recognized.name)),
                            ("parameters", redact(parameters, with: .string("${json-unit.ignore}"))),
                        ])
                    ))
            case .body(let pattern):
                members.append(("bodyPatterns", .array([redact(pattern, with: .string("${json-unit.ignore}"))])))
            }
        } else if options.matchesBody, let body = request.body, !body.isEmpty {
            let pattern: JSONNode
            let isForm = Self.isForm(request.headers[.contentType] ?? "")
            if let json = Self.strictJSON(body) {
                pattern = .object([
                    ("equalToJson", redact(json, with: .string("${json-unit.ignore}")))
                ])
            } else if isForm, let text = String(data: body, encoding: .utf8),
                let redacted = redactForm(text, asPattern: true)
            {
                // A redacted field of a form matches any value on replay, as a redacted JSON field does.
                pattern = .object([("matches", .string(redacted))])
            } else if let text = String(data: body, encoding: .utf8) {
                pattern = .object([("equalTo", .string(text))])
            } else {
                pattern = .object([("binaryEqualTo", .string(body.base64EncodedString()))])
            }
            members.append(("bodyPatterns", .array([pattern])))
        }
        return .object(members.sorted { $0.0 < $1.0 })
    }

    // MARK: - The response

    private func responseNode(for exchange: HTTPRecordedExchange, fileName: String) -> (
        JSONNode, (name: String, data: Data)?
    ) {
        var members: [(String, JSONNode)] = [("status", .number(exchange.response.statusCode))]
        let dropped = Set(options.droppedResponseHeaders.map { $0.lowercased() })
        var headers: [(String, [String])] = []
        var contentType = ""
        for (name, value) in exchange.response.headers where !dropped.contains(name.lowercased()) {
            let written = isRedactedHeader(name) ? options.redactionMarker : value
            if name.lowercased() == "content-type" { contentType = value.lowercased() }
            if let index = headers.firstIndex(where: { $0.0.lowercased() == name.lowercased() }) {
                headers[index].1.append(written)
            } else {
                headers.append((name, [written]))
            }
        }
        if !headers.isEmpty {
            members.append(
                (
                    "headers",
                    .object(
                        headers.sorted { $0.0.lowercased() < $1.0.lowercased() }.map { name, values in
                            (name, values.count == 1 ? .string(values[0]) : .array(values.map(JSONNode.string)))
                        })
                ))
        }
        var bodyFile: (name: String, data: Data)?
        let body = exchange.body
        if let stream = exchange.eventStream {
            // An event stream: its events, each with the delay at which it came, replayed at that pace.
            members.append(("serverSentEvents", eventsNode(stream)))
        } else if !body.isEmpty {
            if let json = Self.strictJSON(body) {
                let redacted = redact(json, with: .string(options.redactionMarker))
                let compact = redacted.rendered()
                if compact != json.rendered() || Data(compact.utf8) == body {
                    // Compact JSON (or JSON that had to change for redaction): as JSON in the mapping.
                    members.append(("jsonBody", redacted))
                } else {
                    // JSON laid out otherwise: the exact bytes, in a .json file a reviewer still reads as JSON.
                    bodyFile = ("\(fileName).json", body)
                }
            } else if let text = String(data: body, encoding: .utf8), Self.isText(contentType, text) {
                // Text: in the mapping, where a reviewer reads it.
                let redacted = Self.isForm(contentType) ? redactForm(text, asPattern: false) : nil
                members.append(("body", .string(redacted ?? text)))
            } else {
                bodyFile = ("\(fileName).\(RecordedBody.fileExtension(for: contentType, isText: false))", body)
            }
        }
        if let bodyFile {
            members.append(("bodyFileName", .string(bodyFile.name)))
        }
        return (.object(members.sorted { $0.0 < $1.0 }), bodyFile)
    }

    /// A recorded stream as `serverSentEvents`, an event's JSON data redacted as a JSON body is.
    private func eventsNode(_ stream: HTTPStubEventStream) -> JSONNode {
        stream.stubFileNode { data in
            guard let json = Self.strictJSON(Data(data.utf8)) else { return data }
            let redacted = redact(json, with: .string(options.redactionMarker))
            return redacted.rendered() == json.rendered() ? data : redacted.rendered()
        }
    }

    // MARK: - Redaction

    private func isRedactedHeader(_ name: String) -> Bool {
        options.redactedHeaders.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The JSON with the value of every redacted field (at any depth) replaced.
    private func redact(_ node: JSONNode, with marker: JSONNode) -> JSONNode {
        guard !options.redactedJSONFields.isEmpty else { return node }
        switch node.kind {
        case .object(let members):
            return .object(
                members.map { member in
                    (
                        member.key,
                        options.redactedJSONFields.contains(member.key) ? marker : redact(member.value, with: marker)
                    )
                })
        case .array(let items):
            return .array(items.map { redact($0, with: marker) })
        default:
            return node
        }
    }

    /// A form body (`application/x-www-form-urlencoded`) with the value of every field named as a redacted
    /// JSON field replaced: by the redaction marker, or (`asPattern`) by a regular expression for any value, the
    /// rest of the body escaped, so that the whole matches the body on replay. `nil` when no field is redacted.
    private func redactForm(_ text: String, asPattern: Bool) -> String? {
        guard !options.redactedJSONFields.isEmpty else { return nil }
        var redactedAny = false
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let pieces = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentEncoding.decodeForm(pieces[0])
            guard pieces.count == 2, options.redactedJSONFields.contains(name) else {
                return asPattern ? NSRegularExpression.escapedPattern(for: String(pair)) : String(pair)
            }
            redactedAny = true
            return asPattern
                ? NSRegularExpression.escapedPattern(for: String(pieces[0])) + "=[^&]*"
                : pieces[0] + "=" + options.redactionMarker
        }
        return redactedAny ? pairs.joined(separator: "&") : nil
    }

    static func isForm(_ contentType: String) -> Bool {
        contentType.lowercased().contains("application/x-www-form-urlencoded")
    }

    // MARK: - Names

    static func summary(of request: HTTPIncomingRequest) -> String {
        "\(request.method.rawValue) \(request.route.path)"
    }

    static func origin(of url: URL) -> String {
        "\(url.scheme ?? "")://\(url.host ?? ""):\(url.port.map(String.init) ?? "")"
    }

    /// `get-users-42`: the method and the path, in letters, digits and dashes.
    static func slug(for request: HTTPIncomingRequest) -> String {
        request.method.rawValue.lowercased() + slug(request.route.path, leadingDash: true)
    }

    /// A text in letters, digits and dashes: `query Hero` is `query-hero`.
    static func slug(_ text: String, leadingDash: Bool = false) -> String {
        var slug = ""
        var pendingDash = leadingDash
        for scalar in text.unicodeScalars {
            if scalar.isASCII, CharacterSet.alphanumerics.contains(scalar) {
                if pendingDash { slug += "-" }
                slug.unicodeScalars.append(scalar)
                pendingDash = false
            } else {
                pendingDash = true
            }
            if slug.count >= 80 { break }
        }
        return slug.lowercased()
    }

    static func unique(_ base: String, in names: inout Set<String>) -> String {
        var name = base
        var number = 2
        while names.contains(name) {
            name = "\(base)-\(number)"
            number += 1
        }
        names.insert(name)
        return name
    }

    /// A UUID that depends only on the file's name, so that recording again writes the same.
    static func stableID(for name: String) -> String {
        StableID.uuid(for: name).uuidString.lowercased()
    }

    // MARK: - Bodies

    static func strictJSON(_ data: Data) -> JSONNode? {
        let parser = JSONParser(bytes: Array(data), options: .strict)
        guard let (node, trailing) = try? parser.parseDocument(), trailing == nil else { return nil }
        return node
    }

    static func isText(_ contentType: String, _ text: String) -> Bool {
        if RecordedBody.isText(contentType: contentType) { return true }
        // No telling content type: text without control characters other than whitespace.
        return contentType.isEmpty
            && !text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" }
    }
}
