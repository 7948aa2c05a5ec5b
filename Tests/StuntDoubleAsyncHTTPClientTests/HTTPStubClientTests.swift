import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleAsyncHTTPClient
import StuntDoubleServer
import StuntDoubleWireMock
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Code written against `HTTPClientProtocol`, answered in process by `HTTPStubClient`: the same stubs as the
/// URLSession paths, the same journal, and AsyncHTTPClient's own errors.
///
/// Deadlines are 120 s where the test is not about them: in the whole suite on 2 cores, the process's two
/// cooperative threads are busy with other tests' work for tens of seconds at a time (stack samples at 25 s:
/// both running other suites' jobs, nothing waiting on a lock), and 30-second deadlines for answers due at once
/// ran out.
@Suite struct HTTPStubClientTests {
    static func weatherStubber() -> (HTTPStubber, forecast: HTTPStubRequest, reading: HTTPStubRequest) {
        let stubber = HTTPStubber()
        let forecast = HTTPStubRequest()
            .match(URI: "https://weather.test/forecasts/{city}")
            .match(header: "Authorization", value: "Bearer s3cret")
            .stub(
                for: .get,
                responseProvider: { request, _ in
                    .json(#"{"city": "\#(request[templateVariable: "city"] ?? "")", "high": 4}"#)
                })
        let reading = HTTPStubRequest()
            .match(URL: "https://weather.test/readings")
            .match(json: #"{"high": 31, "city": "lisbon"}"#)
            .stub(for: .post, response: HTTPStubResponse(statusCode: .created))
        stubber.add(stub: forecast)
        stubber.add(stub: reading)
        return (stubber, forecast, reading)
    }

    @Test func aServiceIsTestedWithNoServerAndItsJournalVerified() async throws {
        let (stubber, forecast, reading) = Self.weatherStubber()
        let service = ForecastService(client: stubber.stubClient(), baseURL: "https://weather.test", token: "s3cret")

        #expect(try await service.forecast(for: "oslo") == .init(city: "oslo", high: 4))
        #expect(try await service.report(.init(city: "lisbon", high: 31)) == .created)

        try stubber.verify(forecast, called: .once)
        try stubber.verify(reading, called: .once)
        let journal = stubber.journal
        #expect(journal.map(\.path) == [.asyncHTTPClient, .asyncHTTPClient])
        #expect(journal[0].request.headers["Accept"] == "application/json")
        #expect(journal[0].completion?.statusCode == .ok)
        #expect(journal[0].completion?.bodyByteCount == #"{"city": "oslo", "high": 4}"#.utf8.count)
        // The body came as a stream of 4-byte parts: the stubber matched it whole.
        #expect(journal[1].request.bodyText == #"{"city":"lisbon","high":31}"#)
        #expect(journal[1].completion?.statusCode == .created)
    }

    @Test func theSameStubsAnswerURLSessionAndAsyncHTTPClientAlike() async throws {
        let (stubber, forecast, _) = Self.weatherStubber()
        var request = URLRequest(url: URL(string: "https://weather.test/forecasts/rome")!)
        request.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
        let (data, _) = try await stubber.stubSession().data(for: request)
        let service = ForecastService(client: stubber.stubClient(), baseURL: "https://weather.test", token: "s3cret")
        let forecast2 = try await service.forecast(for: "rome")
        #expect(try JSONDecoder().decode(ForecastService.Forecast.self, from: data) == forecast2)
        try stubber.verify(forecast, called: .exactly(2))
        #expect(stubber.journal.map(\.path) == [.stubSession, .asyncHTTPClient])
    }

    @Test func anUnmatchedRequestFailsWithTheReportOfTheClosestStubs() async throws {
        let (stubber, _, _) = Self.weatherStubber()
        let service = ForecastService(client: stubber.stubClient(), baseURL: "https://weather.test", token: "wrong")
        do {
            _ = try await service.forecast(for: "oslo")
            Issue.record("an unmatched request must fail")
        } catch let error as HTTPStubberError {
            #expect(error.code == .unmatchedRequest)
            let report = String(describing: try #require(error.report))
            #expect(report.contains("GET https://weather.test/forecasts/oslo"), "\(report)")
            #expect(report.contains("Authorization"), "\(report)")
        }
        #expect(stubber.journal.first?.isUnmatched == true)
    }

    @Test func statusHeadersAndReasonPhraseAreTheStubsAsWritten() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/login").stub(for: .post) { response in
                response.statusCode = .init(rawValue: 299)
                response.statusMessage = "Fine Enough"
                response.headers = HTTPHeaders([
                    .init(name: "Set-Cookie", value: "a=1"), .init(name: "Set-Cookie", value: "b=2"),
                ])
                response.body = Data("hi".utf8)
            })
        var request = HTTPClientRequest(url: "https://api.test/login")
        request.method = .POST
        let response = try await stubber.stubClient().execute(request, timeout: .seconds(120))
        #expect(response.status.code == 299)
        #expect(response.status.reasonPhrase == "Fine Enough")
        #expect(response.headers["Set-Cookie"] == ["a=1", "b=2"])
        #expect(response.headers["Content-Length"] == ["2"])
        #expect(response.url?.absoluteString == "https://api.test/login")
        #expect(String(buffer: try await response.body.collect(upTo: 100)) == "hi")
    }

