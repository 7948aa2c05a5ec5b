import Foundation
import StuntDouble

/// One message stub mapping (WireMock 4's WebSocket stubs) as read from a file or the admin API, before it
/// becomes an ``HTTPMessageStub``: plain values, so that it can be installed in any number of stubbers.
package struct MessageMappingSpec: Sendable {
    /// What sets the stub off.
    enum Trigger: Sendable {
        /// A message on a channel; both patterns optional.
        case message(channel: ChannelPattern?, body: ValuePattern?)
        /// A channel opening (StuntDouble's own trigger type, `connect`).
        case connect(channel: ChannelPattern?)
        /// An HTTP request matching the pattern (`http-request`).
        case request(ChannelPattern)
        /// The HTTP mapping with this id answering (`http-stub`).
        case stub(UUID)
    }

    /// A request pattern read from JSON, for a channel's initiating request or an HTTP request.
    struct ChannelPattern: Sendable {
        var method: HTTPMethod?
        var matchers: [any HTTPStubMatcherProtocol]

        func requestPattern() -> HTTPRequestPattern {
            let pattern = HTTPRequestPattern(method)
            for matcher in matchers { pattern.match(matcher) }
            return pattern
        }

        /// Both patterns' checks (a trigger's `channel` and its message's `channel`).
        func merged(with other: ChannelPattern?) -> ChannelPattern {
            guard let other else { return self }
            return ChannelPattern(method: method ?? other.method, matchers: matchers + other.matchers)
        }
    }

    /// A message to send.
    enum Body: Sendable {
        /// Text as it is.
        case text(String)
        /// A template rendered for each trigger: `message.body`, `request`, `parameters`.
        case template(ResponseTemplate)
        /// Bytes, sent as a binary frame.
        case binary(Data)
    }

    /// What the stub does.
    enum Action: Sendable {
        case send(Body, to: Target, delay: TimeInterval, parameters: [(key: String, value: TemplateValue)])
        case close(code: Int, reason: String, delay: TimeInterval)
    }

    /// Where a send goes.
    enum Target: Sendable {
        case originating
        case channels(ChannelPattern)
    }

    package var id: UUID
    package var name: String?
    /// WireMock's priority: 1 is the highest, 5 the default.
    package var priority: Int?
    var trigger = Trigger.message(channel: nil, body: nil)
    var actions: [Action] = []
    /// The mapping's `metadata`, if any (for the admin API's searches).
    package var metadata: JSONNode?
    /// Where the mapping is: the file as displayed, and its line.
    package var file: String
    package var line: Int
    /// Whether the file holds a list (`{"messageMappings": [...]}`) rather than this one mapping.
    package var isInList = false
    /// The mapping's JSON as written (for listings).
    package var json: JSONNode
    /// The clock and random source its templates read.
    var environment = TemplateEnvironment.system

    init(id: UUID, file: String, line: Int, json: JSONNode) {
        self.id = id
        self.file = file
        self.line = line
        self.json = json
    }

    /// What sets the stub off, for listings: `on a message`, `on connect`, `after POST /orders`.
    package var summary: String {
        switch trigger {
        case .message(_, let body): body.map { "on a message \($0.description)" } ?? "on any message"
        case .connect: "on connect"
        case .request(let pattern): "after HTTP \(pattern.method?.rawValue ?? "ANY") requests"
        case .stub(let id): "after the mapping \(id.uuidString.lowercased()) answers"
        }
    }

    /// The stub the mapping describes.
    /// - Returns: A new stub.
    package func makeStub() -> HTTPMessageStub {
        let environment = environment
        let stub = HTTPMessageStub(name: name, priority: MappingSpec.stuntDoublePriority(priority))
        switch trigger {
        case .message(let channel, let body):
            if let channel { stub.on(channel: channel.requestPattern()) }
            stub.onMessage(body.map(Self.messagePattern) ?? .any)
        case .connect(let channel):
            if let channel { stub.on(channel: channel.requestPattern()) }
            stub.onConnect()
        case .request(let pattern):
            stub.onRequest(pattern.requestPattern())
        case .stub(let id):
            stub.onServed(where: { $0.mappingID == id })
        }
        for action in actions {
            switch action {
            case .send(let body, let target, let delay, let parameters):
                let to: HTTPMessageStub.Target =
                    switch target {
                    case .originating: .originating
                    case .channels(let pattern): .channels(pattern.requestPattern())
                    }
                stub.send(to: to, after: delay) { message, request in
                    Self.render(body, message: message, request: request, parameters: parameters, environment)
                }
            case .close(let code, let reason, let delay):
                stub.close(code: code, reason: reason, after: delay)
            }
        }
        return stub
    }

    /// A message body pattern: `binaryEqualTo` on the bytes, the others on the text (a binary message's bytes
    /// read as UTF-8, as WireMock reads them).
    static func messagePattern(_ pattern: ValuePattern) -> HTTPMessagePattern {
        HTTPMessagePattern(pattern.description) { message in
            switch message {
            case .text(let text): pattern.matches(body: Data(text.utf8))
            case .binary(let data): pattern.matches(body: data)
            }
        }
    }

    private static func render(
        _ body: Body, message: HTTPStubMessage?, request: HTTPIncomingRequest,
        parameters: [(key: String, value: TemplateValue)], _ environment: TemplateEnvironment
    ) -> HTTPStubMessage {
        switch body {
        case .text(let text):
            return .text(text)
        case .binary(let data):
            return .binary(data)
        case .template(let template):
            var root: [(key: String, value: TemplateValue)] = []
            if let message { root.append(("message", .object([("body", .string(message.text))]))) }
            root.append(("request", .lazy(RequestModel(request))))
            root.append(("parameters", .object(parameters)))
            return .text(template.render(root: root, environment: environment))
        }
    }

    /// A JSON value as WireMock writes a message's `data` object before templating it (Jackson's default pretty
    /// printer: two-space indents, `"key" : value`, arrays on one line).
    package static func jacksonPretty(_ node: JSONNode, depth: Int = 0) -> String {
        switch node.kind {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return number.text
        case .string(let text): return quoted(text)
        case .array(let items):
            guard !items.isEmpty else { return "[ ]" }
            return "[ " + items.map { jacksonPretty($0, depth: depth) }.joined(separator: ", ") + " ]"
        case .object:
            // Jackson keeps the last of members written twice, where the first was.
            let members = node.distinctMembers ?? []
            guard !members.isEmpty else { return "{ }" }
            let indent = String(repeating: "  ", count: depth + 1)
            let lines = members.map { indent + quoted($0.key) + " : " + jacksonPretty($0.value, depth: depth + 1) }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + String(repeating: "  ", count: depth) + "}"
        }
    }

    /// A string as Jackson escapes it (`\b`, `\f` and upper-case `\u001F`), which `JSONWriter` does not: the text
    /// sent is then byte for byte WireMock's.
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16).uppercased()
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
