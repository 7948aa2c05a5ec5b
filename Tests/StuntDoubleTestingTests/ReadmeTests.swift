import Foundation
import StuntDouble
import StuntDoubleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The README's quick start, as written.
@Suite(.stubbed) struct UserTests {  // each test gets its own stubber: safe in parallel
    @Test func loadsTheUser() async throws {
        let user = HTTPStubRequest()
            .match(URI: "https://api.example.com/users/{id}")
            .stub(
                for: .get,
                responseProvider: { request, _ in
                    .json(#"{"id": "\#(request[templateVariable: "id"]!)"}"#)
                })
        HTTPStubber.current.add(stub: user)

        let session = HTTPStubSession()  // give it to the code under test (no URLSession involved)
        let (data, response) = try await session.data(from: URL(string: "https://api.example.com/users/42")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data == Data(#"{"id": "42"}"#.utf8))
        HTTPStubber.current.expect(user, called: .once)
    }
}

/// The README's server-sent events example, as written (printing aside).
@Suite struct ReadmeEventStreamTests {
    @Test func aChatCompletionStreamArrivesEventByEvent() async throws {
        let stubber = HTTPStubber()
        var request = URLRequest(url: URL(string: "https://api.openai.example/v1/chat/completions")!)
        request.httpMethod = "POST"

        stubber.add(
            stub: HTTPStubRequest()
                .match(URL: "https://api.openai.example/v1/chat/completions")
                .stub(
                    for: .post,
                    response: .eventStream([
                        HTTPStubEvent(data: #"{"choices":[{"delta":{"content":"Hel"}}]}"#, delay: 0.05),
                        HTTPStubEvent(data: #"{"choices":[{"delta":{"content":"lo"}}]}"#, delay: 0.05),
                        HTTPStubEvent(data: "[DONE]", delay: 0.05),
                    ])))

        let (body, _) = try await HTTPStubSession(stubber: stubber).stream(for: request)
        var parts: [String] = []
        for try await part in body { parts.append(String(decoding: part, as: UTF8.self)) }  // one event every 50 ms
        #expect(
            parts == [
                "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\n", "data: [DONE]\n\n",
            ])
    }
}

/// The README's WebSocket example, as written.
@Suite struct ReadmeWebSocketTests {
    @Test func aPingIsAnsweredWithAPong() async throws {
        let stubber = HTTPStubber()
        stubber.add(messageStub: HTTPMessageStub().onMessage(.equalTo("ping")).send(.text("pong"), after: 0.05))
        let task = HTTPStubSession(stubber: stubber).webSocketTask(with: URL(string: "wss://chat.example.com/")!)
        task.resume()
        try await task.send(.string("ping"))
        let pong = try await task.receive()  // .string("pong"), 50 ms later
        guard case .string(let text) = pong else {
            Issue.record("expected text, got \(pong)")
            return
        }
        #expect(text == "pong")
    }
}
