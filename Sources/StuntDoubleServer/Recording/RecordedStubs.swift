import Foundation
import StuntDouble
import StuntDoubleWireMock

/// Stubs made from recorded exchanges as WireMock's recorder makes them (`POST /__admin/recordings/stop` and
/// `snapshot`): the exact URL and method, the captured headers, the body by the request's content type, the
/// upstream's status, headers and body, long bodies in `__files/`, repeated requests as scenarios.
struct RecordedStubs {
    /// One exchange to make a stub of.
    struct Exchange {
        let request: HTTPIncomingRequest
        /// Whether the journal kept only the beginning of the request's body (then the stub matches any body).
        let isBodyTruncated: Bool
        let status: Int
        let headers: [(name: String, value: String)]
        let body: Data
        /// Whether the body may be encoded as its `Content-Encoding` says (it was forwarded as the upstream sent
        /// it to the client): then the header stays with the bytes. A recording's answers are uncompressed.
        var mayBeEncoded = false
        /// When the head and the parts of the body came (an event stream's pace), if known.
        var arrivals: [HTTPRecordedExchange.Arrival] = []
        /// What a validating proxy found wrong with the exchange (`request: ...`, `answer: ...`): kept in the
        /// stub's metadata, as `record --openapi` keeps it.
        var contractNotes: [String] = []
    }

    /// A stub made: its mapping, and the body file it names, if any.
    struct Stub {
        var mapping: JSONNode
        let id: UUID
        let bodyFile: (name: String, data: Data)?
    }

    let spec: RecordSpec
    /// Whether bodies may go to files (there is a `__files/` to write to).
    let canExtractBodies: Bool

    /// Response headers never recorded: they describe the upstream's transfer, not the answer.
    static let droppedHeaders: Set<String> = ["content-encoding", "content-length", "transfer-encoding"]

    /// The stubs, in the order of the exchanges (a repeated request's later exchanges as its scenario's states,
    /// or left out).
    func stubs(for exchanges: [Exchange]) -> [Stub] {
        var made: [(key: String, stub: Stub, path: String)] = []
        for exchange in exchanges {
            let request = requestNode(exchange)
            let id = UUID()
            let name = Self.safeName(exchange.request.url.path(percentEncoded: false))
            let (response, bodyFile) = responseNode(exchange, name: name, id: id)
            var members: [(String, JSONNode)] = [
                ("id", .string(id.uuidString.lowercased())), ("name", .string(name)), ("request", request),
                ("response", response),
            ]
            if spec.persists { members.append(("persistent", .bool(true))) }
            if !exchange.contractNotes.isEmpty {
                let notes = JSONNode.array(exchange.contractNotes.map(JSONNode.string))
                members.append(("metadata", .object([("stuntdouble", .object([("contractViolations", notes)]))])))
            }
            made.append(
                (
                    request.rendered(sortedKeys: true), Stub(mapping: .object(members), id: id, bodyFile: bodyFile),
                    exchange.request.url.path(percentEncoded: false)
                ))
        }
        // Repeated requests: a scenario each (numbered in order of first appearance), or the first answer only.
        var dropped = Set<Int>()
        var scenarioNumber = 0
        for indices in RecordedBody.repeats(of: made.map(\.key)) {
            guard spec.repeatsAsScenarios else {
                dropped.formUnion(indices.dropFirst())
                continue
            }
            scenarioNumber += 1
            let segments = made[indices[0]].path.split(separator: "/").joined(separator: "-")
            let scenario = "scenario-\(scenarioNumber)-\(segments)"
            for (position, index) in indices.enumerated() {
                var mapping = made[index].stub.mapping
                mapping = mapping.setting("scenarioName", to: .string(scenario), atFront: false)
                mapping = mapping.setting(
                    "requiredScenarioState", to: .string(position == 0 ? "Started" : "\(scenario)-\(position + 1)"),
                    atFront: false)
                if position + 1 < indices.count {
                    mapping = mapping.setting(
                        "newScenarioState", to: .string("\(scenario)-\(position + 2)"), atFront: false)
                }
                made[index].stub.mapping = mapping
            }
        }
        return made.enumerated().filter { !dropped.contains($0.offset) }.map(\.element.stub)
    }

    // MARK: - The request

    private func requestNode(_ exchange: Exchange) -> JSONNode {
        let request = exchange.request
        let path = request.url.path(percentEncoded: true).isEmpty ? "/" : request.url.path(percentEncoded: true)
        let url = request.url.query(percentEncoded: true).map { path + "?" + $0 } ?? path
        var members: [(String, JSONNode)] = [("url", .string(url)), ("method", .string(request.method.rawValue))]
        var headers: [(String, JSONNode)] = []
        for (name, caseInsensitive) in spec.capturedHeaders {
            let values = request.headers.values(for: HTTPHeaders.Name(rawValue: name))
            guard !values.isEmpty else { continue }
            var pattern: [(String, JSONNode)] = [("equalTo", .string(values.joined(separator: ", ")))]
            if caseInsensitive { pattern.append(("caseInsensitive", .bool(true))) }
            headers.append((name, .object(pattern)))
        }
        if !headers.isEmpty { members.append(("headers", .object(headers))) }
        if let body = request.body, !body.isEmpty, !exchange.isBodyTruncated {
            members.append(("bodyPatterns", .array([bodyPattern(body, contentType: request.headers[.contentType])])))
        }
        return .object(members)
    }

