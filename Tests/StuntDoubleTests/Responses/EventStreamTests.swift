import Foundation
import TestSupport
import Testing

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Server-sent event stubs: what they put on the wire (read back by a parser written from the WHATWG standard,
/// over hundreds of generated streams), what they refuse, and when each event is due.
@Suite struct EventStreamTests {
    private func plan(_ response: HTTPStubResponse) throws -> HTTPResponsePlan {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/events").stub(for: .get, response: response))
        let request = try HTTPIncomingRequest(URLRequest(url: URL(string: "https://api.test/events")!))
        return try #require(stubber.decision(for: request).plan)
    }

    private func taken(_ steps: ResponseSteps, limit: Int = 10_000) -> [ResponseSteps.Entry] {
        var steps = steps
        var taken: [ResponseSteps.Entry] = []
        while taken.count < limit, let step = steps.removeNext() { taken.append(step) }
        return taken
    }

    @Test func theWireFormatIsTheStandards() throws {
        let plan = try plan(
            .eventStream([
                HTTPStubEvent(data: "one"),
                HTTPStubEvent(data: "two\nlines", event: "update", id: "7", retry: 2500, comment: "note"),
                HTTPStubEvent(data: ""),
                HTTPStubEvent(comment: "keep-alive"),
                HTTPStubEvent(),
            ]))
        let body = String(decoding: plan.body, as: UTF8.self)
        #expect(
            body
                == "data: one\n\n: note\nevent: update\nid: 7\nretry: 2500\ndata: two\ndata: lines\n\ndata:\n\n"
                + ": keep-alive\n\n")
        let response = try #require(plan.response)
        #expect(response.headers[.contentType] == "text/event-stream")
        #expect(response.headers["Cache-Control"] == "no-cache")
        #expect(response.headers[.contentLength] == nil, "a stream's length is not sent: a server sends it chunked")
        #expect(plan.chunks.count == 5, "one chunk an event, the empty one too (a pause)")
        #expect(plan.chunks.last?.range.isEmpty == true)
        var parser = ServerSentEventParser()
        #expect(
            parser.feed(plan.body) == [
                .init(data: "one"), .init(type: "update", data: "two\nlines", lastEventID: "7"),
                .init(data: "", lastEventID: "7"),
            ])
        #expect(parser.reconnectionTime == 2500)
        #expect(parser.comments == ["note", "keep-alive"])
    }

    @Test func aGivenContentTypeAndCacheControlStay() throws {
        let response = HTTPStubResponse.eventStream([HTTPStubEvent(data: "x")])
        response.contentType = "text/event-stream; charset=utf-8"
        response.headers = ["Cache-Control": "no-store", "Content-Length": "99"]
        let plan = try plan(response)
        #expect(plan.response?.headers[.contentType] == "text/event-stream; charset=utf-8")
        #expect(plan.response?.headers["Cache-Control"] == "no-store")
        #expect(plan.response?.headers[.contentLength] == nil, "a written length would cut the stream")
    }

    /// 600 generated streams: text with every kind of line end, colons, leading spaces, non-ASCII; optional
    /// types, ids, retries and comments; sent in random pieces. The parser must dispatch exactly the events
    /// that have data, each with its type, its data (line ends as `\n`) and the last id.
    @Test func generatedStreamsReadBackAsWritten() throws {
        var random = SeededGenerator(seed: 0x5EED_5E5E)
        let alphabet: [String] = [
            "a", "Z", "0", " ", ":", "\r\n", "\n", "\r", "é", "💬", "data: x", "{", "\"", "\t", "id:", ",",
        ]
        func text(_ maxParts: Int) -> String {
            (0..<random.next(upTo: maxParts + 1)).map { _ in alphabet[random.next(upTo: alphabet.count)] }.joined()
        }
        func line(_ maxParts: Int) -> String {
            text(maxParts).replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: "")
        }
        for round in 0..<600 {
            var events: [HTTPStubEvent] = []
            var expected: [ServerSentEventParser.Event] = []
            var lastID = ""
            for _ in 0..<(1 + random.next(upTo: 6)) {
                var event = HTTPStubEvent()
                if random.next(upTo: 5) > 0 { event.data = text(8) }
                if random.next(upTo: 3) == 0 { event.event = "t" + line(3) }
                if random.next(upTo: 3) == 0 { event.id = line(4) }
                if random.next(upTo: 4) == 0 { event.retry = random.next(upTo: 100_000) }
                if random.next(upTo: 4) == 0 { event.comment = text(4) }
                events.append(event)
                if let id = event.id { lastID = id }
                if let data = event.data {
                    let normalized = data.replacingOccurrences(of: "\r\n", with: "\n")
                        .replacingOccurrences(of: "\r", with: "\n")
                    expected.append(.init(type: event.event ?? "message", data: normalized, lastEventID: lastID))
                }
            }
            let body = try plan(.eventStream(events)).body
            var parser = ServerSentEventParser()
            var parsed: [ServerSentEventParser.Event] = []
            var offset = 0
            while offset < body.count {
                let piece = min(body.count - offset, 1 + random.next(upTo: 17))
                parsed += parser.feed(body[body.startIndex + offset..<body.startIndex + offset + piece])
                offset += piece
            }
            #expect(parsed == expected, "round \(round): \(events)")
            if parsed != expected { return }
        }
    }

    @Test(arguments: [
        (HTTPStubEvent(data: "x", event: "a\nb"), "event 1's event type contains a line break"),
        (HTTPStubEvent(data: "x", id: "1\r2"), "event 1's id contains a line break or a NUL"),
        (HTTPStubEvent(data: "x", id: "1\u{0}"), "event 1's id contains a line break or a NUL"),
        (HTTPStubEvent(data: "x", retry: -1), "event 1's retry is -1"),
        (HTTPStubEvent(data: "x", delay: -0.5), "event 1's delay is -0.5"),
        (HTTPStubEvent(data: "x", delay: .infinity), "event 1's delay is inf"),
    ])
    func badEventsAreRefusedByName(event: HTTPStubEvent, message: String) throws {
        let plan = try plan(.eventStream([event]))
        let error = try #require(plan.error as? HTTPStubberError)
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test func badStreamsAreRefusedByName() throws {
        let forever = try plan(.eventStream([HTTPStubEvent(data: "x")], repetition: .forever))
        #expect((forever.error as? HTTPStubberError)?.message.contains("repeats forever with no delay") == true)
        let never = try plan(.eventStream([HTTPStubEvent(data: "x")], repetition: .times(0)))
        #expect((never.error as? HTTPStubberError)?.message.contains("plays .times(0); use 1 to") == true)
        let throttled = HTTPStubResponse.eventStream([HTTPStubEvent(data: "x")])
        throttled.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 10))
        #expect(
            (try plan(throttled).error as? HTTPStubberError)?.message.contains("paced by its events' delays") == true)
    }

    @Test func eachEventIsDueAfterTheOneBeforeAndPlaysRepeat() throws {
        let response = HTTPStubResponse.eventStream(
            [HTTPStubEvent(data: "a", delay: 0.1), HTTPStubEvent(data: "b", delay: 0.2)], repetition: .times(3))
        response.responseDelay = 1
        let plan = try plan(response)
        #expect(plan.continuation == .init(plays: 3, period: .milliseconds(300), staysOpen: false))
        #expect(plan.completionDeadline == .milliseconds(1900))
        #expect(plan.deliveredBody == Data(String(repeating: "data: a\n\ndata: b\n\n", count: 3).utf8))
        let steps = taken(ResponseSteps(plan, at: .zero))
        let chunkTimes = steps.compactMap { entry -> (Int, Duration)? in
            if case .chunk(let index) = entry.step { (index, entry.time) } else { nil }
        }
        #expect(chunkTimes.map(\.0) == [0, 1, 0, 1, 0, 1])
        #expect(
            chunkTimes.map(\.1) == [1100, 1300, 1400, 1600, 1700, 1900].map { Duration.milliseconds($0) })
        #expect(steps.first?.step == .head && steps.first?.time == .seconds(1))
        #expect(steps.last?.step == .finish && steps.last?.time == .milliseconds(1900))
    }

    @Test func aPlanListsItsEventsAsItDeliversThem() throws {
        let events = [
            HTTPStubEvent(data: "a\nb", delay: 0.1), HTTPStubEvent(comment: "ping", delay: 0.2),
            HTTPStubEvent(delay: 0.3),
            HTTPStubEvent(data: "c", event: "end", id: "9", retry: 5, delay: 0.4),
        ]
        let response = HTTPStubResponse.eventStream(events)
        response.responseDelay = 1
        let plan = try plan(response)
        var expected = events
        expected.remove(at: 2)  // an event of no field is a pause, not an event
        expected[0].delay = 1.1  // the first counts from the request
        expected[2].delay = 0.7  // after the pause too
        #expect(plan.events == expected)
        #expect(try self.plan(.json("{}")).events == nil)
        // The journal shows them, as the stubber's time scale delivered them.
        let stubber = HTTPStubber()
        stubber.eventTimeScale = 0.5
        stubber.add(stub: HTTPStubRequest().stub(for: .get, response: .eventStream(events)))
        let scaled = try stubber.response(for: HTTPIncomingRequest(URLRequest(url: URL(string: "https://a.test/")!)))
        #expect(scaled.events?.map(\.delay) == [0.05, 0.1, 0.35])
    }

    @Test func aStreamThatStaysOpenHasNoEnd() throws {
        let plan = try plan(.eventStream([HTTPStubEvent(data: "a", delay: 0.5)], end: .stayOpen))
        #expect(plan.completionDeadline == nil)
        var steps = ResponseSteps(plan, at: .zero)
        #expect(steps.isEndless)
        #expect(taken(steps).map(\.step) == [.head, .chunk(0)])
        steps.removeNext()
        steps.removeNext()
        #expect(steps.isHeldOpen, "nothing is due, and nothing ends it but the client")
        // With a timeout (URLSession's), the silence after the last event times out.
        let timed = taken(ResponseSteps(plan, at: .zero, timeout: .seconds(60)))
        #expect(timed.map(\.step) == [.head, .chunk(0), .timeOut])
        #expect(timed.last?.time == .milliseconds(60_500))
        #expect(ResponseSteps(plan, at: .zero, timeout: .seconds(60)).timesOut)
    }

    @Test func aStreamThatPlaysForeverGoesOnAtItsPeriod() throws {
        let plan = try plan(
            .eventStream([HTTPStubEvent(data: "tick", delay: 0.25), HTTPStubEvent(comment: "")], repetition: .forever))
        let steps = taken(ResponseSteps(plan, at: .zero), limit: 2001)
        #expect(steps.count == 2001, "it does not end")
        #expect(steps.last?.step == .chunk(1))
        #expect(steps.last?.time == .milliseconds(250 * 1000))
        #expect(!ResponseSteps(plan, at: .zero, timeout: .seconds(1)).timesOut, "an event every 0.25 s")
        #expect(ResponseSteps(plan, at: .zero, timeout: .milliseconds(100)).timesOut)
        // A HEAD request (no body) has the head and the end only.
        #expect(taken(ResponseSteps(plan, at: .zero, body: false)).map(\.step) == [.head, .finish])
    }
}

