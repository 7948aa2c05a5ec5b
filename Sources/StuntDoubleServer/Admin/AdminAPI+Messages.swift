import Foundation
import StuntDouble
import StuntDoubleWireMock

/// WireMock 4's message journal (`/__admin/messages`): every message the server's WebSocket channels received
/// or sent, listed, counted, found, removed and waited for. A message pattern is
/// `{"channel": <request pattern of the opening request>, "body": <content pattern>}`, both optional; as in
/// WireMock, it matches messages either way.
extension AdminAPI {
    /// `GET /__admin/messages`: newest first.
    func listMessages() -> AdminResponse {
        let events = stubber.messageJournal.reversed().map(messageJSON)
        return .json(.object([("messageServeEvents", .array(events)), ("messageJournalDisabled", .bool(false))]))
    }

    /// `DELETE /__admin/messages`.
    func clearMessages() -> AdminResponse {
        stubber.resetMessageJournal()
        return .json(.object([]))
    }

    /// `POST /__admin/messages/count`.
    func countMessages(_ body: Data) -> AdminResponse {
        withMessagePattern(body) { test in
            let count = stubber.messageJournal.filter(test).count
            return .json(.object([("count", .number(count)), ("messageJournalDisabled", .bool(false))]))
        }
    }

    /// `POST /__admin/messages/find`: oldest first.
    func findMessages(_ body: Data) -> AdminResponse {
        withMessagePattern(body) { test in
            .json(.object([("messageServeEvents", .array(stubber.messageJournal.filter(test).map(messageJSON)))]))
        }
    }

    /// `POST /__admin/messages/remove`: the events removed.
    func removeMessages(_ body: Data) -> AdminResponse {
        withMessagePattern(body) { test in
            .json(.object([("messageServeEvents", .array(stubber.removeMessages(where: test).map(messageJSON)))]))
        }
    }

    /// `POST /__admin/messages/remove-by-metadata`: the events of stubs whose metadata a pattern matches.
    func removeMessages(byMetadata body: Data) -> AdminResponse {
        let (pattern, diagnostics) = StubValuePattern.read(body, name: "the request body")
        guard let pattern else { return .json(AdminJSON.errors(diagnostics), status: 422) }
        let store = store.messages
        let removed = stubber.removeMessages { entry in
            guard let stub = entry.stub, let metadata = store.entry(for: stub)?.spec.metadata else { return false }
            return pattern.matches(metadata.rendered())
        }
        return .json(.object([("messageServeEvents", .array(removed.map(messageJSON)))]))
    }

    /// `POST /__admin/messages/wait` (`{"pattern": ..., "timeoutMillis": ...}`): the first matching event, at
    /// once or when it comes; `null` when none came in time.
    func waitForMessage(_ body: Data) async -> AdminResponse {
        await waitForMessages(body, defaultCount: 1) { events in events.first.map(self.messageJSON) ?? .null }
    }

    /// `POST /__admin/messages/wait-for-count` (`{"pattern", "timeoutMillis", "count"}`): up to `count` events,
    /// fewer when the time ran out.
    func waitForMessageCount(_ body: Data) async -> AdminResponse {
        await waitForMessages(body, defaultCount: nil) { events in
            .object([
                ("messageServeEvents", .array(events.map(self.messageJSON))), ("messageJournalDisabled", .bool(false)),
            ])
        }
    }

    /// `GET /__admin/messages/{id}`: the event, or `null`, as in WireMock.
    func message(_ idText: String) -> AdminResponse {
        let id = UUID(uuidString: idText)
        return .json(stubber.messageJournal.first { $0.id == id }.map(messageJSON) ?? .null)
    }

    /// `DELETE /__admin/messages/{id}`.
    func removeMessage(_ idText: String) -> AdminResponse {
        let id = UUID(uuidString: idText)
        stubber.removeMessages { $0.id == id }
        return .json(.object([]))
    }

    // MARK: - Patterns and events