    @Test func redirectsAreFollowedAndTheResponseNamesWhereItEnded() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/old").stub(for: .get) { response in
                response.statusCode = .movedPermanently
                response.headers = ["Location": "https://api.test/new"]
            })
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/new").stub(for: .get, body: "moved"))
        let response = try await stubber.stubClient().execute(
            HTTPClientRequest(url: "https://api.test/old"), timeout: .seconds(120))
        #expect(response.status == .ok)
        #expect(response.url?.absoluteString == "https://api.test/new")
        #expect(String(buffer: try await response.body.collect(upTo: 100)) == "moved")
        #expect(stubber.journal.map(\.request.url.path) == ["/old", "/new"])
    }

    @Test func aStreamedBodyArrivesInPartsAsTheStubPacesIt() async throws {
        let stubber = HTTPStubber()
        let events = (1...5).map { HTTPStubEvent(data: "tick \($0)", delay: 0.01) }
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/ticks").stub(
                for: .get, response: .eventStream(events)))
        let response = try await stubber.stubClient().execute(
            HTTPClientRequest(url: "https://api.test/ticks"), timeout: .seconds(120))
        #expect(response.headers["Content-Type"] == ["text/event-stream"])
        var parts = [String]()
        for try await part in response.body {
            parts.append(String(buffer: part))
        }
        // Each event is due at its own time: they come as parts, in order, not as one body at the end.
        #expect(parts.count >= 2, "\(parts)")
        #expect(parts.joined() == (1...5).map { "data: tick \($0)\n\n" }.joined())
        #expect(stubber.journal.first?.completion?.bodyByteCount == parts.joined().utf8.count)
    }

    @Test func aThrottledBodyComesInSeveralParts() async throws {
        let stubber = HTTPStubber()
        let body = Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0) })
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/file").stub(for: .get) { response in
                response.body = body
                response.responseTime = .dribbled(chunks: 4, over: 0.1)
            })
        let response = try await stubber.stubClient().execute(
            HTTPClientRequest(url: "https://api.test/file"), timeout: .seconds(120))
        var received = Data()
        var count = 0
        for try await part in response.body {
            received.append(contentsOf: part.readableBytesView)
            count += 1
        }
        #expect(received == body)
        #expect(count == 4)
    }

    @Test func aStubThatAnswersAfterTheDeadlineFailsWithDeadlineExceeded() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/slow").stub(for: .get, delay: 600, json: "{}"))
        let start = ContinuousClock.now
        await #expect(throws: HTTPClientError.deadlineExceeded) {
            _ = try await stubber.stubClient().execute(
                HTTPClientRequest(url: "https://api.test/slow"), timeout: .milliseconds(100))
        }
        // Bounded by the deadline, not by the stub's 600 s.
        #expect(ContinuousClock.now - start < .seconds(120))
        #expect(stubber.journal.first?.completion?.error != nil)
    }

    @Test func theDeadlineCoversTheBodyToo() async throws {
        let stubber = HTTPStubber()
        let events = [HTTPStubEvent(data: "first"), HTTPStubEvent(data: "never", delay: 600)]
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/stream").stub(
                for: .get, response: .eventStream(events)))
        let response: HTTPClientResponse
        do {
            response = try await stubber.stubClient().execute(
                HTTPClientRequest(url: "https://api.test/stream"), timeout: .seconds(3))
        } catch let error as HTTPClientError {
            // A machine busy enough to hold the head back 3 s: the deadline ends the request before it, as it
            // should. The body's part of the claim is then left to an idler run.
            #expect(error == .deadlineExceeded)
            return
        }
        #expect(response.status == .ok)
        var parts = [String]()
        await #expect(throws: HTTPClientError.deadlineExceeded) {
            for try await part in response.body {
                parts.append(String(buffer: part))
            }
        }
        #expect(parts == ["data: first\n\n"])
    }

    @Test func aCancelledTaskFailsWithCancellationErrorAsAsyncHTTPClientsDoes() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/slow").stub(for: .get, delay: 600, json: "{}"))
        let client = stubber.stubClient()
        let task = Task {
            try await client.execute(HTTPClientRequest(url: "https://api.test/slow"), timeout: .seconds(600))
        }
        // Cancel once the stubber has the request (the journal has it), whatever the machine's pace.
        while stubber.journal.isEmpty {
            try await Task.sleep(for: .milliseconds(5))
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test func aBodyReadByACancelledTaskFailsAndADroppedOneStopsItsStub() async throws {
        let stubber = HTTPStubber()
        let ticks = [HTTPStubEvent(data: "tick", delay: 0.01)]
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/ticks").stub(
                for: .get, response: .eventStream(ticks, repetition: .forever)))
        let client = stubber.stubClient()
        let reading = Task {
            let response = try await client.execute(
                HTTPClientRequest(url: "https://api.test/ticks"), timeout: .seconds(600))
            var parts = 0
            for try await _ in response.body {
                parts += 1
                if parts == 2 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return parts
        }
        await #expect(throws: CancellationError.self) { _ = try await reading.value }
        // A response dropped unread: its endless stub stops, and the journal says how it ended.
        _ = try await client.execute(HTTPClientRequest(url: "https://api.test/ticks"), timeout: .seconds(600))
        let deadline = ContinuousClock.now + .seconds(120)
        while stubber.journal.contains(where: { $0.completion == nil }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(stubber.journal.count == 2)
        #expect(stubber.journal.allSatisfy { $0.completion != nil }, "both exchanges ended")
    }

    @Test func urlsAsyncHTTPClientRefusesAreRefusedAlike() async throws {
        let client = HTTPStubber().stubClient()
        await #expect(throws: HTTPClientError.invalidURL) {
            _ = try await client.execute(HTTPClientRequest(url: "not a url"), timeout: .seconds(5))
        }
        await #expect(throws: HTTPClientError.unsupportedScheme("ftp")) {
            _ = try await client.execute(HTTPClientRequest(url: "ftp://files.test/a"), timeout: .seconds(5))
        }
        await #expect(throws: HTTPClientError.deadlineExceeded) {
            _ = try await client.execute(HTTPClientRequest(url: "https://api.test/"), deadline: .now() - .seconds(1))
        }
    }

    @Test func stubbedErrorsReachTheCallerAsAsyncHTTPClientsErrors() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/lost").stub(
                for: .get, error: URLError(.networkConnectionLost)))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/own").stub(
                for: .get, error: HTTPClientError.readTimeout))
        let client = stubber.stubClient()
        await #expect(throws: HTTPClientError.remoteConnectionClosed) {
            _ = try await client.execute(HTTPClientRequest(url: "https://api.test/lost"), timeout: .seconds(120))
        }
        await #expect(throws: HTTPClientError.readTimeout) {
            _ = try await client.execute(HTTPClientRequest(url: "https://api.test/own"), timeout: .seconds(120))
        }
    }

    /// The oracle: a real `HTTPClient` against StuntDouble's server committing each fault.
    @Test(arguments: HTTPStubFault.allCases)
    func eachFaultFailsAsAgainstARealServer(_ fault: HTTPStubFault) async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/broken").stub(for: .get) { $0.fault = fault })
        let server = HTTPStubServer(stubber: stubber)
        let base = try await server.start()
        /// Where the request failed (before the head, or in the body after it), and with what.
        func outcome(_ client: any HTTPClientProtocol, _ url: String) async -> String {
            let response: HTTPClientResponse
            do {
                response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(120))
            } catch {
                return "before the head: \(type(of: error)): \(error)"
            }
            do {
                _ = try await response.body.collect(upTo: 1 << 20)
                return "no error"
            } catch {
                return "after a \(response.status.code) head: \(type(of: error)): \(error)"
            }
        }
        let real = await outcome(HTTPClient.shared, base.appendingPathComponent("broken").absoluteString)
        await server.stop()
        let stubbed = await outcome(stubber.stubClient(), "https://api.test/broken")
        #expect(real != "no error")
        #expect(stubbed == real)
    }

    @Test func whatTheStubberLetsThroughGoesThroughTheRealClientAndIsRecorded() async throws {
        let upstream = try TestHTTPServer { request in
            .init(
                status: 203, headers: ["Content-Type": "text/plain", "X-Seen": request.method], body: Data("real".utf8))
        }
        defer { upstream.stop() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ahc-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let stubber = HTTPStubber()
        let recording = try stubber.record(to: root, mode: .record, environment: [:])
        let url = upstream.baseURL.appendingPathComponent("live").absoluteString
        let response = try await stubber.stubClient().execute(HTTPClientRequest(url: url), timeout: .seconds(120))
        #expect(response.status.code == 203)
        #expect(response.headers["X-Seen"] == ["GET"])
        #expect(String(buffer: try await response.body.collect(upTo: 100)) == "real")
        #expect(upstream.requests.count == 1)
        // AsyncHTTPClient fetched it (URLSession would have sent a User-Agent of its own).
        #expect(upstream.requests.first?.header("User-Agent") == nil, "\(upstream.requests.first?.headers ?? [:])")
        try recording.save()

        // Replayed from the files, with no upstream.
        upstream.stop()
        let replaying = HTTPStubber()
        try replaying.record(to: root, mode: .replay, environment: [:])
        let replayed = try await replaying.stubClient().execute(HTTPClientRequest(url: url), timeout: .seconds(120))
        #expect(replayed.status.code == 203)
        #expect(String(buffer: try await replayed.body.collect(upTo: 100)) == "real")
    }
}
