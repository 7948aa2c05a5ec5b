import AsyncHTTPClient
import Foundation
import NIOCore
import StuntDouble
import StuntDoubleOpenAPI
import StuntDoubleServer
import TestSupport
import Testing

/// The traffic page at `/__admin/`, in a real browser (headless Chromium, driven by Scripts/traffic-page-check).
@Suite struct TrafficPageTests {
    static let chromiumInstalled = runsWithOutsideProgram(ChildProcess.succeeds("chromium", ["--version"]))

    /// The repository's Scripts folder, found from this file.
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts")

    @Test func thePageLoadsNothingFromOutsideTheServer() async throws {
        try await withStubServer { baseURL in
            var page = HTTPClientRequest(url: baseURL.absoluteString + "/__admin/")
            // As a browser asks.
            page.headers.add(name: "Accept", value: "text/html,application/xhtml+xml,*/*;q=0.8")
            let response = try await HTTPClient.shared.execute(page, timeout: .seconds(120))
            #expect(response.status == .ok)
            #expect(response.headers["Content-Type"] == ["text/html; charset=utf-8"])
            let html = String(buffer: try await response.body.collect(upTo: 1 << 20))
            #expect(html.contains("<table id=\"requests\">"))
            #expect(html.contains("<table id=\"webhooks\">") && html.contains("/stuntdouble/webhooks"))
            #expect(!html.contains("http://") && !html.contains("https://"), "no CDN, no outside address")
        }
    }

