import Foundation
import NIOCore
import NIOWebSocket
import StuntDouble
import StuntDoubleServer
import Testing

/// WireMock 4's message stub mappings on the server: files in `message-mappings/` (one mapping, or
/// `{"messageMappings": [...]}`) answering WebSocket clients, with WireMock's triggers, targets, bodies and
/// templating, and StuntDouble's `connect` trigger, `close` action and delays; `/__admin/message-mappings`.
@Suite struct MessageMappingServerTests {
    static let files: [String: String] = [
        "message-mappings/game.json": #"""
        { "id": "5b0c7e0e-1111-4a2b-9c3d-000000000001", "name": "ping-pong", "priority": 1,
          "trigger": { "type": "message",
            "channel": { "type": "websocket", "initiatingRequestPattern": { "urlPath": "/game" } },
            "message": { "body": { "equalTo": "ping" } } },
          "actions": [ { "type": "send", "message": { "body": "pong" } } ],
          "metadata": { "suite": "game" } }
        """#,
        "message-mappings/catch-all.json": #"""
        { "name": "anything on /game",
          "trigger": { "channel": { "initiatingRequestPattern": { "urlPath": "/game" } } },
          "actions": [ { "type": "send", "message": { "body": { "data": "what?" } } } ] }
        """#,
        "message-mappings/feeds.json": #"""
        { "messageMappings": [
          { "name": "subscribe",
            "trigger": { "type": "message",
              "channel": { "type": "websocket", "initiatingRequestPattern": {
                "urlPathPattern": "/feeds/[a-z]+", "headers": { "X-Token": { "matches": "t-.*" } } } },
              "message": { "body": { "matchesJsonPath": { "expression": "$.op", "equalTo": "sub" } } } },
            "actions": [ { "type": "send", "channelTarget": { "type": "originating" },
              "message": { "body": { "data": "{\"ok\":true,\"topic\":\"{{jsonPath message.body '$.topic'}}\",\"path\":\"{{request.path}}\"}" } } } ] },
          { "name": "say",
            "trigger": { "message": { "body": { "contains": "\"say\"" } } },
            "actions": [ { "type": "send",
              "channelTarget": { "type": "request-initiated", "channelType": "websocket",
                                 "requestPattern": { "urlPathPattern": "/room/.*" } },
              "message": { "body": { "data": "{{message.body}}" } } } ] },
          { "name": "bytes", "trigger": { "message": { "body": { "binaryEqualTo": "AAEC" } } },
            "actions": [
              { "type": "send", "message": { "body": { "base64Data": "/wD/" } } },
              { "type": "send", "message": { "body": { "filePath": "ws/ack.txt" } } } ] } ] }
        """#,
        "message-mappings/orders.json": #"""
        { "messageMappings": [
          { "name": "order-push",
            "trigger": { "type": "http-request", "requestPattern": { "method": "POST", "urlPath": "/orders" } },
            "actions": [ { "type": "send",
              "channelTarget": { "type": "request-initiated", "requestPattern": { "urlPath": "/orders/updates" } },
              "message": { "body": { "data": { "event": "created", "id": "{{jsonPath request.body '$.id'}}" } } } } ] },
          { "trigger": { "type": "http-stub", "stubId": "0f0f0f0f-0000-4000-8000-000000000001" },
            "actions": [ { "type": "send",
              "channelTarget": { "type": "request-initiated", "requestPattern": { "urlPath": "/orders/updates" } },
              "message": { "body": "stub hit" } } ] } ] }
        """#,
        "message-mappings/session.json": #"""
        { "name": "expiring session",
          "trigger": { "type": "connect", "channel": { "initiatingRequestPattern": { "urlPath": "/session" } } },
          "actions": [
            { "type": "send", "message": { "body": "hello" } },
            { "type": "send", "message": { "body": "soon" }, "delayMilliseconds": 50 },
            { "type": "close", "code": 4001, "reason": "token expired", "delayMilliseconds": 100 } ] }
        """#,
        "mappings/status.json": #"""
        { "id": "0f0f0f0f-0000-4000-8000-000000000001",
          "request": { "method": "GET", "url": "/status" }, "response": { "status": 200, "body": "up" } }
        """#,
        "__files/ws/ack.txt": "ack",
    ]

    @Test func messageMappingFilesAnswerAsInWireMock() async throws {
        try await AdminAPITests.withServer(files: Self.files) { baseURL, _, _ in
            let (game, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/game")
            try await game.send(text: "ping")
            #expect(try await game.frames(count: 1).map(\.text) == ["pong"], "priority 1 wins over the catch-all")
            try await game.send(text: "pong?")
            #expect(try await game.frames(count: 2).map(\.text) == ["pong", "what?"])

            let (feed, _) = try await WebSocketTestClient.connect(
                to: baseURL, path: "/feeds/news?x=1", headers: [("X-Token", "t-123")])
            try await feed.send(text: #"{"op": "sub", "topic": "sports"}"#)
            #expect(
                try await feed.frames(count: 1).map(\.text) == [#"{"ok":true,"topic":"sports","path":"/feeds/news"}"#])
            let (stranger, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/feeds/news")
            try await stranger.send(text: #"{"op": "sub", "topic": "sports"}"#)

            let (alice, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/room/1")
            let (bob, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/room/2")
            try await alice.send(text: #"{"say": "hi"}"#)
            #expect(try await alice.frames(count: 1).map(\.text) == [#"{"say": "hi"}"#], "the sender is in the room")
            #expect(try await bob.frames(count: 1).map(\.text) == [#"{"say": "hi"}"#])

            try await bob.send(.binary, ByteBuffer(bytes: [0, 1, 2]))
            let answers = try await bob.frames(count: 3).dropFirst()
            #expect(answers.first?.opcode == .binary)
            #expect(answers.first.map { Array($0.unmaskedData.readableBytesView) } == [0xFF, 0, 0xFF])
            #expect(answers.last?.opcode == .text && answers.last?.text == "ack", "filePath under __files/")

            // HTTP requests set stubs off: any POST /orders, and the mapping with the id answering.
            let (updates, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/orders/updates")
            let post = try await AdminAPITests.call(.POST, baseURL, "/orders", body: #"{"id": "o-7"}"#)
            #expect(post.status == 404, "no HTTP stub answers it; the trigger fires all the same")
            let pushed = try await updates.frames(count: 1).first?.text ?? ""
            #expect(
                pushed == "{\n  \"event\" : \"created\",\n  \"id\" : \"o-7\"\n}", "as WireMock writes a data object")
            #expect(try await AdminAPITests.call(.GET, baseURL, "/status").text == "up")
            #expect(try await updates.frames(count: 2).last?.text == "stub hit")

            let (session, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/session")
            let frames = try await session.frames(count: 3)
            #expect(frames.prefix(2).map(\.text) == ["hello", "soon"])
            #expect(frames.last?.opcode == .connectionClose && frames.last?.closeCode == 4001)
            for client in [game, feed, stranger, alice, bob, updates] { await client.close() }
            #expect(try await stranger.frames(count: 1).isEmpty, "without the header no stub matched")
        }
    }

    @Test func theAdminAPIManagesMessageMappings() async throws {
        try await AdminAPITests.withServer(files: Self.files) { baseURL, _, _ in
            let listed = try await AdminAPITests.call(.GET, baseURL, "/__admin/message-mappings")
            let mappings = try #require(listed.object["messageMappings"] as? [[String: Any]])
            #expect((listed.object["meta"] as? [String: Any])?["total"] as? Int == 8, "\(listed.text)")
            #expect(mappings.first?["name"] as? String == "ping-pong", "priority 1 first")

            let created = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/message-mappings",
                body: #"""
                    { "name": "echo", "priority": 2, "metadata": { "suite": "echo" },
                      "trigger": { "channel": { "initiatingRequestPattern": { "urlPath": "/echo" } } },
                      "actions": [ { "type": "send", "message": { "body": { "data": "echo {{message.body}}" } } } ] }
                    """#)
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(created.object["id"] as? String)
            let (echo, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/echo")
            try await echo.send(text: "one")
            #expect(try await echo.frames(count: 1).map(\.text) == ["echo one"])

            let replaced = try await AdminAPITests.call(
                .PUT, baseURL, "/__admin/message-mappings/\(id)",
                body: #"""
                    { "trigger": { "channel": { "initiatingRequestPattern": { "urlPath": "/echo" } } },
                      "actions": [ { "type": "send", "message": { "body": "changed" } } ] }
                    """#)
            #expect(replaced.status == 200 && replaced.object["id"] as? String == id, "\(replaced.text)")
            try await echo.send(text: "two")
            #expect(try await echo.frames(count: 2).last?.text == "changed")
            #expect(try await AdminAPITests.call(.GET, baseURL, "/__admin/message-mappings/\(id)").status == 200)

            let found = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/message-mappings/find-by-metadata",
                body: #"{"matchesJsonPath": {"expression": "$.suite", "equalTo": "game"}}"#)
            #expect(
                (found.object["messageMappings"] as? [[String: Any]])?.map { $0["name"] as? String } == ["ping-pong"])
            _ = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/message-mappings/remove-by-metadata",
                body: #"{"matchesJsonPath": {"expression": "$.suite", "equalTo": "game"}}"#)
            let (game, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/game")
            try await game.send(text: "ping")
            #expect(try await game.frames(count: 1).map(\.text) == ["what?"], "ping-pong removed")

            #expect(try await AdminAPITests.call(.DELETE, baseURL, "/__admin/message-mappings/\(id)").status == 200)
            #expect(try await AdminAPITests.call(.GET, baseURL, "/__admin/message-mappings/\(id)").status == 404)
            let notUUID = try await AdminAPITests.call(.GET, baseURL, "/__admin/message-mappings/nope")
            #expect(notUUID.status == 400 && notUUID.text.contains("nope is not a valid UUID"), "\(notUUID.text)")

            let bad = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/message-mappings",
                body: #"{ "actions": [ { "type": "send", "channelTarget": { "type": "originating" } } ] }"#)
            #expect(bad.status == 422 && bad.text.contains("message is required"), "\(bad.text)")
            let unknown = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/message-mappings", body: #"{ "trigger": {}, "acitons": [] }"#)
            #expect(unknown.status == 422 && unknown.text.contains("actions"), "\(unknown.text)")

            // A reset reads the files again: the removed mapping is back, nothing twice.
            #expect(try await AdminAPITests.call(.POST, baseURL, "/__admin/reset").status == 200)
            let reset = try await AdminAPITests.call(.GET, baseURL, "/__admin/message-mappings")
            #expect((reset.object["meta"] as? [String: Any])?["total"] as? Int == 8, "\(reset.text)")
            let journal = try await AdminAPITests.call(.GET, baseURL, "/__admin/messages")
            #expect((journal.object["messageServeEvents"] as? [Any])?.isEmpty == true, "the message journal cleared")
            #expect(try await AdminAPITests.call(.DELETE, baseURL, "/__admin/message-mappings").status == 200)
            let emptied = try await AdminAPITests.call(.GET, baseURL, "/__admin/message-mappings")
            #expect((emptied.object["meta"] as? [String: Any])?["total"] as? Int == 0)
            await echo.close()
            await game.close()
        }
    }

    /// The message journal's searches and waits, and channels by id, as WireMock 4's admin API has them.
    @Test func theMessageJournalIsSearchedAndWaitedFor() async throws {
        try await AdminAPITests.withServer(files: Self.files) { baseURL, _, _ in
            let (game, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/game?player=1")
            try await game.send(text: "ping")
            _ = try await game.frames(count: 1)
            let count = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/messages/count", body: #"{"body": {"equalTo": "ping"}}"#)
            #expect(count.object["count"] as? Int == 1, "\(count.text)")
            let all = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/messages/count", body: #"{"channel": {"urlPath": "/game"}}"#)
            #expect(all.object["count"] as? Int == 2, "either way: ping received, pong sent")
            let found = try await AdminAPITests.call(.POST, baseURL, "/__admin/messages/find", body: "{}")
            let events = try #require(found.object["messageServeEvents"] as? [[String: Any]])
            #expect(events.map { $0["eventType"] as? String } == ["received", "sent"], "oldest first")
            #expect((events.first?["stubMapping"] as? [String: Any])?["name"] as? String == "ping-pong")
            let channel = try #require(events.first?["channel"] as? [String: Any])
            #expect((channel["initiatingRequest"] as? [String: Any])?["url"] as? String == "/game?player=1")
            let eventID = try #require(events.first?["id"] as? String)
            let one = try await AdminAPITests.call(.GET, baseURL, "/__admin/messages/\(eventID)")
            #expect(one.object["message"] as? String == "ping")

            // A wait answered by a message that comes after it began.
            async let waited = AdminAPITests.call(
                .POST, baseURL, "/__admin/messages/wait-for-count",
                body: #"{"pattern": {"body": {"contains": "late"}}, "timeoutMillis": 30000, "count": 2}"#)
            try await game.send(text: "late 1")
            try await game.send(text: "late 2")
            let late = try await waited
            #expect((late.object["messageServeEvents"] as? [[String: Any]])?.count == 2, "\(late.text)")
            let timedOut = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/messages/wait",
                body: #"{"pattern": {"body": {"equalTo": "never"}}, "timeoutMillis": 50}"#)
            #expect(
                timedOut.status == 200 && timedOut.text.trimmingCharacters(in: .whitespacesAndNewlines) == "null",
                "\(timedOut.text)")
            let partial = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/messages/wait-for-count",
                body: #"{"pattern": {"body": {"equalTo": "ping"}}, "timeoutMillis": 50, "count": 5}"#)
            #expect((partial.object["messageServeEvents"] as? [Any])?.count == 1, "the partial list")

            let removed = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/messages/remove", body: #"{"body": {"contains": "late"}}"#)
            #expect((removed.object["messageServeEvents"] as? [Any])?.count == 2)
            #expect(try await AdminAPITests.call(.DELETE, baseURL, "/__admin/messages/\(eventID)").status == 200)
            let left = try await AdminAPITests.call(.POST, baseURL, "/__admin/messages/count", body: "{}")
            #expect(left.object["count"] as? Int == 3, "pong, and the two catch-all answers: \(left.text)")
            let badPattern = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/messages/count", body: #"{"body": {"equalsTo": "x"}}"#)
            #expect(badPattern.status == 422, "\(badPattern.text)")

            let channels = try await AdminAPITests.call(.GET, baseURL, "/__admin/channels")
            let id = try #require((channels.object["channels"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await AdminAPITests.call(.GET, baseURL, "/__admin/channels/\(id)").status == 200)
            #expect(try await AdminAPITests.call(.DELETE, baseURL, "/__admin/channels/\(id)").status == 200)
            let close = try await game.frames(count: 4).last
            #expect(close?.opcode == .connectionClose && close?.closeCode == 1000)
            #expect(close.map { String(buffer: $0.unmaskedData).hasSuffix("Closed by server") } == true)
            #expect(try await AdminAPITests.call(.GET, baseURL, "/__admin/channels/\(id)").status == 404)
        }
    }
}
