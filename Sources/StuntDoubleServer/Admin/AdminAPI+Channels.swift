import Foundation
import StuntDouble
import StuntDoubleWireMock

/// WireMock 4's channel endpoints, for the server's WebSocket channels: `GET /__admin/channels` (and one by id),
/// `DELETE /__admin/channels/{id}`, `POST /__admin/channels/send`.
extension AdminAPI {
    /// `GET /__admin/channels`: the open channels.
    func listChannels() -> AdminResponse {
        let channels = stubber.channels.map(Self.channelJSON)
        return .json(
            .object([("channels", .array(channels)), ("meta", .object([("total", .number(channels.count))]))]))
    }

    /// `GET /__admin/channels/{id}`.
    func channel(_ idText: String) -> AdminResponse {
        guard let channel = openChannel(idText) else { return .error(404, "No open channel has the id \(idText).") }
        return .json(Self.channelJSON(channel))
    }

    /// `DELETE /__admin/channels/{id}`: closes the channel with 1000, "Closed by server" (as WireMock).
    func closeChannel(_ idText: String) -> AdminResponse {
        guard let channel = openChannel(idText) else { return .error(404, "No open channel has the id \(idText).") }
        stubber.close(channel, code: 1000, reason: "Closed by server")
        return .json(.object([]))
    }

    private func openChannel(_ idText: String) -> HTTPMessageChannel? {
        guard let id = UUID(uuidString: idText) else { return nil }
        return stubber.channels.first { $0.id == id }
    }

    /// `POST /__admin/channels/send`: a message to every open channel whose opening request matches
    /// `initiatingRequest`, as it is (not templated, as in WireMock).
    func sendToChannels(_ body: Data) -> AdminResponse {
        guard let root = JSONNode.parse(lenient: body), let members = root.members else {
            return .error(422, "The body must be a JSON object with initiatingRequest and message.")
        }
        let fields = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        if let type = fields["type"] {
            guard case .string("websocket") = type.kind else {
                return .error(422, "type must be \"websocket\", the only kind of channel this server has.")
            }
        }
        guard let messageNode = fields["message"], let message = Self.message(messageNode["body"]) else {
            return .error(
                422,
                "message is required: {\"body\": \"text\"}, {\"body\": {\"data\": ...}} or "
                    + "{\"body\": {\"base64Data\": ...}}.")
        }
        guard let requestNode = fields["initiatingRequest"] else {
            return .error(422, "initiatingRequest is required: a request pattern for the channels' opening requests.")
        }
        let (pattern, diagnostics) = StubRequestPattern.read(
            Data(requestNode.rendered().utf8), name: "initiatingRequest")
        guard let pattern else { return .json(AdminJSON.errors(diagnostics), status: 422) }
        let messaged = stubber.send(message, toChannelsWhere: pattern.matches)
        return .json(
            .object([
                ("channels", .array(messaged.map(Self.channelJSON))), ("channelsMessaged", .number(messaged.count)),
            ]))
    }

    /// A message body as WireMock's admin API writes one: text, `{"data": text or JSON}`, `{"base64Data": ...}`.
    private static func message(_ node: JSONNode?) -> HTTPStubMessage? {
        guard let node else { return nil }
        if case .string(let text) = node.kind { return .text(text) }
        if let data = node["data"] {
            if case .string(let text) = data.kind { return .text(text) }
            return .text(data.rendered())
        }
        if case .string(let base64)? = node["base64Data"]?.kind, let bytes = Data(base64Encoded: base64) {
            return .binary(bytes)
        }
        return nil
    }

    static func channelJSON(_ channel: HTTPMessageChannel) -> JSONNode {
        .object([
            ("type", .string("websocket")), ("id", .string(channel.id.uuidString.lowercased())),
            ("open", .bool(channel.isOpen)),
            ("initiatingRequest", AdminJSON.loggedRequest(channel.request, at: Date(), clientIP: "127.0.0.1")),
        ])
    }
}
