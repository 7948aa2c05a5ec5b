import AsyncHTTPClient
import Foundation
import NIOCore
import StuntDouble
import StuntDoubleServer
import StuntDoubleWireMock
import TestSupport
import Testing

/// The server as a proxy (`serve --proxy`) and as a recording proxy (`stuntdouble record`), against real
/// upstreams on loopback: the project's own server and Python's http.server.
@Suite struct ProxyRecordingTests {
    /// An upstream of our own: JSON with a header of its own, a dribbled body, a redirect.
    static func upstreamStubber() -> HTTPStubber {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/data").stub(for: .get) {
                $0.statusCode = .created
                $0.headers = ["X-Upstream": "yes", "Content-Type": "application/json"]
                $0.body = Data(#"{"b":2,"a":[1,2,3]}"#.utf8)
            })
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/slow").stub(for: .get) {
                $0.body = Data("0123456789ABCDEF".utf8)
                $0.responseTime = .dribbled(chunks: 4, over: 1.2)
            })
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/open")
                .stub(for: .get, response: .eventStream([HTTPStubEvent(data: "hello")], end: .stayOpen)))
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/moved").stub(for: .get) {
                $0.statusCode = .found
                $0.headers = ["Location": "/data"]
            })
        stubber.add(stub: HTTPStubRequest().match(URI: "/echo").stubEcho())
        return stubber
    }

    static func get(_ url: String) async throws -> (status: UInt, headers: [String: String], body: Data) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(120))
        let body = Data((try await response.body.collect(upTo: 16 << 20)).readableBytesView)
        var headers: [String: String] = [:]
        for (name, value) in response.headers { headers[name.lowercased()] = value }
        return (response.status.code, headers, body)
    }

    @Test func unmatchedRequestsGoToTheUpstreamAndStreamBack() async throws {
        try await withStubServer(stubber: Self.upstreamStubber()) { upstream in
            let stubber = HTTPStubber()
            stubber.add(stub: HTTPStubRequest().match(URI: "/local").stub(for: .get, body: "local"))
            var configuration = HTTPStubServer.Configuration()
            configuration.upstream = upstream
            try await withStubServer(stubber: stubber, configuration: configuration) { proxy in
                #expect(String(decoding: try await Self.get("\(proxy)/local").body, as: UTF8.self) == "local")

                let data = try await Self.get("\(proxy)/data")
                #expect(data.status == 201)
                #expect(data.headers["x-upstream"] == "yes")
                #expect(data.body == Data(#"{"b":2,"a":[1,2,3]}"#.utf8))

                // A redirect is the client's to follow, not the proxy's.
                let moved = try await RawConnection.connect(
                    to: proxy, sending: "GET /moved HTTP/1.1\r\nHost: x\r\n\r\n")
                let redirect = try #require(try await moved.readResponse())
                #expect(redirect.status == 302)
                #expect(redirect.header("Location") == "/data")
                await moved.close()

                // A dribbled body arrives whole.
                let slow = try await RawConnection.connect(to: proxy, sending: "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try #require(try await slow.readResponse(timeout: .seconds(120)))
                await slow.close()
                #expect(response.text == "0123456789ABCDEF")
                // A body comes through as it arrives, not all at the end: the start of a response whose upstream
                // never ends reaches the client. (Counting reads of the dribbled body instead failed beside a busy
                // machine: a proxy held up for its 1.2 s got every piece before it could pass one on.)
                let open = try await RawConnection.connect(to: proxy, sending: "GET /open HTTP/1.1\r\nHost: x\r\n\r\n")
                let streamed = try await open.read(timeout: .seconds(120)) { data in
                    String(decoding: data, as: UTF8.self).contains("data: hello")
                }
                await open.close()
                #expect(streamed, "the first event of an endless upstream stream never reached the client")

                // The request reaches the upstream as sent: method, path, query, headers, body.
                var post = HTTPClientRequest(url: "\(proxy)/echo?x=1")
                post.method = .POST
                post.headers.add(name: "X-Custom", value: "kept")
                post.body = .bytes(ByteBuffer(string: "payload"))
                let echoed = try await HTTPClient.shared.execute(post, timeout: .seconds(120))
                let echo = String(buffer: try await echoed.body.collect(upTo: 1 << 20))
                #expect(echo.contains("payload"), "\(echo)")
            }
            #expect(stubber.journal.count == 6, "local, data, moved, slow, open, echo")
        }
    }

    @Test func aMappingWithProxyBaseUrlForwardsToIt() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-map-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try await withStubServer(stubber: Self.upstreamStubber()) { upstream in
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
            try Data(
                #"{"request": {"urlPathPattern": "/api/.*"}, "response": {"proxyBaseUrl": "\#(upstream)", "proxyUrlPrefixToRemove": "/api", "additionalProxyRequestHeaders": {"X-Via": "stuntdouble"}}}"#
                    .utf8
            ).write(to: root.appendingPathComponent("mappings/proxy.json"))
            let stubber = HTTPStubber()
            try stubber.load(stubFilesAt: root)
            try await withStubServer(stubber: stubber) { server in
                let data = try await Self.get("\(server)/api/data")
                #expect(data.status == 201)
                #expect(data.body == Data(#"{"b":2,"a":[1,2,3]}"#.utf8))
                #expect(try await Self.get("\(server)/elsewhere").status == 404, "only what the mapping matches")
            }
        }
    }

    @Test func anUpstreamThatIsDownGets500SayingSoWithoutRetrying() async throws {
        let down = try RefusingPort()
        var configuration = HTTPStubServer.Configuration()
        configuration.upstream = down.baseURL
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("down-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = HTTPStubber()
        let recording = try recorder.record(to: folder, mode: .record, environment: [:])
        try await withStubServer(stubber: recorder, configuration: configuration) { proxy in
            let answer = try await Self.get("\(proxy)/anything")
            // Not retried: the answer names the refusal itself. Retrying a refused connection would go on until
            // the 5-second connect timeout, and the answer would name that timeout (a fresh-clone CI once took 4.2 s
            // to be refused once, so the answer is checked, not the clock).
            let again = String(decoding: try await Self.get("\(proxy)/again").body, as: UTF8.self)
            #expect(again.contains("Connection refused"), "\(again)")
            #expect(!again.lowercased().contains("timeout"), "\(again)")
            // As WireMock: 500 and its first words.
            #expect(answer.status == 500)
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(text.hasPrefix("Network failure trying to make a proxied request from StuntDouble to "))
            #expect(text.contains("/anything\n"), "the URL it tried: \(text)")
        }
        // A recording that lost an exchange is not written.
        let error = #expect(throws: HTTPStubberError.self) { try recording.save() }
        #expect(error?.code == .recordingFailed)
        #expect(error?.message.contains("GET http://127.0.0.1:") == true, "\(error?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        withExtendedLifetime(down) {}
        var bad = HTTPStubServer.Configuration()
        bad.upstream = URL(string: "ftp://example.com")
        await #expect(throws: HTTPStubServerError.self) { try await withStubServer(configuration: bad) { _ in } }
    }

    /// Records `paths` from an upstream through a recording proxy, then serves the recording and checks the
    /// answers are the same, byte for byte. Returns the recording's files.
    static func recordAndReplay(upstream: URL, paths: [String], into folder: URL) async throws -> [String: Data] {
        let recorder = HTTPStubber()
        let recording = try recorder.record(to: folder, mode: .record, environment: [:])
        var configuration = HTTPStubServer.Configuration()
        configuration.upstream = upstream
        var live: [String] = []
        try await withStubServer(stubber: recorder, configuration: configuration) { proxy in
            for path in paths {
                let answer = try await get("\(proxy)\(path)")
                live.append(
                    "\(answer.status) \(answer.headers["content-type"] ?? "") \(answer.body.base64EncodedString())")
            }
        }
        try recording.save()
        let replayer = HTTPStubber()
        try replayer.load(stubFilesAt: folder)
        var replayed: [String] = []
        try await withStubServer(stubber: replayer) { server in
            for path in paths {
                let answer = try await get("\(server)\(path)")
                replayed.append(
                    "\(answer.status) \(answer.headers["content-type"] ?? "") \(answer.body.base64EncodedString())")
            }
        }
        #expect(replayed == live)
        #expect(replayer.unmatchedRequests.isEmpty)
        return filesUnder(folder)
    }

    @Test func recordingFromOurOwnServerReplaysTheSameBytes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-rec-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withStubServer(stubber: Self.upstreamStubber()) { upstream in
            let first = try await Self.recordAndReplay(upstream: upstream, paths: ["/data", "/slow"], into: folder)
            let second = try await Self.recordAndReplay(upstream: upstream, paths: ["/data", "/slow"], into: folder)
            #expect(first == second, "recording again writes the same bytes")
            #expect(first.keys.sorted() == ["mappings/get-data.json", "mappings/get-slow.json"])
        }
    }

    @Test(.enabled(if: runsWithOutsideProgram(ChildProcess.succeeds("python3", ["--version"])), "python3 is missing"))
    func recordingFromPythonsHTTPServerReplaysTheSameBytes() async throws {
        let site = FileManager.default.temporaryDirectory.appendingPathComponent("site-\(UUID().uuidString)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("py-rec-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: site)
            try? FileManager.default.removeItem(at: folder)
        }
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Data("hello from python\n".utf8).write(to: site.appendingPathComponent("hello.txt"))
        try Data("{\n  \"name\": \"pretty\",\n  \"list\": [1, 2]\n}\n".utf8).write(
            to: site.appendingPathComponent("data.json"))
        try Data((0..<256).map { UInt8($0) }).write(to: site.appendingPathComponent("bytes.bin"))
        let python = try ChildProcess(
            "python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", site.path])
        defer { python.signal(SIGKILL) }
        var port: String?
        // Python's start is a bound, not a claim: under ThreadSanitizer, on a loaded machine, it once took over 30 s.
        let deadline = ContinuousClock.now + .seconds(180)
        while port == nil, ContinuousClock.now < deadline {
            port = python.standardOutput.firstMatch(of: /port (\d+)/).map { String($0.1) }
            if port == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let upstream = URL(string: "http://127.0.0.1:\(try #require(port, "\(python.standardError)"))")!
        let paths = ["/hello.txt", "/data.json", "/bytes.bin", "/", "/missing"]
        let first = try await Self.recordAndReplay(upstream: upstream, paths: paths, into: folder)
        let second = try await Self.recordAndReplay(upstream: upstream, paths: paths, into: folder)
        #expect(first == second, "recording again writes the same bytes (no Date)")
        let text = String(decoding: first["mappings/get-hello-txt.json"] ?? Data(), as: UTF8.self)
        #expect(text.contains(#""body": "hello from python\n""#), "\(text)")
        #expect(first["__files/get-bytes-bin.bin"] == Data((0..<256).map { UInt8($0) }))
        #expect(first["__files/get-data-json.json"] != nil, "pretty JSON kept byte for byte in a .json file")
    }

    @Test func theRecordCommandWritesTheRecordingWhenStopped() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cmd-rec-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withStubServer(stubber: Self.upstreamStubber()) { upstream in
            let record = try CommandProcess([
                "record", "--upstream", upstream.absoluteString, "--root", folder.path, "--port", "0",
            ])
            #expect(
                try await record.waitForOutput { $0.contains("Press Ctrl-C") },
                "\(record.standardOutput)\(record.standardError)")
            let match = try #require(record.standardOutput.firstMatch(of: /through (http:\/\/127\.0\.0\.1:\d+)/))
            let data = try await Self.get("\(match.1)/data")
            #expect(data.status == 201)
            record.signal(SIGTERM)
            #expect(try await record.waitForExit() == 0, "\(record.standardError)")
            #expect(record.standardOutput.contains("Wrote 1 exchange to"), "\(record.standardOutput)")
            let mapping = String(
                decoding: FileManager.default.contents(
                    atPath: folder.appendingPathComponent("mappings/get-data.json").path) ?? Data(),
                as: UTF8.self)
            #expect(mapping.contains(#""X-Upstream": "yes""#), "\(mapping)")
        }
    }
}
