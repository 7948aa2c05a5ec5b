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

    private static func json(_ event: WebhookSender.Event) -> JSONNode {
        var members: [(String, JSONNode)] = [
            ("id", .number(event.number)),
            ("requestId", .string(AdminJSON.id(ofEntry: event.entry).uuidString.lowercased())),
            ("requestNumber", .number(event.entry)),
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
        return .object(members)
    }
}
