import AsyncHTTPClient
import Foundation
import InMemoryLogging
import Logging
import NIOCore
import StuntDouble
import StuntDoubleServer
import Testing

/// Webhooks on the wire: a stub file's webhook is sent after its response, to another real server, templated
/// from the request; a failing one changes nothing but the log and the admin API's record.
@Suite struct WebhookTests {
    typealias Call = AdminAPITests

    /// A server that receives webhooks: `POST /hooks/...` answers 204 and `GET /hooks/...` 200; its journal
    /// holds what arrived.
    static func withReceiver(_ body: (URL, HTTPStubServer) async throws -> Void) async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: try HTTPStubRequest().match(urlRegex: "/hooks/").stub(for: .post, code: .noContent)
                .stub(for: .get, body: "seen"))
        let receiver = HTTPStubServer(stubber: stubber)
        try await Call.serving(receiver) { url in try await body(url, receiver) }
    }

    /// The sending server's record of its webhooks, once none is pending (each one waited for at most 120 s).
    static func settledWebhooks(_ url: URL, count: Int) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            let list = try await Call.call(.GET, url, "/__admin/stuntdouble/webhooks")
            let webhooks = list.object["webhooks"] as? [[String: Any]] ?? []
            if webhooks.count >= count, !webhooks.contains(where: { $0["state"] as? String == "pending" }) {
                return webhooks
            }
            if ContinuousClock.now > deadline {
                Issue.record("webhooks still pending after 120 s: \(webhooks)")
                return webhooks
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func aWebhookFollowsTheResponseTemplatedFromTheRequest() async throws {
        try await Self.withReceiver { receiverURL, receiver in
            let mapping = """
                {"request": {"method": "POST", "urlPath": "/orders"},
                 "response": {"status": 201, "body": "created"},
                 "postServeActions": [{"name": "webhook", "parameters": {
                   "method": "POST", "url": "\(receiverURL.absoluteString)/hooks/{{jsonPath originalRequest.body '$.id'}}",
                   "headers": {"Content-Type": "application/json", "X-Order-Source": "{{originalRequest.headers.X-Source}}"},
                   "body": "{\\"order\\": \\"{{jsonPath originalRequest.body '$.id'}}\\", \\"team\\": \\"{{parameters.team}}\\"}",
                   "team": "billing"}}]}
                """
            try await Call.withServer(files: ["mappings/orders.json": mapping]) { url, _, root in
                let reply = try await Call.call(
                    .POST, url, "/orders", body: #"{"id": "A7"}"#, headers: [("X-Source", "shop")])
                #expect(reply.status == 201 && reply.text == "created", "the response is the stub's, as ever")
                let webhooks = try await Self.settledWebhooks(url, count: 1)
                #expect(webhooks.first?["state"] as? String == "answered", "\(webhooks)")
                #expect(webhooks.first?["status"] as? Int == 204)
                #expect(webhooks.first?["source"] as? String == root.path + "/mappings/orders.json:3:57")
                #expect(webhooks.first?["url"] as? String == receiverURL.absoluteString + "/hooks/A7")

                let arrived = try #require(receiver.stubber.journal.first)
                #expect(arrived.request.method == .post)
                #expect(arrived.request.url.path == "/hooks/A7")
                #expect(arrived.request.headers["X-Order-Source"] == "shop")
                #expect(arrived.request.headers["Content-Type"] == "application/json")
                #expect(
                    arrived.request.body.map { String(decoding: $0, as: UTF8.self) }
                        == #"{"order": "A7", "team": "billing"}"#)
            }
        }
    }

    @Test func aDelayedWebhookWaitsAndAFailingOneChangesNothingButTheRecord() async throws {
        let handler = InMemoryLogHandler()
        var configuration = HTTPStubServer.Configuration()
        configuration.logger = Logger(label: "test") { _ in handler }
        configuration.logger.logLevel = .info
        try await Self.withReceiver { receiverURL, receiver in
            let mapping = """
                {"request": {"method": "GET", "urlPath": "/pay"}, "response": {"status": 200, "body": "paid"},
                 "serveEventListeners": [
                   {"name": "webhook", "parameters": {"url": "http://127.0.0.1:1/unreachable"}},
                   {"name": "webhook", "parameters": {"url": "{{originalRequest.query.target}}"}},
                   {"name": "webhook", "parameters": {"url": "\(receiverURL.absoluteString)/hooks/late",
                     "delay": {"type": "fixed", "milliseconds": 300}}}]}
                """
            try await Call.withServer(files: ["mappings/pay.json": mapping], configuration: configuration) {
                url, server, root in
                let file = root.path + "/mappings/pay.json"
                let reply = try await Call.call(.GET, url, "/pay")
                #expect(reply.status == 200 && reply.text == "paid")
                let webhooks = try await Self.settledWebhooks(url, count: 3)
                let byURL = Dictionary(webhooks.map { ($0["url"] as? String ?? "", $0) }) { first, _ in first }

                let unreachable = try #require(byURL["http://127.0.0.1:1/unreachable"])
                #expect(unreachable["state"] as? String == "failed")
                #expect(
                    (unreachable["error"] as? String)?.hasPrefix(
                        "Failed to fire the webhook GET http://127.0.0.1:1/unreachable (\(file):3:38, after request #1): "
                    ) == true, "\(unreachable)")
                let empty = try #require(byURL[""])
                #expect(
                    empty["error"] as? String
                        == "The webhook GET  (\(file):4:38, after request #1) cannot be sent: its url is \"\", not an http or https URL."
                )

                let late = try #require(byURL[receiverURL.absoluteString + "/hooks/late"])
                #expect(late["state"] as? String == "answered" && late["status"] as? Int == 200)
                #expect(late["delayMilliseconds"] as? Int == 300)
                let arrival = try #require(receiver.stubber.journal.first)
                #expect(arrival.request.url.path == "/hooks/late")
                #expect(arrival.request.body == nil || arrival.request.body?.isEmpty == true, "GET sends no body")
                // Sent its delay after the response at the earliest (which came after the request).
                let request = try #require(server.stubber.journal.first)
                let sentAfter = arrival.receivedAt.timeIntervalSince(request.receivedAt)
                #expect(sentAfter >= 0.3, "the delay of 300 ms was waited (\(sentAfter) s)")

                let logged = handler.entries.map(\.message.description)
                #expect(
                    logged.contains { $0.hasPrefix("Failed to fire the webhook GET http://127.0.0.1:1/unreachable") })
                #expect(
                    logged.contains {
                        $0.contains("/hooks/late (\(file):5:38, after request #1) returned status 200: seen")
                    }, "\(logged)")
                // The requests the webhooks made are the receiver's, not the journal of the server that sent them.
                let journal = try await Call.call(.GET, url, "/__admin/requests")
                #expect((journal.object["requests"] as? [Any])?.count == 1)
            }
        }
    }

    @Test func stoppingTheServerCancelsWebhooksStillWaiting() async throws {
        let handler = InMemoryLogHandler()
        var configuration = HTTPStubServer.Configuration()
        configuration.logger = Logger(label: "test") { _ in handler }
        let mapping = """
            {"request": {"urlPath": "/slow-hook"}, "response": {"status": 200},
             "postServeActions": {"webhook": {"url": "http://127.0.0.1:9/never", "delay": {"type": "fixed", "milliseconds": 600000}}}}
            """
        var file = ""
        try await Call.withServer(files: ["mappings/slow.json": mapping], configuration: configuration) {
            url, _, root in
            file = root.path + "/mappings/slow.json"
            #expect(try await Call.call(.GET, url, "/slow-hook").status == 200)
            let list = try await Self.pendingWebhooks(url)
            #expect(list.first?["state"] as? String == "pending")
            #expect(list.first?["delayMilliseconds"] as? Int == 600_000)
        }
        // withServer stopped the server: the waiting webhook was cancelled rather than kept alive.
        let logged = handler.entries.map(\.message.description)
        #expect(
            logged.contains {
                $0.contains("/never (\(file):2:34, after request #1) was not sent: the server stopped first")
            }, "\(logged)")
    }

    /// The webhooks recorded, once there is one.
    static func pendingWebhooks(_ url: URL) async throws -> [[String: Any]] {
        for _ in 0..<1500 {
            let list = try await Call.call(.GET, url, "/__admin/stuntdouble/webhooks")
            if let webhooks = list.object["webhooks"] as? [[String: Any]], !webhooks.isEmpty { return webhooks }
            try await Task.sleep(for: .milliseconds(20))
        }
        return []
    }

    @Test func resettingTheJournalForgetsTheWebhooksRecord() async throws {
        let mapping = """
            {"request": {"urlPath": "/x"}, "postServeActions": [{"name": "webhook", "parameters": {"url": "{{originalRequest.query.nothing}}"}}]}
            """
        try await Call.withServer(files: ["mappings/x.json": mapping]) { url, _, _ in
            _ = try await Call.call(.GET, url, "/x")
            #expect(try await Self.settledWebhooks(url, count: 1).count == 1)
            _ = try await Call.call(.DELETE, url, "/__admin/requests")
            let list = try await Call.call(.GET, url, "/__admin/stuntdouble/webhooks")
            #expect((list.object["webhooks"] as? [Any])?.isEmpty == true)
        }
    }
}
