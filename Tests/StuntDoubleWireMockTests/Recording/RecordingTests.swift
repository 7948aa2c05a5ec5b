import Foundation
import StuntDouble
import StuntDoubleWireMock
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Recording real exchanges from an upstream on loopback, and replaying them with the upstream gone.
@Suite struct RecordingTests {
    /// A recording folder of its own, removed at the end.
    static func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder.appendingPathComponent("Fixtures"))
    }

    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0x10, 0x00])

    /// An upstream with a body of every kind.
    static func upstream() throws -> TestHTTPServer {
        try TestHTTPServer { request in
            switch (request.method, request.target) {
            case ("GET", "/users/42"):
                return .init(
                    headers: ["Content-Type": "application/json"], body: Data(#"{"id":42,"name":"Mark"}"#.utf8))
            case ("GET", "/pretty"):
                return .init(
                    headers: ["Content-Type": "application/json"],
                    body: Data("{\n  \"b\": 1,\n  \"a\": [1, 2]\n}\n".utf8))
            case ("GET", "/text?lang=en"):
                return .init(headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data("héllo\r\nworld".utf8))
            case ("GET", "/image.png"):
                return .init(headers: ["Content-Type": "image/png"], body: png)
            case ("POST", "/items"):
                return .init(
                    status: 201, headers: ["Content-Type": "application/json", "Location": "/items/7"],
                    body: Data((#"{"created":true,"echo":"# + String(decoding: request.body, as: UTF8.self) + "}").utf8)
                )
            default:
                return .init(status: 404, body: Data("no".utf8))
            }
        }
    }

    static func post(_ url: URL, _ body: String) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        return request
    }

    static let paths = ["/users/42", "/pretty", "/text?lang=en", "/image.png", "/404"]

    /// What a session answers for each path and the POST: status, body.
    static func answers(_ session: any AsyncURLSessionProtocol, base: URL) async throws -> [String] {
        var answers: [String] = []
        for path in paths {
            let (data, response) = try await session.data(
                for: URLRequest(url: URL(string: base.absoluteString + path)!))
            answers.append("\((response as? HTTPURLResponse)?.statusCode ?? 0) \(data.base64EncodedString())")
        }
        let (data, response) = try await session.data(
            for: post(base.appendingPathComponent("items"), #"{"name":"pen"}"#))
        let http = response as? HTTPURLResponse
        answers.append(
            "\(http?.statusCode ?? 0) \(http?.value(forHTTPHeaderField: "Location") ?? "") \(data.base64EncodedString())"
        )
        return answers
    }

    @Test func recordedExchangesReplayByteForByteWithTheUpstreamGone() async throws {
        try await Self.withFolder { folder in
            let upstream = try Self.upstream()
            let base = upstream.baseURL
            let recorder = HTTPStubber()
            let recording = try recorder.record(to: folder, mode: .record, environment: [:])
            let live = try await Self.answers(recorder.session(), base: base)
            #expect(try recording.save() == 6)
            #expect(upstream.requests.count == 6)
            upstream.stop()

            let files = filesUnder(folder)
            #expect(
                files.keys.sorted() == [
                    "__files/get-image-png.png", "__files/get-pretty.json", "mappings/get-404.json",
                    "mappings/get-image-png.json", "mappings/get-pretty.json", "mappings/get-text.json",
                    "mappings/get-users-42.json", "mappings/post-items.json",
                ])
            let user = String(decoding: files["mappings/get-users-42.json"] ?? Data(), as: UTF8.self)
            #expect(user.contains(#""jsonBody": {"#), "JSON as JSON: \(user)")
            #expect(!user.contains("Date"), "no header that changes run to run")
            let text = String(decoding: files["mappings/get-text.json"] ?? Data(), as: UTF8.self)
            #expect(text.contains(#""body": "héllo\r\nworld""#), "text as text: \(text)")
            #expect(files["__files/get-image-png.png"] == Self.png, "binary in __files/")
            #expect(files["__files/get-pretty.json"] == Data("{\n  \"b\": 1,\n  \"a\": [1, 2]\n}\n".utf8))

            // Replayed, through both in-process delivery paths: the same status and bytes, and no network.
            for usesStubSession in [false, true] {
                let replayer = HTTPStubber()
                try replayer.record(to: folder, mode: .replay, environment: [:])
                let session: any AsyncURLSessionProtocol =
                    usesStubSession ? replayer.stubSession() : replayer.session()
                #expect(try await Self.answers(session, base: base) == live)
            }
        }
    }

    @Test func recordingTheSameExchangesAgainWritesTheSameBytes() async throws {
        try await Self.withFolder { folder in
            let upstream = try Self.upstream()
            defer { upstream.stop() }
            var runs: [[String: Data]] = []
            for _ in 0..<2 {
                let stubber = HTTPStubber()
                let recording = try stubber.record(to: folder, mode: .record, environment: [:])
                _ = try await Self.answers(stubber.stubSession(), base: upstream.baseURL)
                try recording.save()
                runs.append(filesUnder(folder))
            }
            #expect(runs[0] == runs[1])
            #expect(runs[0].count == 8)
        }
    }

    @Test func repeatedRequestsReplayInTheRecordedOrder() async throws {
        try await Self.withFolder { folder in
            let counter = SharedValue(0)
            let upstream = try TestHTTPServer { _ in
                .init(body: Data("call \(counter.increment())".utf8))
            }
            let url = upstream.baseURL.appendingPathComponent("next")
            let recorder = HTTPStubber()
            let recording = try recorder.record(to: folder, mode: .record, environment: [:])
            let session = recorder.stubSession()
            var live: [String] = []
            for _ in 0..<3 {
                let (data, response) = try await session.data(from: url)
                live.append(
                    "\((response as? HTTPURLResponse)?.statusCode ?? 0) \(String(decoding: data, as: UTF8.self))")
            }
            #expect(live == ["200 call 1", "200 call 2", "200 call 3"], "what the network answered")
            #expect(upstream.requests.count == 3)
            #expect(
                recording.exchanges.map { String(decoding: $0.body, as: UTF8.self) } == ["call 1", "call 2", "call 3"])
            try recording.save()
            upstream.stop()

            let replayer = HTTPStubber()
            try replayer.record(to: folder, mode: .replay, environment: [:])
            var bodies: [String] = []
            for _ in 0..<4 {
                let (data, _) = try await replayer.stubSession().data(from: url)
                bodies.append(String(decoding: data, as: UTF8.self))
            }
            #expect(bodies == ["call 1", "call 2", "call 3", "call 3"], "in order, then the last one again")
        }
    }

    @Test func secretsNeverReachAFileAndTheRequestStillMatches() async throws {
        try await Self.withFolder { folder in
            let upstream = try TestHTTPServer { request in
                .init(
                    headers: ["Content-Type": "application/json", "Set-Cookie": "session=secret-cookie-out"],
                    body: Data(#"{"token":"secret-token-out","user":{"id":1,"token":"secret-nested"}}"#.utf8))
            }
            var options = HTTPRecording.Options()
            options.redactedQueryParameters = ["api_key"]
            options.redactedJSONFields = ["password", "token"]
            options.matchesBody = true
            options.matchedHeaders = ["Authorization", "X-Client"]
            func login(_ stubber: HTTPStubber) async throws -> (Data, URLResponse) {
                var request = Self.post(
                    URL(string: upstream.baseURL.absoluteString + "/login?api_key=secret-query&page=1")!,
                    #"{"user":"mark","password":"secret-password"}"#)
                request.setValue("Bearer secret-bearer", forHTTPHeaderField: "Authorization")
                request.setValue("session=secret-cookie-in", forHTTPHeaderField: "Cookie")
                request.setValue("app", forHTTPHeaderField: "X-Client")
                return try await stubber.stubSession().data(for: request)
            }
            let recorder = HTTPStubber()
            let recording = try recorder.record(to: folder, mode: .record, options: options, environment: [:])
            let (live, _) = try await login(recorder)
            #expect(String(decoding: live, as: UTF8.self).contains("secret-token-out"), "the caller gets it all")
            try recording.save()
            upstream.stop()

            let written = filesUnder(folder).values.map { String(decoding: $0, as: UTF8.self) }.joined()
            #expect(!written.contains("secret"), "no secret in any file:\n\(written)")
            #expect(written.contains("REDACTED"))

            let replayer = HTTPStubber()
            try replayer.record(to: folder, mode: .replay, options: options, environment: [:])
            let (data, response) = try await login(replayer)
            #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Set-Cookie") == "REDACTED")
            #expect(
                String(decoding: data, as: UTF8.self) == #"{"token":"REDACTED","user":{"id":1,"token":"REDACTED"}}"#)
        }
    }

    @Test func aNetworkErrorIsReportedAndThePreviousRecordingKept() async throws {
        try await Self.withFolder { folder in
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("mappings"), withIntermediateDirectories: true)
            let previous = Data(#"{"request": {"url": "/old"}, "response": {"body": "old"}}"#.utf8)
            try previous.write(to: folder.appendingPathComponent("mappings/old.json"))
            let down = try RefusingPort()
            let url = down.baseURL.appendingPathComponent("gone")

            let stubber = HTTPStubber()
            let recording = try stubber.record(to: folder, mode: .record, environment: [:])
            await #expect(throws: URLError.self) { _ = try await stubber.stubSession().data(from: url) }
            let error = #expect(throws: HTTPStubberError.self) { try recording.save() }
            #expect(error?.code == .recordingFailed)
            #expect(error?.message.contains("GET \(url.absoluteString)") == true, "\(error?.message ?? "")")
            #expect(filesUnder(folder) == ["mappings/old.json": previous], "nothing half-written")
            withExtendedLifetime(down) {}
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.deletingLastPathComponent().path)
            #expect(leftovers == ["Fixtures"])
        }
    }

    @Test func modesReplayRecordOnceAndAddNewEpisodes() async throws {
        try await Self.withFolder { folder in
            let upstream = try Self.upstream()
            defer { upstream.stop() }
            let base = upstream.baseURL.absoluteString

            // Replay without files: a clear error.
            let error = #expect(throws: HTTPStubberError.self) {
                try HTTPStubber().record(to: folder, mode: .replay, environment: [:])
            }
            #expect(error?.message.contains("has no mappings to replay") == true)

            // Once, without files: records.
            let first = HTTPStubber()
            let once = try first.record(to: folder, mode: .once, environment: [:])
            #expect(once.mode == .record)
            _ = try await first.stubSession().data(from: URL(string: base + "/users/42")!)
            try once.save()

            // Once, with files: replays, and an unrecorded request fails with the near-miss report.
            let second = HTTPStubber()
            #expect(try second.record(to: folder, mode: .once, environment: [:]).mode == .replay)
            let unrecorded = await #expect(throws: HTTPStubberError.self) {
                _ = try await second.stubSession().data(from: URL(string: base + "/pretty")!)
            }
            #expect(unrecorded?.code == .unmatchedRequest)
            #expect(unrecorded?.message.contains("Closest stubs") == true, "\(unrecorded?.message ?? "")")
            #expect(upstream.requests.count == 1, "replaying never reaches the upstream")

            // New episodes: what is recorded replays; what is not goes to the upstream and is added.
            let third = HTTPStubber()
            let episodes = try third.record(to: folder, mode: .newEpisodes, environment: [:])
            _ = try await third.stubSession().data(from: URL(string: base + "/users/42")!)
            _ = try await third.stubSession().data(from: URL(string: base + "/pretty")!)
            #expect(upstream.requests.map(\.target) == ["/users/42", "/pretty"])
            try episodes.save()
            #expect(
                filesUnder(folder).keys.filter { $0.hasPrefix("mappings/") }.sorted() == [
                    "mappings/get-pretty.json", "mappings/get-users-42.json",
                ])

            // The environment variable overrides the code; a bad value is a clear error.
            let forced = try HTTPRecording(
                root: folder, mode: .replay, environment: [HTTPRecording.modeVariable: "record"])
            #expect(forced.mode == .record && forced.requestedMode == .replay)
            let bad = #expect(throws: HTTPStubberError.self) {
                try HTTPRecording(root: folder, environment: [HTTPRecording.modeVariable: "recrod"])
            }
            #expect(bad?.code == .invalidRecordingMode)
            #expect(bad?.message.contains("record, replay, once, new_episodes") == true)
        }
    }

    @Test func replayCanMatchOnBodyAndChosenHeaders() async throws {
        try await Self.withFolder { folder in
            let upstream = try Self.upstream()
            var options = HTTPRecording.Options()
            options.matchesBody = true
            options.matchedHeaders = ["X-Version"]
            var request = Self.post(upstream.baseURL.appendingPathComponent("items"), #"{"name":"pen","n":1}"#)
            request.setValue("2", forHTTPHeaderField: "X-Version")
            let recorder = HTTPStubber()
            let recording = try recorder.record(to: folder, mode: .record, options: options, environment: [:])
            _ = try await recorder.stubSession().data(for: request)
            try recording.save()
            upstream.stop()

            let replayer = HTTPStubber()
            try replayer.record(to: folder, mode: .replay, options: options, environment: [:])
            var reordered = request
            reordered.httpBody = Data(#"{"n": 1, "name": "pen"}"#.utf8)
            let (_, response) = try await replayer.stubSession().data(for: reordered)
            #expect((response as? HTTPURLResponse)?.statusCode == 201, "JSON compared as JSON")
            var otherBody = request
            otherBody.httpBody = Data(#"{"name":"cup","n":1}"#.utf8)
            await #expect(throws: HTTPStubberError.self) { _ = try await replayer.stubSession().data(for: otherBody) }
            var otherHeader = request
            otherHeader.setValue("3", forHTTPHeaderField: "X-Version")
            await #expect(throws: HTTPStubberError.self) { _ = try await replayer.stubSession().data(for: otherHeader) }
        }
    }

    @Test func aProxyingStubForwardsToItsUpstreamInProcess() async throws {
        let upstream = try TestHTTPServer { request in
            .init(
                status: 203, headers: ["X-Seen": request.header("X-Added") ?? "none"], body: Data(request.target.utf8))
        }
        defer { upstream.stop() }
        let stubber = HTTPStubber()
        stubber.add(
            stub: try HTTPStubRequest().match(urlRegex: "^https://api\\.test/v2/").stub(for: .get) {
                $0.proxy = HTTPStubProxy(
                    baseURL: upstream.baseURL.appendingPathComponent("base"), prefixToRemove: "/v2",
                    additionalHeaders: ["X-Added": "yes"])
            })
        let url = URL(string: "https://api.test/v2/users?page=2")!
        for session in [stubber.stubSession() as any AsyncURLSessionProtocol, stubber.session()] {
            let (data, response) = try await session.data(for: URLRequest(url: url))
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 203)
            #expect(http.value(forHTTPHeaderField: "X-Seen") == "yes")
            #expect(String(decoding: data, as: UTF8.self) == "/base/users?page=2")
        }
        #expect(upstream.requests.count == 2)
    }

    @Test func replayedStubsTakeMatchersOfYourOwn() async throws {
        try await Self.withFolder { folder in
            let upstream = try Self.upstream()
            let recorder = HTTPStubber()
            let recording = try recorder.record(to: folder, mode: .record, environment: [:])
            _ = try await recorder.stubSession().data(from: upstream.baseURL.appendingPathComponent("users/42"))
            try recording.save()
            upstream.stop()

            var options = HTTPRecording.Options()
            options.configureReplayStub = { stub in stub.match(header: "X-Tenant", value: "blue") }
            let replayer = HTTPStubber()
            try replayer.record(to: folder, mode: .replay, options: options, environment: [:])
            var request = URLRequest(url: upstream.baseURL.appendingPathComponent("users/42"))
            await #expect(throws: HTTPStubberError.self) { _ = try await replayer.stubSession().data(for: request) }
            request.setValue("blue", forHTTPHeaderField: "X-Tenant")
            let (data, _) = try await replayer.stubSession().data(for: request)
            #expect(data == Data(#"{"id":42,"name":"Mark"}"#.utf8))
        }
    }
}
