import Foundation
import NIOCore
import NIOWebSocket
import StuntDouble
import StuntDoubleServer
import TestSupport
import Testing

/// The stub server's WebSocket channels, read by a SwiftNIO client (its frame codec, our handshake): the upgrade
/// on any path, message stubs answering (echo, a greeting on connect, broadcasts, binary frames, closing with a
/// code), pings, the journal, and messages too large refused with close code 1009.
@Suite struct WebSocketServerTests {
    static func stubber() -> HTTPStubber {
        let stubber = HTTPStubber()
        stubber.add(
            messageStub: HTTPMessageStub(name: "echo").on(channel: HTTPRequestPattern().match(URI: "/echo"))
                .send { message, _ in .text("echo: \(message?.text ?? "")") })
        let rooms = HTTPRequestPattern().match(URI: "/rooms/{room}")
        stubber.add(messageStub: HTTPMessageStub().on(channel: rooms).onConnect().send(.text("welcome")))
        stubber.add(
            messageStub: HTTPMessageStub().on(channel: rooms).onMessage(.contains("hello"))
                .send(to: .channels(rooms)) { message, _ in .text("all: \(message?.text ?? "")") })
        stubber.add(
            messageStub: HTTPMessageStub().on(channel: HTTPRequestPattern().match(URI: "/bytes"))
                .onMessage(.binary(Data([1, 2, 3]))).send(.binary(Data([3, 2, 1]))))
        stubber.add(
            messageStub: HTTPMessageStub().on(channel: HTTPRequestPattern().match(URI: "/expiring"))
                .onConnect().send(.text("soon"), after: 0.05).close(code: 4001, reason: "token expired", after: 0.1))
        return stubber
    }

