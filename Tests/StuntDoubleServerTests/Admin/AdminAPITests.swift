import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleServer
import Testing

/// WireMock's admin API under `/__admin/`, in WireMock's JSON shapes.
@Suite struct AdminAPITests {
    struct Reply {
        let status: UInt
        let text: String
        let headers: NIOHTTP1.HTTPHeaders
        /// The body as JSON (dictionaries and arrays), or `nil`.
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }
        var object: [String: Any] { json as? [String: Any] ?? [:] }
    }

    static func call(
        _ method: NIOHTTP1.HTTPMethod, _ url: URL, _ path: String, body: String? = nil, headers: [(String, String)] = []
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: url.absoluteString + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let text = String(buffer: try await response.body.collect(upTo: 16 << 20))
        return Reply(status: response.status.code, text: text, headers: response.headers)
    }

    /// A stub-file root in a temporary folder.
    static func root(_ files: [String: String]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("admin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        for (path, text) in files {
            let file = url.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        return url
    }

    /// Starts a server, runs `body` with its base URL, and stops the server whatever `body` did.
    static func serving(_ server: HTTPStubServer, _ body: (URL) async throws -> Void) async throws {
        let url = try await server.start()
        do {
            try await body(url)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Runs `body` with a server on a root of files.
    static func withServer(
        files: [String: String] = [:], configuration: HTTPStubServer.Configuration = .init(),
        _ body: (URL, HTTPStubServer, URL) async throws -> Void
    ) async throws {
        let root = try Self.root(files)
        defer { try? FileManager.default.removeItem(at: root) }
        let server = HTTPStubServer(configuration: configuration)
        try server.loadStubFiles(at: root)
        try await serving(server) { baseURL in try await body(baseURL, server, root) }
    }

    @Test func createGetEditAndDeleteMappings() async throws {
        try await Self.withServer { url, _, _ in
            let created = try await Self.call(
                .POST, url, "/__admin/mappings",
                body:
                    #"{"name": "hello", "request": {"method": "GET", "url": "/hello"}, "response": {"status": 200, "body": "hi"}}"#
            )
            #expect(created.status == 201)
            let id = try #require(created.object["id"] as? String)
            #expect(created.object["uuid"] as? String == id)
            #expect(try await Self.call(.GET, url, "/hello").text == "hi")

            let list = try await Self.call(.GET, url, "/__admin/mappings")
            #expect((list.object["meta"] as? [String: Any])?["total"] as? Int == 1)
            #expect(((list.object["mappings"] as? [[String: Any]])?.first?["name"]) as? String == "hello")
            #expect((try await Self.call(.GET, url, "/__admin/mappings/\(id)")).object["name"] as? String == "hello")

            let edited = try await Self.call(
                .PUT, url, "/__admin/mappings/\(id)",
                body: #"{"request": {"method": "GET", "url": "/hello"}, "response": {"status": 200, "body": "edited"}}"#
            )
            #expect(edited.status == 200)
            #expect(edited.object["id"] as? String == id, "the id in the path wins")
            #expect(try await Self.call(.GET, url, "/hello").text == "edited")

            #expect(try await Self.call(.DELETE, url, "/__admin/mappings/\(id)").status == 200)
            #expect(try await Self.call(.GET, url, "/hello").status == 404)
            #expect(try await Self.call(.GET, url, "/__admin/mappings/\(id)").status == 404)
            #expect(try await Self.call(.DELETE, url, "/__admin/mappings/\(id)").status == 404)
        }
    }

    @Test func invalidMappingsGet422WithWhereAndWhy() async throws {
        try await Self.withServer { url, _, _ in
            let refused = try await Self.call(
                .POST, url, "/__admin/mappings",
                body: #"{"request": {"urlPattern": "(("}, "response": {"status": 200}}"#)
            #expect(refused.status == 422)
            let error = try #require((refused.object["errors"] as? [[String: Any]])?.first)
            #expect((error["source"] as? [String: Any])?["pointer"] as? String == "/request/urlPattern")
            #expect((error["detail"] as? String)?.contains("does not compile") == true)

            // An unknown field, which a file may have with a warning: WireMock's admin API refuses it.
            let unknown = try await Self.call(
                .POST, url, "/__admin/mappings", body: #"{"request": {"url": "/w"}, "response": {"bodee": "x"}}"#)
            #expect(unknown.status == 422)
            let unknownError = try #require((unknown.object["errors"] as? [[String: Any]])?.first)
            #expect((unknownError["source"] as? [String: Any])?["pointer"] as? String == "/response/bodee")
            #expect((unknownError["detail"] as? String)?.contains("did you mean \"body\"") == true)

            // What WireMock accepts: an empty id, and no request at all (which matches every request).
            let warned = try await Self.call(
                .POST, url, "/__admin/mappings", body: #"{"uuid": "", "response": {"body": "anything"}}"#)
            #expect(warned.status == 201, "a warning does not refuse the mapping")
            #expect(warned.headers["StuntDouble-Warning"].first?.contains("matches every request") == true)
            #expect((warned.object["id"] as? String)?.isEmpty == false, "an empty id is no id: a new one is made")
            #expect(try await Self.call(.DELETE, url, "/any/path").text == "anything")
            #expect(try await Self.call(.POST, url, "/__admin/mappings", body: "{not json").status == 422)
        }
    }

    @Test func resetGoesBackToTheFilesAndSaveWritesNewMappings() async throws {
        let files = [
            "mappings/one.json": #"{"request": {"url": "/one"}, "response": {"body": "from the file"}}"#,
            "mappings/list.json":
                #"{"mappings": [{"request": {"url": "/a"}, "response": {"body": "a"}}, {"request": {"url": "/b"}, "response": {"body": "b"}}]}"#,
        ]
        try await Self.withServer(files: files) { url, _, root in
            let list = try await Self.call(.GET, url, "/__admin/mappings")
            let mappings = try #require(list.object["mappings"] as? [[String: Any]])
            let one = try #require(mappings.first { ($0["request"] as? [String: Any])?["url"] as? String == "/one" })
            let oneID = try #require(one["id"] as? String)
            _ = try await Self.call(
                .PUT, url, "/__admin/mappings/\(oneID)",
                body: #"{"request": {"url": "/one"}, "response": {"body": "edited"}}"#)
            _ = try await Self.call(
                .POST, url, "/__admin/mappings",
                body:
                    #"{"name": "Made By API", "request": {"method": "POST", "url": "/made"}, "response": {"status": 201}}"#
            )
            #expect(try await Self.call(.GET, url, "/one").text == "edited")

            // Reset: the files again, the API's mapping gone.
            #expect(try await Self.call(.POST, url, "/__admin/mappings/reset").status == 200)
            #expect(try await Self.call(.GET, url, "/one").text == "from the file")
            #expect(try await Self.call(.POST, url, "/made").status == 404)

            // Save: the new mapping in a file of its own, the edited one into its file.
            _ = try await Self.call(
                .POST, url, "/__admin/mappings",
                body:
                    #"{"name": "Made By API", "request": {"method": "POST", "url": "/made"}, "response": {"status": 201}}"#
            )
            let again = try await Self.call(.GET, url, "/__admin/mappings")
            let oneAgain = try #require(
                (again.object["mappings"] as? [[String: Any]])?.first {
                    ($0["request"] as? [String: Any])?["url"] as? String == "/one"
                })
            _ = try await Self.call(
                .PUT, url, "/__admin/mappings/\(oneAgain["id"] as? String ?? "")",
                body: #"{"request": {"url": "/one"}, "response": {"body": "saved edit"}}"#)
            #expect(try await Self.call(.POST, url, "/__admin/mappings/save").status == 200)
            let written = try FileManager.default.contentsOfDirectory(
                atPath: root.appendingPathComponent("mappings").path)
            let made = try #require(written.first { $0.hasPrefix("made-by-api-") })
            let text = try String(contentsOf: root.appendingPathComponent("mappings/\(made)"), encoding: .utf8)
            #expect(text.contains("\n  \"id\": "), "pretty JSON")
            #expect(text.range(of: "\"id\"")!.lowerBound < text.range(of: "\"name\"")!.lowerBound, "sorted keys")
            let oneFile = try String(contentsOf: root.appendingPathComponent("mappings/one.json"), encoding: .utf8)
            #expect(oneFile.contains("saved edit"))
            #expect(written.contains("list.json"), "no file is deleted")
        }
    }

    @Test func savingWithoutARootIsAClearError() async throws {
        try await withStubServer { url in
            let reply = try await Self.call(.POST, url, "/__admin/mappings/save")
            #expect(reply.status == 409)
            #expect(reply.text.contains("no root folder"))
        }
    }

    @Test func aWrongMethodIs405WithAllowAndAnUnknownPath404() async throws {
        try await withStubServer { url in
            let wrong = try await Self.call(.PUT, url, "/__admin/requests")
            #expect(wrong.status == 405)
            #expect(wrong.headers["Allow"] == ["GET, DELETE"])
            #expect(wrong.text.contains("PUT is not allowed on /__admin/requests"))
            let unknown = try await Self.call(.GET, url, "/__admin/mapings")
            #expect(unknown.status == 404)
            #expect(unknown.text.contains("No admin endpoint GET /__admin/mapings"))
        }
    }

    @Test func theJournalCountFindUnmatchedAndNearMisses() async throws {
        let files = [
            "mappings/users.json":
                #"{"name": "users", "request": {"method": "GET", "urlPath": "/users"}, "response": {"body": "[]"}}"#
        ]
        try await Self.withServer(files: files) { url, _, _ in
            _ = try await Self.call(.GET, url, "/users?page=2", headers: [("X-Trace", "1")])
            _ = try await Self.call(.GET, url, "/user")
            _ = try await Self.call(.POST, url, "/users", body: "x")

            let journal = try await Self.call(.GET, url, "/__admin/requests")
            let events = try #require(journal.object["requests"] as? [[String: Any]])
            #expect(events.count == 3)
            #expect((journal.object["meta"] as? [String: Any])?["total"] as? Int == 3)
            let newest = try #require(events.first?["request"] as? [String: Any])
            #expect(newest["method"] as? String == "POST", "newest first")
            let first = try #require(events.last)
            #expect(first["wasMatched"] as? Bool == true)
            #expect(((first["stubMapping"] as? [String: Any])?["name"]) as? String == "users")
            let logged = try #require(first["request"] as? [String: Any])
            #expect(logged["url"] as? String == "/users?page=2")
            #expect((logged["headers"] as? [String: Any])?["X-Trace"] as? String == "1")
            #expect(logged["clientIp"] as? String == "127.0.0.1")
            let id = try #require(first["id"] as? String)
            #expect(try await Self.call(.GET, url, "/__admin/requests/\(id)").status == 200)

            let count = try await Self.call(
                .POST, url, "/__admin/requests/count", body: #"{"method": "GET", "urlPathPattern": "/users?"}"#)
            #expect(count.object["count"] as? Int == 2)
            let found = try await Self.call(
                .POST, url, "/__admin/requests/find", body: #"{"urlPath": "/users", "method": "POST"}"#)
            #expect((found.object["requests"] as? [[String: Any]])?.first?["body"] as? String == "x")
            let bad = try await Self.call(.POST, url, "/__admin/requests/count", body: #"{"urlPattern": "(("}"#)
            #expect(bad.status == 422)

            let unmatched = try await Self.call(.GET, url, "/__admin/requests/unmatched")
            #expect(
                (unmatched.object["requests"] as? [[String: Any]])?.map { $0["url"] as? String } == ["/user", "/users"])
            let near = try await Self.call(.GET, url, "/__admin/requests/unmatched/near-misses")
            let misses = try #require(near.object["nearMisses"] as? [[String: Any]])
            #expect(misses.count == 2)
            #expect((misses.first?["stubMapping"] as? [String: Any])?["name"] as? String == "users")
            #expect(((misses.first?["matchResult"] as? [String: Any])?["distance"] as? Double ?? 1) < 1)

            let asked = try await Self.call(
                .POST, url, "/__admin/near-misses/request", body: #"{"method": "GET", "url": "/userz"}"#)
            #expect((asked.object["nearMisses"] as? [[String: Any]])?.isEmpty == false)
            let patterned = try await Self.call(
                .POST, url, "/__admin/near-misses/request-pattern", body: #"{"method": "GET", "url": "/usr"}"#)
            #expect((patterned.object["nearMisses"] as? [[String: Any]])?.isEmpty == false)

            #expect(try await Self.call(.DELETE, url, "/__admin/requests").status == 200)
            #expect(
                ((try await Self.call(.GET, url, "/__admin/requests")).object["requests"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func scenariosListSetAndReset() async throws {
        let files = [
            "mappings/cart.json": """
            {"mappings": [
              {"scenarioName": "cart", "requiredScenarioState": "Started", "request": {"method": "GET", "url": "/cart"}, "response": {"body": "empty"}},
              {"scenarioName": "cart", "requiredScenarioState": "Started", "newScenarioState": "full", "request": {"method": "POST", "url": "/cart"}, "response": {"status": 201}},
              {"scenarioName": "cart", "requiredScenarioState": "full", "request": {"method": "GET", "url": "/cart"}, "response": {"body": "book"}}
            ]}
            """
        ]
        try await Self.withServer(files: files) { url, _, _ in
            func scenario() async throws -> [String: Any]? {
                (try await Self.call(.GET, url, "/__admin/scenarios").object["scenarios"] as? [[String: Any]])?.first
            }
            #expect(try await scenario()?["state"] as? String == "Started")
            #expect(try await scenario()?["possibleStates"] as? [String] == ["Started", "full"])
            let listed = try #require(try await scenario()?["mappings"] as? [[String: Any]])
            #expect(listed.count == 3 && listed.allSatisfy { $0["scenarioName"] as? String == "cart" })
            _ = try await Self.call(.POST, url, "/cart")
            #expect(try await scenario()?["state"] as? String == "full")
            #expect(try await Self.call(.GET, url, "/cart").text == "book")
            #expect(try await Self.call(.POST, url, "/__admin/scenarios/reset").status == 200)
            #expect(try await Self.call(.GET, url, "/cart").text == "empty")
            #expect(
                try await Self.call(.PUT, url, "/__admin/scenarios/cart/state", body: #"{"state": "full"}"#).status
                    == 200)
            #expect(try await Self.call(.GET, url, "/cart").text == "book")
            #expect(
                try await Self.call(.PUT, url, "/__admin/scenarios/nope/state", body: #"{"state": "x"}"#).status == 404)
        }
    }

    @Test func stubsFromSwiftAreListedApartFromTheMappings() async throws {
        let files = ["mappings/one.json": #"{"name": "from a file", "request": {"url": "/f"}}"#]
        try await Self.withServer(files: files) { url, server, _ in
            server.stubber.add(
                stub: HTTPStubRequest(name: "from Swift", priority: 3).match(URI: "/s/{id}").stub(for: .post, body: "s")
            )
            let mappings = try await Self.call(.GET, url, "/__admin/mappings")
            #expect(
                (mappings.object["meta"] as? [String: Any])?["total"] as? Int == 1, "WireMock's list: mappings only")
            let reply = try await Self.call(.GET, url, "/__admin/stuntdouble/stubs")
            let stubs = try #require(reply.object["stubs"] as? [[String: Any]], "\(reply.text)")
            #expect(stubs.count == 1, "\(reply.text)")
            #expect(stubs.first?["name"] as? String == "from Swift")
            #expect(stubs.first?["methods"] as? [String] == ["POST"])
            #expect(stubs.first?["matchers"] as? [String] == ["URL matches template /s/{id}"])
            #expect(stubs.first?["priority"] as? Int == 3)
        }
    }

    @Test func resetEverythingHealthAndSettings() async throws {
        let files = ["mappings/slow.json": #"{"request": {"url": "/d"}, "response": {"body": "d"}}"#]
        try await Self.withServer(files: files) { url, _, _ in
            _ = try await Self.call(.POST, url, "/__admin/mappings", body: #"{"request": {"url": "/tmp"}}"#)
            _ = try await Self.call(.GET, url, "/d")
            let health = try await Self.call(.GET, url, "/__admin/health")
            #expect(health.object["status"] as? String == "healthy")
            // WireMock 3's unmatched mappings: /d was asked for, /tmp was not.
            let unmatched = try await Self.call(.GET, url, "/__admin/mappings/unmatched")
            let urls = (unmatched.object["mappings"] as? [[String: Any]])?.compactMap {
                ($0["request"] as? [String: Any])?["url"] as? String
            }
            #expect(urls == ["/tmp"], "\(unmatched.text)")
            #expect(try await Self.call(.DELETE, url, "/__admin/mappings/unmatched").status == 200)
            #expect(try await Self.call(.GET, url, "/tmp").status == 404, "the unmatched mapping is gone")
            #expect(try await Self.call(.GET, url, "/d").status == 200, "the matched one stays")
            // WireMock 3's version endpoint, as JSON and, when asked for, as text.
            let version = try await Self.call(.GET, url, "/__admin/version")
            #expect(version.object["version"] as? String == HTTPStubServer.version)
            let text = try await Self.call(.GET, url, "/__admin/version", headers: [("Accept", "text/plain")])
            #expect(text.text == HTTPStubServer.version)
            #expect(text.headers["Content-Type"].first?.hasPrefix("text/plain") == true)

            let settings = try await Self.call(.POST, url, "/__admin/settings", body: #"{"fixedDelay": 400}"#)
            #expect((settings.object["settings"] as? [String: Any])?["fixedDelay"] as? Int == 400)
            let start = ContinuousClock.now
            _ = try await Self.call(.GET, url, "/d")
            #expect(ContinuousClock.now - start >= .milliseconds(400), "the global delay applies to stubs")

            #expect(try await Self.call(.POST, url, "/__admin/reset").status == 200)
            #expect(
                ((try await Self.call(.GET, url, "/__admin/requests")).object["requests"] as? [Any])?.isEmpty == true)
            #expect(try await Self.call(.GET, url, "/tmp").status == 404, "the API's mapping is gone")
            #expect((try await Self.call(.GET, url, "/__admin/settings")).text.contains("\"fixedDelay\": 0"))
        }
    }

    @Test func metadataImportAndFaultsThroughTheAPI() async throws {
        try await Self.withServer { url, _, _ in
            let imported = try await Self.call(
                .POST, url, "/__admin/mappings/import",
                body:
                    #"{"mappings": [{"request": {"url": "/x"}, "metadata": {"team": "a"}}, {"request": {"url": "/y"}, "metadata": {"team": "b"}}, {"request": {"url": "/reset"}, "response": {"fault": "CONNECTION_RESET_BY_PEER"}}]}"#
            )
            #expect(imported.status == 200)
            let found = try await Self.call(
                .POST, url, "/__admin/mappings/find-by-metadata", body: #"{"matchesJsonPath": "$[?(@.team == 'a')]"}"#)
            #expect((found.object["mappings"] as? [[String: Any]])?.count == 1)
            _ = try await Self.call(
                .POST, url, "/__admin/mappings/remove-by-metadata", body: #"{"matchesJsonPath": "$[?(@.team == 'b')]"}"#
            )
            #expect(try await Self.call(.GET, url, "/y").status == 404)
            #expect(try await Self.call(.GET, url, "/x").status == 200)
            await #expect(throws: (any Error).self) { _ = try await Self.call(.GET, url, "/reset") }
        }
    }

    @Test func beyondLoopbackTheAPINeedsAToken() async throws {
        var open = HTTPStubServer.Configuration(host: "0.0.0.0")
        do {
            try await HTTPStubServer(configuration: open).start()
            Issue.record("an open admin API must not listen beyond loopback")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains("give an admin token"))
        }
        open.isAdminAPIEnabled = false
        let withoutAdmin = HTTPStubServer(configuration: open)
        try await withoutAdmin.start()
        await withoutAdmin.stop()
        // Asked for (as WireMock's container listens), or guarded by WireMock's basic credentials.
        open.isAdminAPIEnabled = true
        open.allowsOpenAdminAPI = true
        let asked = HTTPStubServer(configuration: open)
        try await asked.start()
        await asked.stop()
        open.allowsOpenAdminAPI = false
        open.adminBasicCredentials = "no colon"
        await #expect(throws: HTTPStubServerError.self) { try await HTTPStubServer(configuration: open).start() }
        open.adminBasicCredentials = "user:secret"
        let withCredentials = HTTPStubServer(configuration: open)
        try await withCredentials.start()
        await withCredentials.stop()

        var guarded = HTTPStubServer.Configuration()
        guarded.adminToken = "s3cret"
        try await withStubServer(configuration: guarded) { url in
            let refused = try await Self.call(.GET, url, "/__admin/mappings")
            #expect(refused.status == 401)
            #expect(refused.headers["WWW-Authenticate"].first?.hasPrefix("Bearer") == true)
            #expect(
                try await Self.call(.GET, url, "/__admin/mappings", headers: [("Authorization", "Bearer nope")]).status
                    == 401)
            #expect(
                try await Self.call(.GET, url, "/__admin/mappings", headers: [("Authorization", "Bearer s3cret")])
                    .status == 200)
            #expect(
                try await Self.call(.GET, url, "/__admin/?token=s3cret", headers: [("Accept", "text/html")]).status
                    == 200,
                "the page, with the token in its address")
            #expect(
                try await Self.call(.GET, url, "/__admin/?token=s3cret").status == 401,
                "the mappings WireMock's root lists, which the token in an address does not open")
            #expect(
                try await Self.call(.GET, url, "/__admin/mappings?token=s3cret").status == 401,
                "the API takes it as a header only")
        }
    }

    @Test func withTheAPIOffAdminPathsAreOrdinaryRequests() async throws {
        var configuration = HTTPStubServer.Configuration()
        configuration.isAdminAPIEnabled = false
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/__admin/health").stub(for: .get, body: "my own"))
        try await withStubServer(stubber: stubber, configuration: configuration) { (url: URL) async throws in
            #expect(try await Self.call(.GET, url, "/__admin/health").text == "my own")
            #expect(try await Self.call(.GET, url, "/__admin/mappings").status == 404)
        }
    }
}
