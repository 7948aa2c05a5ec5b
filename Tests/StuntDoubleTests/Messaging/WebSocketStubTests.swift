import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Message stubs answering WebSocket tasks in process (`HTTPStubWebSocketTask`): echoes, a message on connect,
/// delays in order, closing with a code, binary frames, broadcasts to matching channels, the journal and
/// verification. Times are lower bounds; upper bounds only guard hangs.
@Suite struct WebSocketStubTests {
    static let room1 = URL(string: "wss://chat.test/rooms/1")!
    static let room2 = URL(string: "wss://chat.test/rooms/2")!

    private func text(_ message: URLSessionWebSocketTask.Message) -> String? {
        if case .string(let text) = message { text } else { nil }
    }

    @Test func anEchoAnswersEachMessage() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            messageStub: HTTPMessageStub(name: "echo").send { message, _ in .text("echo: \(message?.text ?? "")") })
        let task = HTTPStubSession(stubber: stubber).webSocketTask(with: Self.room1)
        task.resume()
        for word in ["hi", "there"] {
            try await task.send(.string(word))
            #expect(text(try await task.receive()) == "echo: \(word)")
        }
        #expect(stubber.messageJournal.map(\.direction) == [.received, .sent, .received, .sent])
        #expect(stubber.messageJournal.allSatisfy { $0.stub?.name == "echo" })
    }

    @Test func aChannelGetsItsWelcomeThenTimedMessagesThenIsClosed() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            messageStub: HTTPMessageStub().on(channel: HTTPRequestPattern().match(URL: Self.room1.absoluteString))
                .onConnect().send(.text("welcome")))
        stubber.add(
            messageStub: HTTPMessageStub().onMessage(.equalTo("go"))
                .send(.text("one"), after: 0.05).send(.text("two"), after: 0.1)
                .close(code: 1008, reason: "done", after: 0.15))
        let task = HTTPStubWebSocketTask(stubber: stubber, request: URLRequest(url: Self.room1))
        task.resume()
        #expect(text(try await task.receive()) == "welcome")
        let start = ContinuousClock.now
        try await task.send(.string("go"))
        #expect(text(try await task.receive()) == "one")
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        #expect(text(try await task.receive()) == "two")
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        await #expect(throws: URLError.self) { _ = try await task.receive() }
        #expect(task.closeCode == .policyViolation && task.closeCodeRawValue == 1008)
        #expect(task.closeReason == Data("done".utf8))
        await #expect(throws: URLError.self) { try await task.send(.string("late")) }
        #expect(stubber.channels.isEmpty, "the channel is gone")
    }

    @Test func anApplicationsOwnCloseCodeIsKept() async throws {
        let stubber = HTTPStubber()
        stubber.add(messageStub: HTTPMessageStub().onConnect().close(code: 4001, reason: "token expired"))
        let task = HTTPStubWebSocketTask(stubber: stubber, request: URLRequest(url: Self.room1))
        task.resume()
        await #expect(throws: URLError.self) { _ = try await task.receive() }
        #expect(task.closeCodeRawValue == 4001, "URLSession's CloseCode has no case for it")
        #expect(task.closeCode == .invalid)
        #expect(task.closeReason == Data("token expired".utf8))
    }

    @Test func binaryFramesMatchAndAnswerAsBytes() async throws {
        let stubber = HTTPStubber()
        stubber.add(messageStub: HTTPMessageStub().onMessage(.binary(Data([1, 2, 3]))).send(.binary(Data([3, 2, 1]))))
        let task = HTTPStubWebSocketTask(stubber: stubber, request: URLRequest(url: Self.room1))
        task.resume()
        try await task.send(.data(Data([1, 2, 3])))
        guard case .data(let data) = try await task.receive() else {
            Issue.record("expected bytes")
            return
        }
        #expect(data == Data([3, 2, 1]))
    }

    @Test func aBroadcastReachesEveryMatchingChannelAndNoOther() async throws {
        let stubber = HTTPStubber()
        let roomOne = HTTPRequestPattern().match(URL: Self.room1.absoluteString)
        stubber.add(
            messageStub: HTTPMessageStub().onMessage(.contains("hello"))
                .send(to: .channels(roomOne)) { message, request in
                    .text("\(request.url.lastPathComponent) says \(message?.text ?? "")")
                })
        let alice = HTTPStubWebSocketTask(stubber: stubber, request: URLRequest(url: Self.room1))
        let bob = HTTPStubWebSocketTask(stubber: stubber, request: URLRequest(url: Self.room1))
        let carol = HTTPStubWebSocketTask(stubber: stubber, request: URLRequest(url: Self.room2))
        for task in [alice, bob, carol] { task.resume() }
        try await alice.send(.string("hello all"))
        #expect(text(try await alice.receive()) == "1 says hello all")
        #expect(text(try await bob.receive()) == "1 says hello all")
        // The admin API's way: to every channel of room 2.
        #expect(
            stubber.send(
                .text("notice"), toChannelsMatching: HTTPRequestPattern().match(URL: Self.room2.absoluteString)) == 1)
        #expect(text(try await carol.receive()) == "notice", "room 2 got the notice, not the broadcast before it")
        let sent = stubber.messageJournal.filter { $0.direction == .sent }
        #expect(sent.map(\.channel.request.url) == [Self.room1, Self.room1, Self.room2])
    }

    @Test func verificationNamesWhatWasReceived() async throws {
        let stubber = HTTPStubber()
        let task = HTTPStubWebSocketTask(stubber: stubber, request: URLRequest(url: Self.room1))
        task.resume()
        try await task.send(.string(#"{"type": "subscribe", "topic": "prices"}"#))
        // No stub: journaled, unanswered.
        #expect(stubber.messageJournal.count == 1 && stubber.messageJournal[0].stub == nil)
        try stubber.verify(received: .json(#"{"topic": "prices", "type": "subscribe"}"#))
        try stubber.verify(
            received: .contains("subscribe"),
            onChannelsMatching: HTTPRequestPattern().match(URL: Self.room1.absoluteString))
        let error = #expect(throws: HTTPStubberError.self) { try stubber.verify(received: .equalTo("unsubscribe")) }
        #expect(error?.code == .verificationFailed)
        #expect(error?.message.contains(#"received "{\"type\": \"subscribe\""#) == true, "\(error?.message ?? "")")
        let pong = await withCheckedContinuation { continuation in
            task.sendPing { error in continuation.resume(returning: error == nil) }
        }
        #expect(pong)
        task.cancel(with: .normalClosure, reason: nil)
        #expect(task.closeCode == .normalClosure)
        await #expect(throws: URLError.self) { _ = try await task.receive() }
    }

    @Test func urlSessionsTaskIsAWebSocketTaskToo() {
        // An app holds `any WebSocketTaskProtocol`: URLSession's task in the app, HTTPStubWebSocketTask in tests.
        let tasks: [any WebSocketTaskProtocol] = [
            URLSession.shared.webSocketTask(with: Self.room1),
            HTTPStubWebSocketTask(stubber: HTTPStubber(), request: URLRequest(url: Self.room1)),
        ]
        #expect(tasks.allSatisfy { $0.closeCode == .invalid }, "neither is open")
    }
}
