import Foundation
import StuntDouble
import StuntDoubleOpenAPI
import StuntDoubleServer
import Testing

/// An OpenAPI document's callbacks and webhooks on the wire: a callback is sent after its operation's answer to
/// the URL its runtime expression names, with its example or a generated body; the document's webhooks are fired
/// through the admin API. A receiving server of our own records what arrived.
@Suite struct CallbackTests {
    typealias Call = AdminAPITests

    /// A subscription API (`alerts.yaml`, the README's example): `subscribe` calls back twice (an alert, and a
    /// goodbye whose URL names the answer's id), `report` calls back to a query parameter with an example its own
    /// schema refuses, and the document has a webhook.
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../StuntDoubleOpenAPITests/Documents/alerts.yaml").standardized

    /// A server answering `document`, and a receiver of its calls (`WebhookTests.withReceiver`).
    static func withServer(_ body: (URL, URL, HTTPStubServer) async throws -> Void) async throws {
        try await WebhookTests.withReceiver { receiverURL, receiver in
            let stubber = HTTPStubber()
            try stubber.load(openAPIAt: document)
            try await Call.serving(HTTPStubServer(stubber: stubber)) { url in
                try await body(url, receiverURL, receiver)
            }
        }
    }

    @Test func callbacksFollowTheAnswerToTheURLsTheirExpressionsName() async throws {
        try await Self.withServer { url, receiverURL, receiver in
            // Refused by the document (no topic): nothing subscribes, nothing is called back.
            let refused = try await Call.call(
                .POST, url, "/subscriptions", body: #"{"callbackUrl": "\#(receiverURL.absoluteString)/hooks"}"#,
                headers: [("Content-Type", "application/json")])
            #expect(refused.status == 422)
            let answer = try await Call.call(
                .POST, url, "/subscriptions",
                body: #"{"callbackUrl": "\#(receiverURL.absoluteString)/hooks", "topic": "disk space"}"#,
                headers: [("Content-Type", "application/json")])
            #expect(answer.status == 201 && answer.object["id"] as? String == "sub-7")

            let webhooks = try await WebhookTests.settledWebhooks(url, count: 2)
            #expect(webhooks.count == 2, "one call per callback, none for the refused request: \(webhooks)")
            #expect(Set(webhooks.compactMap { $0["requestNumber"] as? Int }) == [2])
            let alert = try #require(webhooks.first { $0["method"] as? String == "POST" })
            #expect(alert["url"] as? String == receiverURL.absoluteString + "/hooks/alerts?topic=disk%20space")
            #expect(alert["state"] as? String == "answered" && alert["status"] as? Int == 204, "\(alert)")
            #expect(alert["violations"] == nil, "the example keeps to its schema, and 204 is expected")
            let source = alert["source"] as? String ?? ""
            #expect(source.hasPrefix("callback onAlert of POST /subscriptions (subscribe)"), "\(source)")

            // The receiver has no answer to DELETE (an error status), which the callback does not list: named.
            let gone = try #require(webhooks.first { $0["method"] as? String == "DELETE" })
            #expect(gone["url"] as? String == receiverURL.absoluteString + "/hooks/gone/sub-7", "from the answer")
            let goneStatus = try #require(gone["status"] as? Int)
            #expect(goneStatus >= 400)
            let goneNotes = gone["violations"] as? [String] ?? []
            #expect(
                goneNotes.count == 1 && goneNotes.first?.contains("\(goneStatus) is not a response") == true,
                "\(goneNotes)")

            let arrived = try #require(receiver.stubber.journal.first { $0.request.method == .post })
            #expect(arrived.request.url.path == "/hooks/alerts")
            #expect(arrived.request.headers["X-Subscription"] == "sub-7")
            #expect(arrived.request.headers["Content-Type"] == "application/json")
            let sent = try #require(arrived.request.body)
            let json = try #require(try JSONSerialization.jsonObject(with: sent) as? [String: String])
            #expect(json == ["level": "warning", "message": "disk 91% full"])
        }
    }

    @Test func aCallbackWhoseExpressionNamesNothingFailsAndOneThatBreaksItsSchemaIsSentAndNamed() async throws {
        try await Self.withServer { url, receiverURL, receiver in
            #expect(try await Call.call(.POST, url, "/reports").status == 202)
            let notify = receiverURL.absoluteString + "/hooks/reports"
            let query = notify.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? notify
            #expect(try await Call.call(.POST, url, "/reports?notify=\(query)").status == 202)

            let webhooks = try await WebhookTests.settledWebhooks(url, count: 2)
            let failed = try #require(webhooks.first { $0["requestNumber"] as? Int == 1 })
            #expect(failed["state"] as? String == "failed")
            let error = failed["error"] as? String ?? ""
            #expect(
                error.contains("$request.query.notify names nothing: the request's query has no notify"), "\(error)")

            let sent = try #require(webhooks.first { $0["requestNumber"] as? Int == 2 })
            #expect(sent["url"] as? String == notify)
            #expect(sent["status"] as? Int == 204, "sent all the same: \(sent)")
            let notes = sent["violations"] as? [String] ?? []
            #expect(notes.count == 1 && notes.first?.hasPrefix("body.level:") == true, "\(notes)")
            #expect(receiver.stubber.journal.count == 1)
        }
    }

    @Test func theAdminAPIFiresADocumentsWebhookWithAGeneratedOrAGivenBody() async throws {
        try await Self.withServer { url, receiverURL, receiver in
            let list = try await Call.call(.GET, url, "/__admin/stuntdouble/openapi/webhooks")
            let listed = list.object["webhooks"] as? [[String: Any]] ?? []
            #expect(listed.count == 1 && listed.first?["name"] as? String == "maintenance")
            #expect(listed.first?["method"] as? String == "POST")

            let target = receiverURL.absoluteString + "/hooks/maintenance"
            let fired = try await Call.call(
                .POST, url, "/__admin/stuntdouble/openapi/webhooks/maintenance", body: #"{"url": "\#(target)"}"#)
            #expect(fired.status == 200, "\(fired.text)")
            #expect(fired.object["state"] as? String == "answered" && fired.object["status"] as? Int == 204)
            #expect(fired.object["requestNumber"] == nil && fired.object["violations"] == nil, "\(fired.text)")
            let arrived = try #require(receiver.stubber.journal.first?.request.body)
            let generated = try #require(try JSONSerialization.jsonObject(with: arrived) as? [String: Any])
            #expect(generated["startsAt"] is String && (generated["minutes"] as? Int ?? 0) >= 1, "\(generated)")

            let given = try await Call.call(
                .POST, url, "/__admin/stuntdouble/openapi/webhooks/maintenance",
                body: #"{"url": "\#(target)", "body": {"minutes": 0}}"#)
            #expect(given.object["status"] as? Int == 204, "a given body is sent as given")
            let notes = given.object["violations"] as? [String] ?? []
            #expect(notes.count == 2, "startsAt missing, minutes under 1: \(notes)")
            #expect(receiver.stubber.journal.last?.request.body == Data(#"{"minutes":0}"#.utf8))

            let unknown = try await Call.call(
                .POST, url, "/__admin/stuntdouble/openapi/webhooks/outage", body: #"{"url": "\#(target)"}"#)
            #expect(unknown.status == 404 && unknown.text.contains("\\\"maintenance\\\""), "\(unknown.text)")
            let noURL = try await Call.call(.POST, url, "/__admin/stuntdouble/openapi/webhooks/maintenance")
            #expect(noURL.status == 422 && noURL.text.contains("Where should webhook"), "\(noURL.text)")
            let wrongMethod = try await Call.call(
                .POST, url, "/__admin/stuntdouble/openapi/webhooks/maintenance",
                body: #"{"url": "\#(target)", "method": "put"}"#)
            #expect(wrongMethod.status == 422 && wrongMethod.text.contains("it has POST"), "\(wrongMethod.text)")
            #expect(receiver.stubber.journal.count == 2)
        }
    }
}
