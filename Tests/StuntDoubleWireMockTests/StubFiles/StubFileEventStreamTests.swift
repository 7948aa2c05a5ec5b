import Foundation
import TestSupport
import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

/// A response's `serverSentEvents` in stub files: read into the same plan the Swift API makes, templated per
/// event, and every malformed part reported at its line and column.
@Suite struct StubFileEventStreamTests {
    private func events(_ body: Data) -> [ServerSentEventParser.Event] {
        var parser = ServerSentEventParser()
        return parser.feed(body)
    }

    @Test func eventsWithEveryFieldAndTheirDelays() throws {
        let root = try StubRoot(
            mapping: #"""
                {"request": {"url": "/r"}, "response": {"status": 201, "headers": {"X-Trace": "1"},
                  "serverSentEvents": {"events": [
                    {"data": "one\ntwo", "delayMilliseconds": 100},
                    {"jsonData": {"b": [1, 2.50], "a": "x"}, "event": "update", "id": 7, "retry": 3000, "delayMilliseconds": 250},
                    {"comment": "keep-alive", "delayMilliseconds": 50}
                  ], "times": 2, "end": "open"}}}
                """#)
        #expect(root.problems.isEmpty, "\(root.problems)")
        let plan = try #require(try root.stubber().plan("GET", "http://h/r"))
        #expect(plan.response?.statusCode.rawValue == 201)
        #expect(plan.response?.headers["x-trace"] == "1")
        #expect(plan.response?.headers[.contentType] == "text/event-stream")
        #expect(
            events(plan.body) == [
                .init(data: "one\ntwo"), .init(type: "update", data: #"{"b":[1,2.5],"a":"x"}"#, lastEventID: "7"),
            ])
        #expect(plan.chunks.map(\.deadline) == [100, 350, 400].map { Duration.milliseconds($0) })
        #expect(plan.continuation == .init(plays: 2, period: .milliseconds(400), staysOpen: true))
    }

    @Test func foreverIsAWord() throws {
        let root = try StubRoot(
            mapping: #"""
                {"request": {"url": "/r"}, "response": {"serverSentEvents": {"events": [{"data": "tick", "delayMilliseconds": 1000}], "times": "forever"}}}
                """#)
        let plan = try #require(try root.stubber().plan("GET", "http://h/r"))
        #expect(plan.continuation?.plays == nil)
        #expect(plan.continuation?.isEndless == true)
    }

    @Test func eachEventIsATemplate() throws {
        let root = try StubRoot(
            mapping: #"""
                {"request": {"urlPath": "/r"}, "response": {"transformers": ["response-template"],
                  "serverSentEvents": {"events": [
                    {"data": "hello {{request.query.name}}"},
                    {"jsonData": {"echo": "{{request.query.name}}"}, "event": "{{request.query.kind}}", "id": "{{request.query.id}}"}
                  ]}}}
                """#)
        #expect(root.problems.isEmpty, "\(root.problems)")
        let plan = try #require(try root.stubber().plan("GET", "http://h/r?name=ada&kind=greet&id=9"))
        #expect(
            events(plan.body) == [
                .init(data: "hello ada"), .init(type: "greet", data: #"{"echo":"ada"}"#, lastEventID: "9"),
            ])
        // A rendered id with a line break cannot be sent: the stub answers an error naming it.
        let broken = try #require(try root.stubber().plan("GET", "http://h/r?name=x&kind=a%0Ab&id=1"))
        #expect((broken.error as? HTTPStubberError)?.message.contains("event type contains a line break") == true)
    }

    @Test(arguments: [
        (#"{"events": []}"#, "1:72: error: response.serverSentEvents.events: expected an array of events"),
        (
            #"{"events": [{"data": 1}]}"#,
            "1:82: error: response.serverSentEvents.events[0].data: data (JSON goes in jsonData) must be a string"
        ),
        (
            #"{"events": [{"data": "x", "event": "a\nb"}]}"#,
            "1:73: error: response.serverSentEvents.events[0]: this event's event type contains a line break"
        ),
        (
            #"{"events": [{"data": "x", "retry": -5}]}"#,
            "1:73: error: response.serverSentEvents.events[0]: this event's retry is -5"
        ),
        (
            #"{"events": [{"data": "x", "delayMilliseconds": -1}]}"#,
            "1:108: error: response.serverSentEvents.events[0].delayMilliseconds: -1 ms"
        ),
        (
            #"{"events": [{"data": "x"}], "times": "forever"}"#,
            "1:61: error: response.serverSentEvents: the event stream repeats forever with no delay"
        ),
        (
            #"{"events": [{"data": "x"}], "times": 0}"#,
            "1:61: error: response.serverSentEvents: the event stream plays .times(0)"
        ),
        (
            #"{"events": [{"data": "x"}], "end": "later"}"#,
            "1:96: error: response.serverSentEvents.end: expected \"close\""
        ),
        (#"{"events": [{"dat": "x"}]}"#, "1:74: warning: response.serverSentEvents.events[0].dat: unknown field"),
    ])
    func malformedStreamsAreReportedWhereTheyAre(stream: String, expected: String) throws {
        let root = try StubRoot(
            mapping: #"{"request": {"url": "/r"}, "response": {"serverSentEvents": \#(stream)}}"#)
        #expect(root.problems.contains { $0.hasPrefix(expected) }, "\(root.problems)")
    }

    @Test func aBodyBesideTheEventsIsIgnoredWithAWarning() throws {
        let root = try StubRoot(
            mapping: #"""
                {"request": {"url": "/r"}, "response": {"body": "x", "chunkedDribbleDelay": {"numberOfChunks": 2, "totalDuration": 10}, "serverSentEvents": {"events": [{"data": "e"}]}}}
                """#)
        #expect(root.problems.filter { $0.contains("ignored: the events of serverSentEvents are the body") }.count == 2)
        let plan = try #require(try root.stubber().plan("GET", "http://h/r"))
        #expect(events(plan.body) == [.init(data: "e")])
    }
}