/// Reading a recorded event stream back into events with the pace at which they came.
@Suite struct RecordedEventStreamTests {
    /// 400 generated streams, written as a server writes them and arriving in random parts at their events'
    /// times: read back, they are the same events with the same delays (to the millisecond).
    @Test func generatedStreamsReadBackWithTheirPace() throws {
        var random = SeededGenerator(seed: 0xACE5)
        let pieces = ["a", " ", ":", "é", "{\"k\": 1}", "x y", "\n", "\r\n"]
        for round in 0..<400 {
            var events: [HTTPStubEvent] = []
            for _ in 0..<(1 + random.next(upTo: 5)) {
                var event = HTTPStubEvent(delay: Double(random.next(upTo: 300)) / 1000)
                if random.next(upTo: 5) > 0 {
                    event.data = (0..<random.next(upTo: 6)).map { _ in pieces[random.next(upTo: pieces.count)] }
                        .joined().replacingOccurrences(of: "\r\n", with: "\n")
                }
                if random.next(upTo: 3) == 0 { event.event = "update" }
                if random.next(upTo: 3) == 0 { event.id = String(random.next(upTo: 1000)) }
                if random.next(upTo: 4) == 0 { event.retry = random.next(upTo: 5000) }
                if event.data == nil || random.next(upTo: 4) == 0 { event.comment = "c\(random.next(upTo: 9))" }
                events.append(event)
            }
            let stream = HTTPStubEventStream(events)
            var body = Data()
            var arrivals = [HTTPRecordedExchange.Arrival(byteCount: 0, time: .zero)]
            var time = 0
            for event in events {
                let bytes = Data(event.encoded.utf8)
                time += Int((event.delay * 1000).rounded())
                // The event's bytes arrive in up to three parts, the last at its time.
                var offset = 0
                while offset < bytes.count {
                    let part = min(bytes.count - offset, 1 + random.next(upTo: bytes.count))
                    body.append(bytes[offset..<offset + part])
                    offset += part
                    let at = offset == bytes.count ? time : time - random.next(upTo: 3)
                    arrivals.append(.init(byteCount: body.count, time: .milliseconds(at)))
                }
            }
            let read = try #require(HTTPStubEventStream(recorded: body, arrivals: arrivals), "round \(round)")
            #expect(read == stream, "round \(round)")
            if read != stream { return }
        }
    }