    @Test func messageStubsAnswerOverTheNetwork() async throws {
        let stubber = Self.stubber()
        try await withStubServer(stubber: stubber) { baseURL in
            let (echo, head) = try await WebSocketTestClient.connect(to: baseURL, path: "/echo")
            #expect(head.hasPrefix("HTTP/1.1 101 Switching Protocols"), "\(head)")
            try await echo.send(text: "hi")
            #expect(try await echo.frames(count: 1).map(\.text) == ["echo: hi"])
            // A ping is answered with a pong carrying its data.
            try await echo.send(.ping, ByteBuffer(string: "are you there"))
            let pong = try await echo.frames(count: 2).last
            #expect(pong?.opcode == .pong && pong?.text == "are you there")
            await echo.close()

            let (alice, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/rooms/1")
            let (bob, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/rooms/2")
            #expect(try await alice.frames(count: 1).map(\.text) == ["welcome"], "a greeting on connect")
            #expect(try await bob.frames(count: 1).map(\.text) == ["welcome"])
            try await alice.send(text: "hello")
            #expect(try await alice.frames(count: 2).map(\.text) == ["welcome", "all: hello"])
            #expect(try await bob.frames(count: 2).map(\.text) == ["welcome", "all: hello"], "broadcast")

            let (bytes, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/bytes")
            try await bytes.send(.binary, ByteBuffer(bytes: [1, 2, 3]))
            let answer = try await bytes.frames(count: 1).first
            #expect(answer?.opcode == .binary && answer.map { Array($0.unmaskedData.readableBytesView) } == [3, 2, 1])
        }
        let received = stubber.messageJournal.filter { $0.direction == .received }.map(\.message)
        #expect(received == [.text("hi"), .text("hello"), .binary(Data([1, 2, 3]))])
        #expect(stubber.messageJournal.first?.channel.request.url.scheme == "ws")
    }

    @Test func aStubClosesWithItsCodeAndTheServerRefusesTooLargeMessages() async throws {
        try await withStubServer(stubber: Self.stubber()) { baseURL in
            let (expiring, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/expiring")
            let frames = try await expiring.frames(count: 2)
            #expect(frames.first?.text == "soon")
            #expect(frames.last?.opcode == .connectionClose && frames.last?.closeCode == 4001)
            #expect(frames.last.map { String(buffer: $0.unmaskedData).hasSuffix("token expired") } == true)

            let (big, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/echo")
            try? await big.send(.text, ByteBuffer(repeating: UInt8(ascii: "x"), count: (10 << 20) + 1))
            let refusal = try await big.frames(count: 1).first
            #expect(refusal?.opcode == .connectionClose && refusal?.closeCode == 1009, "\(String(describing: refusal))")
        }
    }

    @Test func messageSizesAreTheConfigurations() async throws {
        var configuration = HTTPStubServer.Configuration()
        configuration.webSocketLimits.maximumTextMessageSize = 8
        configuration.webSocketLimits.maximumBinaryMessageSize = 3
        try await withStubServer(stubber: Self.stubber(), configuration: configuration) { baseURL in
            let (echo, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/echo")
            try await echo.send(text: "12345678")
            #expect(try await echo.frames(count: 1).map(\.text) == ["echo: 12345678"], "the limit itself is taken")
            try await echo.send(text: "123456789")
            let refused = try await echo.frames(count: 2).last
            #expect(refused?.opcode == .connectionClose && refused?.closeCode == 1009)

            let (bytes, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/bytes")
            try await bytes.send(.binary, ByteBuffer(bytes: [1, 2, 3]))
            #expect(try await bytes.frames(count: 1).first?.opcode == .binary)
            // In two fragments, each within the limit: the message is what counts.
            try await bytes.send(.binary, ByteBuffer(bytes: [1, 2]), fin: false)
            try await bytes.send(.continuation, ByteBuffer(bytes: [3, 4]))
            let fragmented = try await bytes.frames(count: 2).last
            #expect(fragmented?.opcode == .connectionClose && fragmented?.closeCode == 1009)
        }
    }

    @Test func anIdleChannelIsClosedWith1001() async throws {
        var configuration = HTTPStubServer.Configuration()
        configuration.webSocketLimits.idleTimeout = .milliseconds(200)
        try await withStubServer(stubber: Self.stubber(), configuration: configuration) { baseURL in
            let (idle, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/echo")
            let closed = try await idle.frames(count: 1).first
            #expect(closed?.opcode == .connectionClose && closed?.closeCode == 1001, "\(String(describing: closed))")
        }
    }

    @Test func wssOnTheHTTPSListener() async throws {
        let folder = HTTPSTests.Folder()
        let stubber = Self.stubber()
        var configuration = HTTPStubServer.Configuration()
        configuration.https = .init(identity: .generated(authorityFolder: folder.url))
        try await HTTPSTests.serve(stubber, configuration) { server, authority in
            let base = try #require(server.httpsBaseURL)
            guard let authority else {
                Issue.record("the server made no certificate authority")
                return
            }
            let (echo, head) = try await WebSocketTestClient.connect(to: base, path: "/echo", trusting: authority)
            #expect(head.hasPrefix("HTTP/1.1 101"), "\(head)")
            try await echo.send(text: "secret")
            #expect(try await echo.frames(count: 1).map(\.text) == ["echo: secret"])
            await echo.close()
        }
        #expect(stubber.messageJournal.first?.channel.request.url.scheme == "wss")
    }

    /// WireMock 4's admin endpoints for channels: list them, send to those a request pattern matches, read and
    /// clear the message journal.
    @Test func theAdminAPIListsChannelsSendsToThemAndShowsTheMessages() async throws {
        try await withStubServer(stubber: Self.stubber()) { baseURL in
            let (alice, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/rooms/1")
            let (bob, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/rooms/2?name=bob")
            _ = try await alice.frames(count: 1)
            _ = try await bob.frames(count: 1)
            let listed = try await AdminAPITests.call(.GET, baseURL, "/__admin/channels")
            #expect((listed.object["meta"] as? [String: Any])?["total"] as? Int == 2, "\(listed.text)")
            let sent = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/channels/send",
                body:
                    #"{"type": "websocket", "initiatingRequest": {"urlPath": "/rooms/2"}, "message": {"body": {"data": "notice"}}}"#
            )
            #expect(sent.status == 200, "\(sent.text)")
            #expect(sent.object["channelsMessaged"] as? Int == 1)
            #expect(try await bob.frames(count: 2).map(\.text) == ["welcome", "notice"])
            #expect(try await alice.frames(count: 1).count == 1, "room 1 got nothing more")
            let json = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/channels/send",
                body: #"{"initiatingRequest": {"url": "/rooms/1"}, "message": {"body": {"data": {"n": 1}}}}"#)
            #expect(json.object["channelsMessaged"] as? Int == 1)
            #expect(try await alice.frames(count: 2).last?.text == #"{"n":1}"#)

            let messages = try await AdminAPITests.call(.GET, baseURL, "/__admin/messages")
            let events = try #require(messages.object["messageServeEvents"] as? [[String: Any]])
            #expect(events.first?["message"] as? String == #"{"n":1}"#, "newest first")
            #expect(events.first?["eventType"] as? String == "sent")
            #expect(events.count == 4, "two greetings, two notices")
            #expect(try await AdminAPITests.call(.DELETE, baseURL, "/__admin/messages").status == 200)
            let cleared = try await AdminAPITests.call(.GET, baseURL, "/__admin/messages")
            #expect((cleared.object["messageServeEvents"] as? [Any])?.isEmpty == true)

            let bad = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/channels/send", body: #"{"initiatingRequest": {"url": "/x"}}"#)
            #expect(bad.status == 422 && bad.text.contains("message is required"), "\(bad.text)")
            await alice.close()
            await bob.close()
        }
    }

    @Test func aRequestThatIsNoValidUpgradeIsAnsweredAsHTTP() async throws {
        try await withStubServer(stubber: Self.stubber()) { baseURL in
            let connection = try await RawConnection.connect(to: baseURL)
            // No Sec-WebSocket-Key: an ordinary request, which no HTTP stub matches.
            try await connection.send(
                "GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
            #expect(try #require(try await connection.readResponse()).status == 404)
            await connection.close()
        }
    }
}
