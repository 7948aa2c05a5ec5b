import Foundation
import StuntDouble
import StuntDoubleWireMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// WireMock 4's message stub mappings (`message-mappings/`) read in process: they answer
/// ``HTTPStubWebSocketTask``s as the server's channels are answered, and every malformed part is reported at its
/// file, line and column.
@Suite struct StubFileMessageTests {
    static func task(_ stubber: HTTPStubber, _ url: String) -> HTTPStubWebSocketTask {
        let task = HTTPStubWebSocketTask(stubber: stubber, request: URLRequest(url: URL(string: url)!))
        task.resume()
        return task
    }

    static func text(_ message: URLSessionWebSocketTask.Message) -> String? {
        if case .string(let text) = message { text } else { nil }
    }

    @Test func messageMappingsAnswerInProcess() async throws {
        let root = try StubRoot([
            "message-mappings/chat.json": #"""
            { "messageMappings": [
              { "trigger": { "type": "connect", "channel": { "initiatingRequestPattern": { "urlPath": "/chat" } } },
                "actions": [ { "type": "send", "message": { "body": "hello {{request.query.name}}" } } ] },
              { "trigger": { "message": { "body": { "matchesJsonPath": "$.text" } } },
                "actions": [ { "type": "send", "message": { "body": { "data": "you said {{jsonPath message.body '$.text'}}" } } },
                             { "type": "close", "code": 4002, "reason": "bye", "delayMilliseconds": 10 } ] },
              { "trigger": { "type": "http-request", "requestPattern": { "method": "POST", "urlPath": "/news" } },
                "actions": [ { "type": "send", "channelTarget": { "type": "request-initiated" },
                               "message": { "body": { "base64Data": "AQID" } } } ] } ] }
            """#,
            "mappings/news.json": #"{"request": {"method": "POST", "url": "/news"}, "response": {"status": 202}}"#,
        ])
        #expect(root.problems.isEmpty, "\(root.problems)")
        #expect(root.files.messageMappingCount == 3)
        let stubber = try root.stubber()
        let task = Self.task(stubber, "wss://chat.example.com/chat?name=ann")
        #expect(Self.text(try await task.receive()) == "hello ann")

        // An HTTP request through any path sets off the http-request trigger.
        let session = HTTPStubSession(stubber: stubber)
        var request = URLRequest(url: URL(string: "https://chat.example.com/news")!)
        request.httpMethod = "POST"
        let (_, response) = try await session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 202)
        if case .data(let bytes) = try await task.receive() {
            #expect(bytes == Data([1, 2, 3]))
        } else {
            Issue.record("expected the binary frame")
        }

        try await task.send(.string(#"{"text": "hi"}"#))
        #expect(Self.text(try await task.receive()) == "you said hi")
        await #expect(throws: (any Error).self) { try await task.receive() }
        #expect(task.closeCodeRawValue == 4002)
        #expect(stubber.messageJournal.map(\.direction) == [.sent, .sent, .received, .sent])
    }

    @Test func aDataObjectIsWrittenAsWireMockWritesIt() {
        let node = JSONNode.parse(
            lenient: Data(#"{"a": [1, {"b": "x\"y"}], "c": {}, "d": [], "e": {"f": null}}"#.utf8))!
        #expect(
            MessageMappingSpec.jacksonPretty(node)
                == "{\n  \"a\" : [ 1, {\n    \"b\" : \"x\\\"y\"\n  } ],\n  \"c\" : { },\n  \"d\" : [ ],\n  \"e\" : {\n    \"f\" : null\n  }\n}"
        )
    }

    /// Jackson keeps the last value of a key written twice, where the key first was, and the text templated is
    /// that object's: a quote opened in the last value is not closed by one in the first (a fuzzer found the
    /// mapping that read once, then not again when written back).
    @Test func aKeyWrittenTwiceInADataObjectKeepsItsLastValue() throws {
        let node = try #require(JSONNode.parse(lenient: Data(#"{"a": 1, "b": 2, "a": {"c": 3}}"#.utf8)))
        #expect(MessageMappingSpec.jacksonPretty(node) == "{\n  \"a\" : {\n    \"c\" : 3\n  },\n  \"b\" : 2\n}")

        let split =
            #"{"actions": [{"type": "send", "message": {"body": {"data": {"id": "{{jsonPath 'a}}", "id": "{{jsonPath 'b}}"}}}}]}"#
        let (specs, problems) = StubFiles.readMessageMappings(
            json: Data(split.utf8), name: "m.json", filesDirectory: nil)
        #expect(specs.isEmpty)
        #expect(problems.map(\.message).contains { $0.contains("never closed with its quote") }, "\(problems)")
    }

    /// Each malformed mapping, the diagnostic's field and message, and what its column points at.
    @Test(arguments: [
        (
            #"{"trigger": {"type": "websocket-open"}}"#, "error: trigger.type: unknown trigger type",
            #""websocket-open""#
        ),
        (#"{"trigger": {"type": "http-request"}}"#, "error: trigger: requestPattern is required", #"{"type": "http-"#),
        (#"{"trigger": {"type": "http-stub", "stubId": "x"}}"#, "error: trigger.stubId: \"x\" is not a UUID", #""x"}"#),
        (
            #"{"trigger": {"message": {"body": {"equalsTo": "x"}}}}"#, "error: trigger.message.body",
            #"{"equalsTo"#
        ),
        (
            #"{"trigger": {"channel": {"type": "fixed", "channelName": {}}}}"#,
            "error: trigger.channel.type: \"fixed\"",
            #""fixed""#
        ),
        (#"{"actions": [{"message": {"body": "x"}}]}"#, "error: actions[0]: type is required", #"{"message""#),
        (#"{"actions": [{"type": "send"}]}"#, "error: actions[0]: message is required", #"{"type": "send"}"#),
        (
            #"{"actions": [{"type": "send", "message": {"body": {"base64Data": "%%"}}}]}"#,
            "error: actions[0].message.body.base64Data: not valid base64", #""%%""#
        ),
        (
            #"{"actions": [{"type": "send", "message": {"body": {"data": "a", "filePath": "b"}}}]}"#,
            "error: actions[0].message.body: give one of data, filePath", #"{"data": "a""#
        ),
        (
            #"{"actions": [{"type": "send", "message": {"body": {"filePath": "missing.txt"}}}]}"#,
            "error: actions[0].message.body.filePath: filePath \"missing.txt\"", #""missing.txt""#
        ),
        (
            #"{"actions": [{"type": "send", "message": {"body": "{{#if}}"}}]}"#,
            "error: actions[0].message.body: the message template cannot be compiled", #"{{#if}}"#
        ),
        (#"{"actions": [{"type": "close", "code": 1005}]}"#, "error: actions[0].code: 1005 is no close code", "1005"),
        (
            #"{"actions": [{"type": "send", "message": {"body": "x"}, "delayMilliseconds": -3}]}"#,
            "error: actions[0].delayMilliseconds: expected milliseconds", "-3"
        ),
        (
            #"{"actions": [{"type": "send", "message": {"body": "x"}, "channelTarget": {"type": "fixed-channel"}}]}"#,
            "error: actions[0].channelTarget.type: the channel target \"fixed-channel\"", #"{"type": "fixed-channel"}"#
        ),
        (
            #"{"trigger": {"type": "http-request", "requestPattern": {"url": "/x"}}, "actions": [{"type": "send", "message": {"body": "x"}}]}"#,
            "warning: actions[0]: an HTTP trigger has no originating channel", #"{"type": "send""#
        ),
        (#"{"actoins": []}"#, "warning: actoins: unknown field; WireMock 2.35.1 refuses the file", #""actoins""#),
        (#"[]"#, "error: a message mapping file holds one mapping object", "[]"),
    ])
    func malformedMessageMappingsAreReportedWhereTheyAre(json: String, expected: String, at place: String) throws {
        let root = try StubRoot(["message-mappings/m.json": json, "__files/.keep": ""])
        let column = try #require(json.range(of: place)).lowerBound.utf16Offset(in: json) + 1
        #expect(root.problems.contains { $0.hasPrefix("1:\(column): \(expected)") }, "\(root.problems)")
        if expected.hasPrefix("error") {
            #expect(throws: HTTPStubberError.self) { try root.stubber() }
        }
    }
}