    /// 3,000 random byte strings (an upstream may send anything): reading never fails, and what it reads, written
    /// out again, makes a browser dispatch the same events with the same ids and reconnection time as the bytes
    /// themselves (the WHATWG parser of the tests is the judge).
    @Test func anythingReadBackDispatchesWhatTheBytesWould() {
        var random = SeededGenerator(seed: 0xB17E5)
        let alphabet = Array("data: event:id:retry:\n\r\n \0:x1é".utf8) + [0xFF, 0xEF, 0xBB, 0xBF]
        var read = 0
        for round in 0..<3000 {
            var bytes = (0..<random.next(upTo: 60)).map { _ in alphabet[random.next(upTo: alphabet.count)] }
            if round.isMultiple(of: 2) { bytes += Array("\n\n".utf8) }  // often complete
            guard let stream = HTTPStubEventStream(recorded: Data(bytes), arrivals: []) else { continue }
            read += 1
            var original = ServerSentEventParser()
            var rewritten = ServerSentEventParser()
            let expected = original.feed(bytes)
            let written = stream.events.map(\.encoded).joined()
            #expect(rewritten.feed(Array(written.utf8)) == expected, "round \(round): \(bytes)")
            #expect(rewritten.reconnectionTime == original.reconnectionTime, "round \(round): \(bytes)")
            #expect(rewritten.lastEventID == original.lastEventID, "round \(round): \(bytes)")
            if rewritten.lastEventID != original.lastEventID { return }
        }
        #expect(read > 600, "enough of them were streams: \(read)")
    }

