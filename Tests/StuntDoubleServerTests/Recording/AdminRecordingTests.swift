import Foundation
import StuntDouble
import StuntDoubleServer
import Testing

/// WireMock's recorder through the admin API: `/__admin/recordings/start`, `stop`, `status`, `snapshot`,
/// against a real upstream (another stub server), and the stubs it makes replaying without it.
@Suite struct AdminRecordingTests {
    typealias Call = AdminAPITests

    /// An upstream: a user as JSON, a long text, and an endpoint that takes JSON.
    static func withUpstream(_ body: (URL, HTTPStubServer) async throws -> Void) async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/users/42").stub(for: .get, json: #"{"id":42}"#))
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/big").stub(
                for: .get, body: String(repeating: "long text ", count: 200)))
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/orders").stub(for: .post, code: .created, json: #"{"ok":true}"#))
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/users/gzipped").stub(for: .get) { response in
                response.headers = ["Content-Encoding": "gzip", "Content-Type": "text/plain"]
                response.body = AdminRecordingTests.gzipped
            })
        let upstream = HTTPStubServer(stubber: stubber)
        let url = try await upstream.start()
        do {
            try await body(url, upstream)
            await upstream.stop()
        } catch {
            await upstream.stop()
            throw error
        }
    }

    /// "hello, compressed", gzipped.
    static let gzipped = Data([
        31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 215, 81, 72, 206, 207, 45, 40, 74, 45, 46, 78, 77, 1,
        0, 18, 126, 25, 120, 17, 0, 0, 0,
    ])

    static func status(_ url: URL) async throws -> String? {
        try await Call.call(.GET, url, "/__admin/recordings/status").object["status"] as? String
    }

    @Test func recordStopAndReplayWithoutTheUpstream() async throws {
        try await Self.withUpstream { upstreamURL, upstream in
            try await Call.withServer { url, _, root in
                #expect(try await Self.status(url) == "NeverStarted")
                let spec = """
                    {"targetBaseUrl": "\(upstreamURL.absoluteString)", "captureHeaders": {"Accept": {}},
                     "extractBodyCriteria": {"textSizeThreshold": "1 kb"}}
                    """
                let started = try await Call.call(.POST, url, "/__admin/recordings/start", body: spec)
                #expect(started.status == 200, "\(started.text)")
                #expect(try await Self.status(url) == "Recording")
                #expect(
                    try await Call.call(.GET, url, "/users/42", headers: [("Accept", "application/json")]).text
                        == #"{"id":42}"#)
                _ = try await Call.call(.GET, url, "/users/42", headers: [("Accept", "application/json")])
                #expect(try await Call.call(.GET, url, "/big").text.hasPrefix("long text long text"))
                let created = try await Call.call(
                    .POST, url, "/orders", body: #"{"items": [1, 2]}"#, headers: [("Content-Type", "application/json")])
                #expect(created.status == 201)

                let stopped = try await Call.call(.POST, url, "/__admin/recordings/stop")
                #expect(stopped.status == 200, "\(stopped.text)")
                #expect(stopped.headers["StuntDouble-Recording-Problem"].isEmpty, "\(stopped.headers)")
                #expect(try await Self.status(url) == "Stopped")
                let mappings = try #require(stopped.object["mappings"] as? [[String: Any]])
                #expect(mappings.count == 4)
                let users = mappings.filter { ($0["request"] as? [String: Any])?["url"] as? String == "/users/42" }
                #expect(users.count == 2)
                #expect(users.map { $0["requiredScenarioState"] as? String } == ["Started", "scenario-1-users-42-2"])
                #expect(users.first?["newScenarioState"] as? String == "scenario-1-users-42-2")
                #expect(users.first?["scenarioName"] as? String == "scenario-1-users-42")
                let userRequest = try #require(users.first?["request"] as? [String: Any])
                #expect(userRequest["method"] as? String == "GET")
                #expect(
                    (userRequest["headers"] as? [String: Any])?["Accept"] as? [String: String]
                        == ["equalTo": "application/json"])
                let big = try #require(mappings.first { $0["name"] as? String == "big" })
                let bodyFile = try #require((big["response"] as? [String: Any])?["bodyFileName"] as? String)
                #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("__files/\(bodyFile)").path))
                let orders = try #require(mappings.first { $0["name"] as? String == "orders" })
                let pattern = ((orders["request"] as? [String: Any])?["bodyPatterns"] as? [[String: Any]])?.first
                #expect(pattern?["equalToJson"] as? String == #"{"items": [1, 2]}"#)
                #expect(pattern?["ignoreArrayOrder"] as? Bool == true)
                #expect((orders["response"] as? [String: Any])?["body"] as? String == #"{"ok":true}"#)

                // Persisted, and the proxy that recorded is gone.
                let written = try FileManager.default.contentsOfDirectory(
                    atPath: root.appendingPathComponent("mappings").path)
                #expect(written.filter { $0.hasSuffix(".json") }.count == 4, "\(written)")
                let listed = try await Call.call(.GET, url, "/__admin/mappings")
                #expect((listed.object["meta"] as? [String: Any])?["total"] as? Int == 4)

                // Replayed without the upstream.
                await upstream.stop()
                #expect(
                    try await Call.call(.GET, url, "/users/42", headers: [("Accept", "application/json")]).text
                        == #"{"id":42}"#)
                #expect(try await Call.call(.GET, url, "/big").text.hasPrefix("long text"))
                let again = try await Call.call(
                    .POST, url, "/orders", body: #"{"items": [2, 1], "extra": 0}"#,
                    headers: [("Content-Type", "application/json")])
                #expect(again.status == 201, "equalToJson ignoring order and extra elements, as WireMock records it")
            }
        }
    }

    @Test func mistakesAndStatesAreAnsweredAsWireMockAnswersThem() async throws {
        try await Call.withServer { url, _, _ in
            let noTarget = try await Call.call(.POST, url, "/__admin/recordings/start", body: "{}")
            #expect(noTarget.status == 422 && noTarget.text.contains("targetBaseUrl is required"))
            let unknown = try await Call.call(
                .POST, url, "/__admin/recordings/start",
                body: #"{"targetBaseUrl": "http://127.0.0.1:9", "persit": false}"#)
            #expect(unknown.status == 422 && unknown.text.contains("persit: not a field of a record spec"))
            let badSize = try await Call.call(
                .POST, url, "/__admin/recordings/snapshot",
                body: #"{"extractBodyCriteria": {"textSizeThreshold": "lots"}}"#)
            #expect(badSize.status == 422 && badSize.text.contains("is not a size"))
            let notRecording = try await Call.call(.POST, url, "/__admin/recordings/stop")
            #expect(notRecording.status == 400 && notRecording.text.contains("Not currently recording."))

            let spec = #"{"targetBaseUrl": "http://127.0.0.1:9", "persist": false}"#
            #expect(try await Call.call(.POST, url, "/__admin/recordings/start", body: spec).status == 200)
            #expect(try await Call.call(.POST, url, "/__admin/recordings/start", body: spec).status == 200)
            let listed = try await Call.call(.GET, url, "/__admin/mappings")
            #expect((listed.object["meta"] as? [String: Any])?["total"] as? Int == 1, "one recording proxy, not two")
            let stopped = try await Call.call(.POST, url, "/__admin/recordings/stop")
            #expect((stopped.object["mappings"] as? [Any])?.isEmpty == true)
            let after = try await Call.call(.GET, url, "/__admin/mappings")
            #expect((after.object["meta"] as? [String: Any])?["total"] as? Int == 0)
        }
    }

    @Test func aSnapshotTakesProxiedRequestsFromTheJournal() async throws {
        try await Self.withUpstream { upstreamURL, _ in
            let files = [
                "mappings/proxy.json":
                    #"{"request": {"urlPathPattern": "/users/.*"}, "response": {"proxyBaseUrl": "\#(upstreamURL.absoluteString)"}}"#,
                "mappings/local.json": #"{"request": {"urlPath": "/local"}, "response": {"body": "here"}}"#,
            ]
            try await Call.withServer(files: files) { url, _, _ in
                _ = try await Call.call(.GET, url, "/users/42")
                _ = try await Call.call(.GET, url, "/users/42")
                _ = try await Call.call(.GET, url, "/local")
                let ids = try await Call.call(
                    .POST, url, "/__admin/recordings/snapshot",
                    body: #"{"persist": false, "repeatsAsScenarios": false, "outputFormat": "ids"}"#)
                #expect((ids.object["ids"] as? [String])?.count == 1, "the proxied request, once: \(ids.text)")
                // An answer forwarded compressed (the client asked for gzip) keeps the header that says so.
                _ = try await Call.call(.GET, url, "/users/gzipped", headers: [("Accept-Encoding", "gzip")])
                let gzipped = try await Call.call(
                    .POST, url, "/__admin/recordings/snapshot",
                    body: #"{"persist": false, "filters": {"urlPath": "/users/gzipped"}}"#)
                let gzippedResponse = try #require(
                    (gzipped.object["mappings"] as? [[String: Any]])?.first?["response"] as? [String: Any])
                #expect((gzippedResponse["headers"] as? [String: Any])?["Content-Encoding"] as? String == "gzip")
                let bytes = Self.gzipped
                #expect(gzippedResponse["base64Body"] as? String == bytes.base64EncodedString())
                let all = try await Call.call(
                    .POST, url, "/__admin/recordings/snapshot",
                    body:
                        #"{"persist": false, "repeatsAsScenarios": false, "filters": {"allowNonProxied": true, "urlPath": "/local"}}"#
                )
                let mappings = try #require(all.object["mappings"] as? [[String: Any]])
                #expect(mappings.count == 1)
                // No Content-Type: not known to be text, so kept in Base64, as WireMock's recorder keeps it.
                #expect((mappings.first?["response"] as? [String: Any])?["base64Body"] as? String == "aGVyZQ==")
            }
        }
    }
}
