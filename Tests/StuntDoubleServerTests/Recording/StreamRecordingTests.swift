import AsyncHTTPClient
import Foundation
import NIOCore
import StuntDouble
import StuntDoubleServer
import StuntDoubleWireMock
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Recording an event stream through the recording proxy keeps it as events, each with the delay at which it
/// came; replaying plays them at that pace, or scaled (0: at once). The upstream is an OpenAI-style chat
/// completion of our own: `chat.completion.chunk` events 100 ms apart, then `[DONE]`.
@Suite struct StreamRecordingTests {
    static let chunks = ["Hel", "lo", ", wor", "ld"].enumerated().map { index, text in
        #"{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\#(text)"}}]}"#
    }

    static func upstream() -> HTTPStubber {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/v1/chat/completions")
                .stub(
                    for: .post,
                    response: .eventStream(
                        chunks.map { HTTPStubEvent(data: $0, delay: 0.1) } + [HTTPStubEvent(data: "[DONE]", delay: 0.1)]
                    )))
        return stubber
    }

    /// Posts a chat completion request; returns the events' data, each with when it came after the request.
    static func complete(at baseURL: URL) async throws -> (events: [String], times: [Double], body: Data) {
        var request = HTTPClientRequest(url: "\(baseURL)/v1/chat/completions")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: #"{"model":"gpt-test","stream":true}"#))
        let start = ContinuousClock.now
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        var parser = ServerSentEventParser()
        var events: [String] = []
        var times: [Double] = []
        var body = Data()
        for try await part in response.body {
            body.append(contentsOf: part.readableBytesView)
            for event in parser.feed(part.readableBytesView) {
                events.append(event.data)
                times.append((ContinuousClock.now - start).seconds)
            }
        }
        return (events, times, body)
    }

    @Test func aRecordedChatCompletionReplaysAtItsPaceOrAtOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sse-rec-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = HTTPStubber()
        let recording = try recorder.record(to: folder, mode: .record, environment: [:])
        let live = try await withStubServer(stubber: Self.upstream()) { upstream in
            var configuration = HTTPStubServer.Configuration()
            configuration.upstream = upstream
            return try await withStubServer(stubber: recorder, configuration: configuration) { proxy in
                try await Self.complete(at: proxy)
            }
        }
        #expect(live.events == Self.chunks + ["[DONE]"])
        try recording.save()

        // The mapping keeps the events and their pace, counted from the request: each came no earlier than the
        // upstream sent it (on a loaded machine, later).
        let mappingFile = folder.appendingPathComponent("mappings/post-v1-chat-completions.json")
        let mapping = try JSONSerialization.jsonObject(with: try Data(contentsOf: mappingFile)) as? [String: Any]
        let response = try #require(mapping?["response"] as? [String: Any])
        #expect(response["body"] == nil && response["bodyFileName"] == nil, "events, not a body")
        let events = try #require((response["serverSentEvents"] as? [String: Any])?["events"] as? [[String: Any]])
        #expect(events.compactMap { $0["data"] as? String } == Self.chunks + ["[DONE]"])
        let delays = events.map { ($0["delayMilliseconds"] as? Int) ?? 0 }
        var elapsed = 0
        for (index, delay) in delays.enumerated() {
            elapsed += delay
            #expect(elapsed >= 100 * (index + 1) - 1, "event \(index + 1) came \(elapsed) ms in: \(delays)")
        }

        // Replayed at the recorded pace: each event no earlier than it came when recorded, the same bytes.
        let replayer = HTTPStubber()
        try replayer.load(stubFilesAt: folder)
        let replayed = try await withStubServer(stubber: replayer) { server in try await Self.complete(at: server) }
        #expect(replayed.body == live.body, "the same bytes")
        var due = 0
        for (index, delay) in delays.enumerated() {
            due += delay
            #expect(replayed.times[index] >= Double(due) / 1000, "event \(index + 1) replayed when due")
        }
        #expect(replayer.unmatchedRequests.isEmpty)

        // Scaled to 0: every event is due with the head.
        replayer.eventTimeScale = 0
        var request = URLRequest(url: URL(string: "http://api.test/v1/chat/completions")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"model":"gpt-test","stream":true}"#.utf8)
        let plan = try replayer.response(for: HTTPIncomingRequest(request))
        #expect(plan.chunks.count == 5)
        #expect(plan.chunks.allSatisfy { $0.deadline == .zero })
        replayer.eventTimeScale = 0.5
        let halved = try replayer.response(for: HTTPIncomingRequest(request))
        #expect(halved.chunks.last?.deadline == .milliseconds(Double(elapsed) / 2))
        replayer.eventTimeScale = -1
        #expect(
            (try replayer.response(for: HTTPIncomingRequest(request)).error as? HTTPStubberError)?.message
                .contains("eventTimeScale is -1.0") == true)
    }

    /// WireMock's recorder through the admin API makes the same `serverSentEvents` of a stream it proxied.
    @Test func theAdminRecorderKeepsAStreamAsEvents() async throws {
        try await withStubServer(stubber: Self.upstream()) { upstream in
            try await AdminAPITests.withServer { url, _, _ in
                let started = try await AdminAPITests.call(
                    .POST, url, "/__admin/recordings/start", body: #"{"targetBaseUrl": "\#(upstream.absoluteString)"}"#)
                #expect(started.status == 200, "\(started.text)")
                let live = try await Self.complete(at: url)
                #expect(live.events == Self.chunks + ["[DONE]"])
                let stopped = try await AdminAPITests.call(.POST, url, "/__admin/recordings/stop")
                let mapping = try #require((stopped.object["mappings"] as? [[String: Any]])?.first)
                let response = try #require(mapping["response"] as? [String: Any])
                #expect(response["body"] == nil)
                let events = try #require(
                    (response["serverSentEvents"] as? [String: Any])?["events"] as? [[String: Any]])
                #expect(events.compactMap { $0["data"] as? String } == Self.chunks + ["[DONE]"])
                var elapsed = 0
                for (index, event) in events.enumerated() {
                    elapsed += (event["delayMilliseconds"] as? Int) ?? 0
                    #expect(elapsed >= 100 * (index + 1) - 1, "event \(index + 1) came \(elapsed) ms in")
                }
                // The recorded stub answers at once with the same bytes, its events at their pace.
                let replayed = try await Self.complete(at: url)
                #expect(replayed.body == live.body)
            }
        }
    }

    /// In process, a URLSession whose requests a stubber lets through to the network receives a stream as it
    /// comes (its relay no longer waits for the end), and a recording keeps its pace.
    @Test func aRelayedStreamArrivesAsItComesAndARecordingKeepsItsPace() async throws {
        let upstream = HTTPStubber()
        upstream.add(
            stub: HTTPStubRequest().match(URI: "/open").stub(
                for: .get,
                response: .eventStream(
                    [HTTPStubEvent(data: "one", delay: 0.1), HTTPStubEvent(data: "two", delay: 0.1)], end: .stayOpen)))
        for stub in Self.upstream().stubs { upstream.add(stub: stub) }
        try await withStubServer(stubber: upstream) { baseURL in
            // Let through: the stream stays open, so its events can only arrive as they come.
            let stubber = HTTPStubber()
            stubber.unhandledMode = .optin
            let delegate = StreamingDelegate(cancellingAfter: 2)
            let session = stubber.session(delegate: delegate)
            defer { session.invalidateAndCancel() }
            session.dataTask(with: baseURL.appendingPathComponent("open")).resume()
            #expect((await delegate.completed() as? URLError)?.code == .cancelled, "open until the client left")
            var parser = ServerSentEventParser()
            #expect(parser.feed(delegate.received.reduce(Data()) { $0 + $1.0 }).map(\.data) == ["one", "two"])
            // The same through HTTPStubSession.stream(for:).
            let (body, _) = try await HTTPStubSession(stubber: stubber).stream(
                for: URLRequest(url: baseURL.appendingPathComponent("open")))
            var streamed = ServerSentEventParser()
            var seen: [String] = []
            for try await part in body {
                seen += streamed.feed(part).map(\.data)
                if seen.count == 2 { break }
            }
            #expect(seen == ["one", "two"])

            // Recorded in process: the events and their pace.
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let recorder = HTTPStubber()
            let recording = try recorder.record(to: folder, mode: .record, environment: [:])
            var request = URLRequest(url: baseURL.appendingPathComponent("v1/chat/completions"))
            request.httpMethod = "POST"
            let (data, _) = try await recorder.session().data(for: request)
            var whole = ServerSentEventParser()
            #expect(whole.feed(data).map(\.data) == Self.chunks + ["[DONE]"])
            try recording.save()
            let mapping = try JSONSerialization.jsonObject(
                with: try Data(contentsOf: folder.appendingPathComponent("mappings/post-v1-chat-completions.json")))
            let events = try #require(
                (((mapping as? [String: Any])?["response"] as? [String: Any])?["serverSentEvents"] as? [String: Any])?[
                    "events"] as? [[String: Any]])
            var elapsed = 0
            for (index, event) in events.enumerated() {
                elapsed += (event["delayMilliseconds"] as? Int) ?? 0
                #expect(elapsed >= 100 * (index + 1) - 1, "event \(index + 1) came \(elapsed) ms in")
            }
        }
    }

    @Test func theServeCommandsEventTimeScaleIsChecked() async throws {
        let result = try await CommandProcess.run(["serve", "--port", "0", "--event-time-scale=-2"])
        #expect(result.status != 0)
        #expect(result.error.contains("--event-time-scale must be 0"), "\(result.error)")
    }
}