    /// A long recording (100,000 events, an arrival each) reads back whole: reading walks events and arrivals
    /// once (a search per event took minutes at this size).
    @Test(.timeLimit(.minutes(1)))
    func aLongRecordingReadsBackWhole() throws {
        var body = Data()
        var arrivals = [HTTPRecordedExchange.Arrival(byteCount: 0, time: .zero)]
        for index in 1...100_000 {
            body.append(contentsOf: "data: token \(index)\n\n".utf8)
            arrivals.append(.init(byteCount: body.count, time: .milliseconds(index)))
        }
        let stream = try #require(HTTPStubEventStream(recorded: body, arrivals: arrivals))
        #expect(stream.events.count == 100_000)
        #expect(stream.events.last == HTTPStubEvent(data: "token 100000", delay: 0.001))
        #expect(stream.events.allSatisfy { $0.delay == 0.001 })
    }

    @Test func whatIsNotACompleteStreamIsNotReadAsOne() {
        #expect(HTTPStubEventStream(recorded: Data("data: a\n\ndata: cut".utf8), arrivals: []) == nil)
        #expect(HTTPStubEventStream(recorded: Data("data: a\n".utf8), arrivals: []) == nil)
        #expect(HTTPStubEventStream(recorded: Data(), arrivals: []) == nil)
        let crlf = HTTPStubEventStream(
            recorded: Data("\u{FEFF}data: a\r\ndata: b\r\n\r\nfoo: x\rdata:c\r\r".utf8), arrivals: [])
        #expect(
            crlf?.events == [HTTPStubEvent(data: "a\nb"), HTTPStubEvent(data: "c")], "BOM, CRLF, CR; unknown fields")
    }
}

extension SeededGenerator {
    fileprivate mutating func next(upTo bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
