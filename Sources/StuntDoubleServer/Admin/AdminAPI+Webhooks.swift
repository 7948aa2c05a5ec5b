import Foundation
import StuntDouble
import StuntDoubleWireMock

/// The webhooks stubs fired: StuntDouble's own `GET /__admin/stuntdouble/webhooks`, for the traffic page and
/// for tests that wait for a webhook's outcome.
extension AdminAPI {
    /// `GET /__admin/stuntdouble/webhooks`: the latest calls, newest first, with what became of each.
    func webhooks() -> AdminResponse {
        let events = core.webhooks.events
        return .json(
            .object([
                ("webhooks", .array(events.map(Self.json))),
                ("meta", .object([("total", .number(events.count))])),
            ]))
    }

    static func json(_ event: WebhookSender.Event) -> JSONNode {
        var members: [(String, JSONNode)] = [("id", .number(event.number))]
        if let entry = event.entry {
            members.append(("requestId", .string(AdminJSON.id(ofEntry: entry).uuidString.lowercased())))
            members.append(("requestNumber", .number(entry)))
        }
        members += [
            ("source", .string(event.origin)),
            ("method", .string(event.method)),
            ("url", .string(event.url)),
            ("scheduledDate", .string(AdminJSON.isoDate(event.scheduledAt))),
            ("delayMilliseconds", .number(Int((event.delay.secondsValue * 1000).rounded()))),
        ]
        switch event.outcome {
        case .pending:
            members.append(("state", .string("pending")))
        case .answered(let status, let took):
            members.append(("state", .string("answered")))
            members.append(("status", .number(status)))
            members.append(("took", .number(Int((took.secondsValue * 1000).rounded()))))
        case .failed(let message):
            members.append(("state", .string("failed")))
            members.append(("error", .string(message)))
        }
        if !event.notes.isEmpty {
            members.append(("violations", .array(event.notes.map { .string($0) })))
        }
        return .object(members)
    }
}

/// The webhooks an OpenAPI 3.1 document declares (its `webhooks`), which the admin API fires on request: StuntDouble's
/// own `GET /__admin/stuntdouble/openapi/webhooks` and `POST /__admin/stuntdouble/openapi/webhooks/{name}`.
extension AdminAPI {
    /// `GET /__admin/stuntdouble/openapi/webhooks`: every webhook the loaded documents declare.
    func namedWebhooks() -> AdminResponse {
        var list: [JSONNode] = []
        for stub in stubber.stubs {
            for webhook in stub.namedWebhooks?.webhookList ?? [] {
                list.append(
                    .object([
                        ("name", .string(webhook.name)), ("method", .string(webhook.method)),
                        ("source", .string(webhook.origin)),
                    ]))
            }
        }
        return .json(.object([("webhooks", .array(list)), ("meta", .object([("total", .number(list.count))]))]))
    }

    /// `POST /__admin/stuntdouble/openapi/webhooks/{name}` with `{"url": "http://...", "method": "post", "body":
    /// {...}}` (`method` and `body` optional): sends the webhook now, waits for the answer, and answers what became
    /// of it as `GET /__admin/stuntdouble/webhooks` lists it.
    func fireWebhook(_ name: String, _ body: Data) async -> AdminResponse {
        let usage = "Send {\"url\": \"http://127.0.0.1:9000/hooks\"} (and optionally \"method\" and \"body\")."
        let node = body.isEmpty ? JSONNode.object([]) : JSONNode.parse(lenient: body)
        guard let node, node.members != nil else {
            return .error(422, "The body is not a JSON object. \(usage)")
        }
        guard let url = node["url"]?.string, !url.isEmpty else {
            return .error(422, "Where should webhook \"\(name)\" go? \(usage)")
        }
        if let method = node["method"], method.string == nil {
            return .error(422, "\"method\" is \(method.kindName); give the webhook's method as a string (\"post\").")
        }
        let override = node["body"].map { Data($0.rendered(pretty: false).utf8) }
        let sources = stubber.stubs.compactMap(\.namedWebhooks)
        guard let source = sources.first(where: { $0.webhookList.contains { $0.name == name } }) else {
            let names = sources.flatMap { $0.webhookList.map(\.name) }
            return .error(
                404,
                "No loaded document declares a webhook named \"\(name)\"; "
                    + (names.isEmpty
                        ? "none declares any (webhooks are an OpenAPI 3.1 document's top-level webhooks)."
                        : "they declare " + names.map { "\"\($0)\"" }.joined(separator: ", ") + "."))
        }
        switch source.call(named: name, method: node["method"]?.string, to: url, body: override) {
        case .failure(let refusal):
            return .error(422, refusal.description)
        case .success(let call):
            guard let event = await core.webhooks.sendNow(call, client: core.proxy?.client) else {
                return .error(503, "The webhook was not sent: the server is stopping, or too many calls are waiting.")
            }
            return .json(Self.json(event))
        }
    }
}
