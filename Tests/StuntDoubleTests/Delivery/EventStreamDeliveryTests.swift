import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Server-sent event stubs through URLSession (a URLProtocol) and through `HTTPStubSession`: each event reaches a
/// streaming caller when it is due, a caller of the whole body gets every play, and a stream that stays open ends
/// only when the caller leaves or times out. Times are lower bounds and orderings; generous upper bounds only
/// guard against hangs.
@Suite struct EventStreamDeliveryTests {
    static let url = URL(string: "https://events.test/stream")!

    /// Five events 80 ms apart: the first at 80 ms, the last at 400 ms.
    static let ticks = (1...5).map { HTTPStubEvent(data: "tick \($0)", id: String($0), delay: 0.08) }

    private func stubber(_ response: HTTPStubResponse) -> HTTPStubber {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: Self.url.absoluteString).stub(for: .get, response: response))
        return stubber
    }

    private func events(in data: Data) -> [String] {
        var parser = ServerSentEventParser()
        return parser.feed(data).map(\.data)
    }

    /// Each event arrives no earlier than it is due, and while the response is still open: the stream stays
    /// open after the fifth, so the events cannot have come with its end (which a loaded machine's scheduling
    /// cannot fake, unlike a measured spread).
    @Test func aSessionDelegateReceivesEachEventWhenItIsDue() async throws {
        let stubber = stubber(.eventStream(Self.ticks, end: .stayOpen))
        let delegate = RecordingDelegate(onChunk: { count, task in
            if count == 5 { task.cancel() }
        })
        let start = ContinuousClock.now
        stubber.session(delegate: delegate).dataTask(with: Self.url).resume()
        #expect((await delegate.completed() as? URLError)?.code == .cancelled, "open until the client leaves")
        let chunks = delegate.chunks
        #expect(chunks.map { events(in: $0.data) } == (1...5).map { ["tick \($0)"] }, "one event a chunk, in order")
        for (index, chunk) in chunks.enumerated() {
            #expect((chunk.time - start).seconds >= 0.08 * Double(index + 1), "event \(index + 1) came when due")
        }
        #expect(
            (delegate.response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
    }

    @Test func aCallerOfTheWholeBodyGetsEveryPlay() async throws {
        let stubber = stubber(
            .eventStream([HTTPStubEvent(data: "a", delay: 0.01), HTTPStubEvent(data: "b")], repetition: .times(3)))
        let (data, _) = try await stubber.session().data(from: Self.url)
        #expect(events(in: data) == ["a", "b", "a", "b", "a", "b"])
        let (stubData, _) = try await HTTPStubSession(stubber: stubber).data(for: URLRequest(url: Self.url))
        #expect(stubData == data, "HTTPStubSession hands over the same bytes")
    }

    @Test func aStreamThatStaysOpenEndsWhenTheTaskIsCancelled() async throws {
        let stubber = stubber(.eventStream([HTTPStubEvent(data: "hello", delay: 0.01)], end: .stayOpen))
        let delegate = RecordingDelegate(onChunk: { count, task in
            if count == 1 { task.cancel() }
        })
        stubber.session(delegate: delegate).dataTask(with: Self.url).resume()
        let error = await delegate.completed()
        #expect((error as? URLError)?.code == .cancelled)
        #expect(events(in: delegate.body) == ["hello"])
        let entry = try #require(stubber.journal.last)
        #expect((entry.completion?.error as? URLError)?.code == .cancelled, "the journal says how it ended")
    }

    @Test func anOpenStreamTimesOutAfterTheRequestsTimeoutOfSilence() async throws {
        let stubber = stubber(.eventStream([HTTPStubEvent(data: "only", delay: 0.01)], end: .stayOpen))
        var request = URLRequest(url: Self.url)
        request.timeoutInterval = 0.3
        let delegate = RecordingDelegate()
        let start = ContinuousClock.now
        stubber.session(delegate: delegate).dataTask(with: request).resume()
        let error = await delegate.completed()
        #expect((error as? URLError)?.code == .timedOut)
        #expect(events(in: delegate.body) == ["only"])
        #expect(secondsSince(start) >= 0.3)
    }

    @Test func aStubSessionStreamHandsOverEachEventWhenItIsDue() async throws {
        let stubber = stubber(.eventStream(Self.ticks, end: .stayOpen))
        let start = ContinuousClock.now
        let (body, response) = try await HTTPStubSession(stubber: stubber).stream(for: URLRequest(url: Self.url))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        var parser = ServerSentEventParser()
        var arrivals: [(String, Double)] = []
        var received = 0
        for try await part in body {
            received += part.count
            for event in parser.feed(part) { arrivals.append((event.data, secondsSince(start))) }
            if arrivals.count == 5 { break }  // the stream stays open: each event came before any end
        }
        #expect(arrivals.map(\.0) == (1...5).map { "tick \($0)" })
        for (index, arrival) in arrivals.enumerated() {
            #expect(arrival.1 >= 0.08 * Double(index + 1), "event \(index + 1) came when due")
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while stubber.journal.last?.completion == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(received > 0)
        #expect((stubber.journal.last?.completion?.error as? URLError)?.code == .cancelled, "left by the caller")
    }

    @Test func leavingAStubSessionStreamThatPlaysForeverEndsIt() async throws {
        let stubber = stubber(.eventStream([HTTPStubEvent(data: "tick", delay: 0.01)], repetition: .forever))
        let (body, _) = try await HTTPStubSession(stubber: stubber).stream(for: URLRequest(url: Self.url))
        var parser = ServerSentEventParser()
        var seen = 0
        for try await part in body {
            seen += parser.feed(part).count
            if seen >= 3 { break }
        }
        #expect(seen >= 3)
        // The player ends with the stream: its journal entry is completed as cancelled.
        let deadline = ContinuousClock.now + .seconds(60)
        while stubber.journal.last?.completion == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect((stubber.journal.last?.completion?.error as? URLError)?.code == .cancelled)
    }

    @Test func aStubSessionStreamOfAnOrdinaryBodyIsTheBody() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get, body: "plain"))
        let (body, _) = try await HTTPStubSession(stubber: stubber).stream(for: URLRequest(url: Self.url))
        var received = Data()
        for try await part in body { received.append(part) }
        #expect(String(decoding: received, as: UTF8.self) == "plain")
    }

    @Test func aStubSessionStreamFailsAsTheRequestWould() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get, error: URLError(.notConnectedToInternet)))
        await #expect(throws: URLError.self) {
            _ = try await HTTPStubSession(stubber: stubber).stream(for: URLRequest(url: Self.url))
        }
    }
}