    @Test(.enabled(if: chromiumInstalled, "Chromium is not installed (apt-get install chromium; CI does)"))
    func theJournalAndNearMissesShowLiveInABrowser() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("page-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try Data(
            #"{"mappings": [{"name": "list users", "request": {"method": "GET", "urlPath": "/users"}, "response": {"jsonBody": []}}, {"name": "broken", "request": {"urlPath": "/broken"}, "response": {"fault": "EMPTY_RESPONSE"}}]}"#
                .utf8
        ).write(to: root.appendingPathComponent("mappings/users.json"))
        let stubber = HTTPStubber()
        let swiftStub = HTTPStubRequest(name: "health from Swift").match(URI: "/health").stub(for: .get, body: "ok")
        stubber.add(stub: swiftStub)
        let server = HTTPStubServer(stubber: stubber)
        try server.loadStubFiles(at: root)
        let baseURL = try await server.start()
        _ = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: baseURL.absoluteString + "/users"), timeout: .seconds(120))
        _ = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: baseURL.absoluteString + "/userz"), timeout: .seconds(120))
        let screenshot = FileManager.default.temporaryDirectory.appendingPathComponent("page-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: screenshot) }
        let result = try await ChildProcess.run(
            Self.scripts.appendingPathComponent("traffic-page-check").path,
            [
                baseURL.absoluteString, "--screenshot", screenshot.path, "--expect-stub", "list users",
                "--expect-stub", #"stub "health from Swift""#,
            ], timeout: .seconds(120))
        await server.stop()
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(
            result.output.split(separator: "\n").map(String.init) == [
                "ok: the page lists the stubs", "ok: the stubs include list users",
                #"ok: the stubs include stub "health from Swift""#, "ok: the page lists the requests already received",
                "ok: a new request appears without reloading", "ok: an unmatched request says so",
                "ok: clicking it shows the near-miss report", "ok: screenshot saved",
            ], "\(result.output)\(result.error)")
        let png = try Data(contentsOf: screenshot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test(.enabled(if: chromiumInstalled, "Chromium is not installed (apt-get install chromium; CI does)"))
    func anEventStreamShowsItsEventsUnderItsRequest() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest(name: "feed").match(URI: "/feed").stub(
                for: .get,
                response: .eventStream(
                    [HTTPStubEvent(data: "hello", id: "1", delay: 0.1), HTTPStubEvent(data: "bye", event: "end")],
                    repetition: .times(2))))
        let server = HTTPStubServer(stubber: stubber)
        let baseURL = try await server.start()
        let feed = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: baseURL.absoluteString + "/feed"), timeout: .seconds(120))
        _ = try await feed.body.collect(upTo: 1 << 20)
        // The admin API lists the events with the times they were due.
        let requests = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: baseURL.absoluteString + "/__admin/requests"), timeout: .seconds(120))
        let json = String(buffer: try await requests.body.collect(upTo: 1 << 20))
        #expect(json.contains(#""serverSentEvents""#) && json.contains(#""dueMilliseconds": 100"#), "\(json)")
        let result = try await ChildProcess.run(
            Self.scripts.appendingPathComponent("traffic-page-check").path,
            [
                baseURL.absoluteString, "--expect-stub", "feed", "--expect-events", "+100 ms  message #1  hello",
                "--expect-events", "end  bye", "--expect-events", "event stream (played 2 times)",
            ], timeout: .seconds(120))
        await server.stop()
        #expect(result.status == 0, "\(result.output)\(result.error)")
    }

    @Test(.enabled(if: chromiumInstalled, "Chromium is not installed (apt-get install chromium; CI does)"))
    func webSocketChannelsShowTheirMessagesBothWays() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            messageStub: HTTPMessageStub(name: "echo").onMessage(.equalTo("ping")).send(.text("pong from the stub")))
        stubber.add(stub: HTTPStubRequest(name: "health").match(URI: "/health").stub(for: .get, json: "{}"))
        let server = HTTPStubServer(stubber: stubber)
        let baseURL = try await server.start()
        _ = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: baseURL.absoluteString + "/health"), timeout: .seconds(120))
        let (chat, _) = try await WebSocketTestClient.connect(to: baseURL, path: "/chat/room-9")
        try await chat.send(text: "ping")
        try await chat.send(text: "nobody answers this")
        #expect(try await chat.frames(count: 1).map(\.text) == ["pong from the stub"])
        let result = try await ChildProcess.run(
            Self.scripts.appendingPathComponent("traffic-page-check").path,
            [
                baseURL.absoluteString, "--expect-messages", "/chat/room-9",
                "--expect-messages", #"⇠ client  ping   (message stub "echo")"#,
                "--expect-messages", "⇢ client  pong from the stub",
                "--expect-messages", "⇠ client  nobody answers this   (no stub matched)",
            ], timeout: .seconds(120))
        await chat.close()
        await server.stop()
        #expect(result.status == 0, "\(result.output)\(result.error)")
    }

    @Test(.enabled(if: chromiumInstalled, "Chromium is not installed (apt-get install chromium; CI does)"))
    func aStubsAnswerThatBreaksTheOpenAPIDocumentShowsUnderItsRequest() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest(name: "stale note").match(URL: "/api/notes/2").stub(
                for: .get, json: #"{"id": "two"}"#))
        stubber.load(try OpenAPIContract(text: OpenAPIServingTests.document))
        let server = HTTPStubServer(stubber: stubber)
        let baseURL = try await server.start()
        _ = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: baseURL.absoluteString + "/api/notes/2"), timeout: .seconds(120))
        let result = try await ChildProcess.run(
            Self.scripts.appendingPathComponent("traffic-page-check").path,
            [baseURL.absoluteString, "--expect-violation", "body.id: expected integer, found string"],
            timeout: .seconds(120))
        await server.stop()
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("ok: a broken answer shows body.id: expected integer"), "\(result.output)")
    }

    /// WireMock's root lists the mappings: a client of its API, which asks for no HTML, gets them.
    @Test func aClientThatAsksForNoHTMLGetsTheMappingsAsFromWireMock() async throws {
        let stubber = HTTPStubber()
        try await withStubServer(stubber: stubber) { baseURL in
            let added = try await AdminAPITests.call(
                .POST, baseURL, "/__admin/mappings", body: #"{"request": {"url": "/x"}, "response": {"body": "x"}}"#)
            #expect(added.status == 201)
            for accept in [nil, "application/json", "*/*"] {
                var request = HTTPClientRequest(url: baseURL.absoluteString + "/__admin/")
                if let accept { request.headers.add(name: "Accept", value: accept) }
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
                let body = try await response.body.collect(upTo: 1 << 20)
                let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
                #expect((json?["mappings"] as? [Any])?.count == 1, "Accept: \(accept ?? "none")")
                #expect((json?["meta"] as? [String: Any])?["total"] as? Int == 1)
            }
        }
    }
}