    private func waitForMessages(
        _ body: Data, defaultCount: Int?, answer: @escaping @Sendable ([HTTPMessageJournalEntry]) -> JSONNode
    ) async -> AdminResponse {
        guard let root = JSONNode.parse(lenient: body), root.members != nil else {
            return .error(422, "The body must be {\"pattern\": {...}, \"timeoutMillis\": milliseconds}.")
        }
        var count = defaultCount ?? 1
        if defaultCount == nil, let node = root["count"] {
            guard case .number(let number) = node.kind, let value = Int(number.text), value >= 0 else {
                return .error(422, "count must be a whole number of messages, 0 or more.")
            }
            count = value
        }
        var timeout = 10_000.0
        if let node = root["timeoutMillis"] {
            guard case .number(let number) = node.kind, let value = Double(number.text), value >= 0, value <= 600_000
            else {
                return .error(422, "timeoutMillis must be milliseconds from 0 to 600,000.")
            }
            timeout = value
        }
        let pattern = root["pattern"].map { Data($0.rendered().utf8) } ?? Data("{}".utf8)
        switch messagePattern(pattern) {
        case .success(let test):
            let events = await stubber.waitForMessages(count: count, within: .milliseconds(timeout), where: test)
            return .json(answer(events))
        case .failure(let failure):
            return failure.response
        }
    }

    private func withMessagePattern(
        _ body: Data, _ answer: (@escaping @Sendable (HTTPMessageJournalEntry) -> Bool) -> AdminResponse
    ) -> AdminResponse {
        switch messagePattern(body) {
        case .success(let test): answer(test)
        case .failure(let failure): failure.response
        }
    }

    /// A message pattern: `{"channel": {...}, "body": {...}}`, both optional.
    private func messagePattern(_ body: Data) -> Result<@Sendable (HTTPMessageJournalEntry) -> Bool, AdminFailure> {
        let text = body.isEmpty ? Data("{}".utf8) : body
        guard let root = JSONNode.parse(lenient: text), let members = root.members else {
            return .failure(
                AdminFailure(.error(422, "A message pattern is a JSON object: {\"channel\": {...}, \"body\": {...}}.")))
        }
        if let unknown = members.first(where: { !["channel", "body"].contains($0.key) }) {
            return .failure(
                AdminFailure(
                    .error(422, "Unknown field \(unknown.key) in the message pattern: give channel and body only.")))
        }
        var channel: StubRequestPattern?
        if let node = root["channel"] {
            let (pattern, diagnostics) = StubRequestPattern.read(Data(node.rendered().utf8), name: "channel")
            guard let pattern else { return .failure(AdminFailure(.json(AdminJSON.errors(diagnostics), status: 422))) }
            channel = pattern
        }
        var content: StubValuePattern?
        if let node = root["body"] {
            let (pattern, diagnostics) = StubValuePattern.read(Data(node.rendered().utf8), name: "body")
            guard let pattern else { return .failure(AdminFailure(.json(AdminJSON.errors(diagnostics), status: 422))) }
            content = pattern
        }
        return .success { [channel, content] entry in
            if let channel, !channel.matches(entry.channel.request) { return false }
            guard let content else { return true }
            switch entry.message {
            case .text(let text): return content.matches(body: Data(text.utf8))
            case .binary(let data): return content.matches(body: data)
            }
        }
    }

    /// A journal event as WireMock 4 writes one.
    func messageJSON(_ entry: HTTPMessageJournalEntry) -> JSONNode {
        let text = entry.message.text
        var members: [(String, JSONNode)] = [
            ("id", .string(entry.id.uuidString.lowercased())), ("eventType", .string(entry.direction.rawValue)),
            ("channel", Self.channelJSON(entry.channel)), ("message", text.isEmpty ? .null : .string(text)),
        ]
        if entry.direction == .received, let stub = entry.stub {
            members.append(
                ("stubMapping", store.messages.entry(for: stub)?.json ?? .object([("name", .string(stub.description))]))
            )
        }
        members += [
            ("wasMatched", .bool(entry.direction == .sent || entry.stub != nil)),
            ("timestamp", .string(AdminJSON.isoDate(entry.date))),
        ]
        if case .binary(let data) = entry.message {
            // StuntDouble's own: the bytes, which `message` (UTF-8, as WireMock writes it) may not keep.
            members.append(("base64Message", .string(data.base64EncodedString())))
        }
        return .object(members)
    }
}