    private func bodyPattern(_ body: Data, contentType: String?) -> JSONNode {
        let type = contentType?.lowercased() ?? ""
        let text = String(data: body, encoding: .utf8)
        switch spec.bodyMatcher {
        case .equalTo(let caseInsensitive):
            var members: [(String, JSONNode)] = [("equalTo", .string(text ?? ""))]
            if caseInsensitive { members.append(("caseInsensitive", .bool(true))) }
            return .object(members)
        case .equalToJson(let ignoreArrayOrder, let ignoreExtraElements):
            var members: [(String, JSONNode)] = [("equalToJson", .string(text ?? ""))]
            if let ignoreArrayOrder { members.append(("ignoreArrayOrder", .bool(ignoreArrayOrder))) }
            if let ignoreExtraElements { members.append(("ignoreExtraElements", .bool(ignoreExtraElements))) }
            return .object(members)
        case .equalToXml, .automatic:
            if case .automatic = spec.bodyMatcher, type.contains("json"), let text {
                return .object([
                    ("equalToJson", .string(text)), ("ignoreArrayOrder", .bool(true)),
                    ("ignoreExtraElements", .bool(true)),
                ])
            }
            if type.hasPrefix("multipart/form-data") { return .object([("anything", .string("anything"))]) }
            // XML is compared as text: StuntDouble does not match XML structurally yet.
            if let text, type.isEmpty || RecordedBody.isText(contentType: type) {
                return .object([("equalTo", .string(text))])
            }
            return .object([("binaryEqualTo", .string(body.base64EncodedString()))])
        }
    }

    // MARK: - The response

    private func responseNode(_ exchange: Exchange, name: String, id: UUID) -> (JSONNode, (name: String, data: Data)?) {
        var members: [(String, JSONNode)] = [("status", .number(exchange.status))]
        var order: [String] = []
        var values: [String: [String]] = [:]
        var contentType = ""
        var isEncoded = false
        for (headerName, value) in exchange.headers {
            let lowered = headerName.lowercased()
            if lowered == "content-encoding", exchange.mayBeEncoded, value.lowercased() != "identity" {
                // The bytes are compressed as the upstream sent them: they replay with the header that says so.
                isEncoded = true
            } else if Self.droppedHeaders.contains(lowered) {
                continue
            }
            if lowered == "content-type" { contentType = value.lowercased() }
            if values[headerName] == nil { order.append(headerName) }
            values[headerName, default: []].append(value)
        }
        if !order.isEmpty {
            members.append(
                (
                    "headers",
                    .object(
                        order.map { headerName in
                            let list = values[headerName] ?? []
                            return (headerName, list.count == 1 ? .string(list[0]) : .array(list.map(JSONNode.string)))
                        })
                ))
        }
        let body = exchange.body
        guard !body.isEmpty else { return (.object(members), nil) }
        if !isEncoded, contentType.hasPrefix("text/event-stream"),
            let stream = HTTPStubEventStream(recorded: body, arrivals: exchange.arrivals)
        {
            // An event stream: its events, each with the delay at which it came (StuntDouble's own field).
            members.append(("serverSentEvents", stream.stubFileNode()))
            return (.object(members), nil)
        }
        let text =
            RecordedBody.isText(contentType: contentType) && !isEncoded ? String(data: body, encoding: .utf8) : nil
        let size = text.map(\.count) ?? body.count
        if canExtractBodies, let threshold = text == nil ? spec.binarySizeThreshold : spec.textSizeThreshold,
            size > threshold
        {
            let fileExtension = RecordedBody.fileExtension(for: contentType, isText: text != nil)
            let file = "\(name)-\(id.uuidString.lowercased()).\(fileExtension)"
            members.append(("bodyFileName", .string(file)))
            return (.object(members), (file, body))
        }
        members.append(text.map { ("body", .string($0)) } ?? ("base64Body", .string(body.base64EncodedString())))
        return (.object(members), nil)
    }

    // MARK: - Names and types

    /// A name as WireMock's recorder makes one from a path: `/users/42` is `users_42`.
    static func safeName(_ path: String) -> String {
        var name = ""
        for scalar in path.unicodeScalars {
            if scalar == "/" {
                name += "_"
            } else if CharacterSet.whitespaces.contains(scalar) {
                name += "-"
            } else if scalar.isASCII, CharacterSet.alphanumerics.contains(scalar) || scalar == "_" || scalar == "-" {
                name.unicodeScalars.append(scalar)
            }
        }
        name = name.trimmingCharacters(in: CharacterSet(charactersIn: "_"))
        return String(name.prefix(200)).lowercased()
    }
}
