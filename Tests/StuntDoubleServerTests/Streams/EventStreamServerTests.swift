import AsyncHTTPClient
import Foundation
import NIOCore
import StuntDouble
import StuntDoubleServer
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Server-sent events from a stub server, read by clients no one here wrote: AsyncHTTPClient streaming (HTTP/1.1
/// and HTTP/2), URLSession's real HTTP protocol with a delegate, and `curl -N`. Each must see the events in
/// order, each no earlier than it is due, and all of them while the response is still open (the stream stays
/// open after the fifth, so they cannot have come with its end): what a loaded machine's scheduling cannot fake,
/// unlike a measured spread.
@Suite struct EventStreamServerTests {
    /// A stub-file root: five events 80 ms apart (templated from the request), and a stream that stays open.
    static let files = [
        "mappings/ticks.json": """
        {
          "request": { "method": "GET", "urlPath": "/ticks" },
          "response": {
            "status": 200,
            "transformers": ["response-template"],
            "serverSentEvents": {
              "events": [
                { "data": "tick 1 for {{request.query.user}}", "id": "1", "delayMilliseconds": 80 },
                { "jsonData": { "n": 2, "user": "{{request.query.user}}" }, "id": "2", "delayMilliseconds": 80 },
                { "data": "tick 3", "event": "{{request.query.kind}}", "id": "3", "delayMilliseconds": 80 },
                { "comment": "between", "data": "tick 4", "id": "4", "delayMilliseconds": 80 },
                { "data": "tick 5", "id": "5", "delayMilliseconds": 80 }
              ],
              "end": "open"
            }
          }
        }
        """,
        "mappings/open.json": """
        {
          "request": { "method": "GET", "url": "/open" },
          "response": {
            "serverSentEvents": {
              "events": [ { "data": "hello", "delayMilliseconds": 10 } ],
              "end": "open"
            }
          }
        }
        """,
    ]

    static let expectedTicks = [
        ServerSentEventParser.Event(data: "tick 1 for ada", lastEventID: "1"),
        .init(data: #"{"n":2,"user":"ada"}"#, lastEventID: "2"),
        .init(type: "alert", data: "tick 3", lastEventID: "3"),
        .init(data: "tick 4", lastEventID: "4"),
        .init(data: "tick 5", lastEventID: "5"),
    ]

    /// Runs `body` with a server on the stub files (and HTTPS, when asked), then stops it.
    static func withServer(
        https: Bool = false, _ body: (HTTPStubServer, URL?) async throws -> Void
    ) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sse-\(UUID().uuidString)")
        let authority = root.appendingPathComponent("authority")
        defer { try? FileManager.default.removeItem(at: root) }
        for (path, text) in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        var configuration = HTTPStubServer.Configuration()
        if https { configuration.https = .init(identity: .generated(authorityFolder: authority)) }
        let stubber = HTTPStubber()
        try stubber.load(stubFilesAt: root)
        try await HTTPSTests.serve(stubber, configuration, body)
    }

    /// Events as they arrive, with their times after `start`.
    struct Arrivals {
        var parser = ServerSentEventParser()
        var events: [ServerSentEventParser.Event] = []
        var times: [Double] = []
        var start = ContinuousClock.now

        mutating func feed(_ bytes: some Sequence<UInt8>) {
            for event in parser.feed(bytes) {
                events.append(event)
                times.append((ContinuousClock.now - start).seconds)
            }
        }

        /// Checks the events, in order, each no earlier than it is due (80 ms after the one before).
        func check(_ client: String) {
            #expect(events == EventStreamServerTests.expectedTicks, "\(client)")
            for (index, time) in times.enumerated() {
                #expect(time >= 0.08 * Double(index + 1), "\(client): event \(index + 1) came when due: \(times)")
            }
        }
    }

    @Test func asyncHTTPClientStreamsTheEventsOverHTTP1() async throws {
        try await Self.withServer { server, _ in
            let base = try #require(server.baseURL).absoluteString
            var arrivals = Arrivals()
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: base + "/ticks?user=ada&kind=alert"), timeout: .seconds(60))
            #expect(response.status == .ok)
            #expect(response.headers["content-type"] == ["text/event-stream"])
            #expect(response.headers["transfer-encoding"] == ["chunked"], "no length is known ahead")
            #expect(response.headers["cache-control"] == ["no-cache"])
            for try await part in response.body {
                arrivals.feed(part.readableBytesView)
                if arrivals.events.count >= 5 { break }  // the stream stays open: they came before any end
            }
            arrivals.check("AsyncHTTPClient")
            #expect(arrivals.parser.comments == ["between"])
        }
    }

    @Test func asyncHTTPClientStreamsTheEventsOverHTTP2() async throws {
        try await Self.withServer(https: true) { server, authority in
            let base = try #require(server.httpsBaseURL).absoluteString
            try await HTTPSTests.withClient(trusting: try #require(authority)) { client in
                var arrivals = Arrivals()
                let response = try await client.execute(
                    HTTPClientRequest(url: base + "/ticks?user=ada&kind=alert"), timeout: .seconds(60))
                #expect(response.version == .http2)
                for try await part in response.body {
                    arrivals.feed(part.readableBytesView)
                    if arrivals.events.count >= 5 { break }
                }
                arrivals.check("AsyncHTTPClient over HTTP/2")
            }
        }
    }

    @Test func urlSessionsDelegateReceivesTheEventsAsTheyArrive() async throws {
        try await Self.withServer { server, _ in
            let url = try #require(URL(string: "/ticks?user=ada&kind=alert", relativeTo: server.baseURL))
            let delegate = StreamingDelegate()
            let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
            defer { session.finishTasksAndInvalidate() }
            let start = ContinuousClock.now
            session.dataTask(with: url).resume()
            let error = await delegate.completed()
            #expect((error as? URLError)?.code == .cancelled, "open until the delegate leaves, after the fifth")
            var arrivals = Arrivals()
            arrivals.start = start
            var times: [Double] = []
            for (data, time) in delegate.received {
                let before = arrivals.events.count
                arrivals.feed(data)
                times += Array(repeating: (time - arrivals.start).seconds, count: arrivals.events.count - before)
            }
            arrivals.times = times
            arrivals.check("URLSession")
        }
    }

    @Test(
        .enabled(
            if: runsWithOutsideProgram(ServerClientTests.installed("curl")), "curl is not installed (CI installs it)"))
    func curlNoBufferPrintsEachEventWhenItArrives() async throws {
        try await Self.withServer { server, _ in
            let url = try #require(server.baseURL).absoluteString + "/ticks?user=ada&kind=alert"
            let curl = try ChildProcess("curl", ["-sN", url])
            // The stream stays open: curl prints the events as they come, and the test stops it after the fifth.
            let deadline = ContinuousClock.now + .seconds(120)
            while !curl.standardOutput.contains("data: tick 5"), curl.isRunning, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(curl.isRunning, "the stream was still open when the fifth event was printed")
            curl.signal(SIGTERM)
            _ = try await curl.waitForExit()
            var parser = ServerSentEventParser()
            #expect(parser.feed(Data(curl.standardOutput.utf8)) == Self.expectedTicks)
        }
    }

    @Test func aClientLeavingAStreamThatStaysOpenEndsIt() async throws {
        try await Self.withServer { server, _ in
            let base = try #require(server.baseURL).absoluteString
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: base + "/open"), timeout: .seconds(60))
            var parser = ServerSentEventParser()
            var iterator = response.body.makeAsyncIterator()
            var events: [ServerSentEventParser.Event] = []
            while events.isEmpty, let part = try await iterator.next() {
                events += parser.feed(part.readableBytesView)
            }
            #expect(events == [.init(data: "hello")])
            // The stream stays open: the request is in progress until the client goes.
            #expect(server.stubber.journal.last?.completion == nil)
        }
        // Leaving the response (the iterator dropped, AsyncHTTPClient closing the connection) ends it; the
        // server stopping above would end it too. The timers of 1,000 such streams are in the leak test.
    }
}

/// Keeps what a URLSession delegate receives, with times.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [(Data, ContinuousClock.Instant)] = []
    private var parser = ServerSentEventParser()
    /// Cancels the task once this many events have arrived.
    private let eventsToRead: Int

    init(cancellingAfter eventsToRead: Int = 5) {
        self.eventsToRead = eventsToRead
    }
    private var ended: (any Error)??
    private var waiter: CheckedContinuation<(any Error)?, Never>?

    var received: [(Data, ContinuousClock.Instant)] { lock.withLock { parts } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let enough = lock.withLock { () -> Bool in
            parts.append((data, .now))
            events += parser.feed(data).count
            return events >= eventsToRead
        }
        if enough { dataTask.cancel() }
    }

    private var events = 0

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let waiting = lock.withLock { () -> CheckedContinuation<(any Error)?, Never>? in
            ended = .some(error)
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(returning: error)
    }

    func completed() async -> (any Error)? {
        await withCheckedContinuation { continuation in
            let done = lock.withLock { () -> (any Error)?? in
                if let ended { return ended }
                waiter = continuation
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}
