import AsyncHTTPClient
import Foundation
import NIOCore
import StuntDouble
import StuntDoubleServer
import Testing

/// Edit, save, see: `serve` reloads a changed document or stub file while it serves; a broken edit or a removed
/// document is logged with where it breaks and the last good version serves on. And the reading again itself,
/// in process (`HTTPStubServer.reloadStubFiles()`).
@Suite struct ReloadTests {
    typealias Call = AdminAPITests

    /// The tasks document of `OpenAPICommandTests`, its example's `done` as given.
    static func document(done: Bool) -> String {
        OpenAPICommandTests.document.replacingOccurrences(of: "done: false }", with: "done: \(done) }")
    }

    static func mapping(_ body: String) -> String {
        #"{"request": {"method": "GET", "urlPath": "/hello"}, "response": {"status": 200, "body": "\#(body)"}}"#
    }

    /// Waits, asking again and again, until `done` holds (or 120 s pass: a loaded machine still gets there).
    static func eventually(_ done: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if try await done() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await done()
    }

    static func get(_ base: Substring, _ path: String) async throws -> (Int, String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + path), timeout: .seconds(120))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    @Test func serveReloadsAnEditedDocumentAndKeepsTheLastGoodOneThroughABrokenEditAndARemoval() async throws {
        let root = try Call.root([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("tasks.yaml")
        try Self.document(done: false).write(to: file, atomically: true, encoding: .utf8)
        let serve = try CommandProcess(["serve", "--port", "0", "--openapi", file.path])
        #expect(try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") }, "\(serve.standardError)")
        #expect(serve.standardOutput.contains("Reloading on change: \(file.path)"))
        let base = try #require(serve.standardOutput.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/)).1
        #expect(try await Self.get(base, "/tasks/3") == (200, #"{"id":3,"done":false}"#))

        try Self.document(done: true).write(to: file, atomically: true, encoding: .utf8)
        #expect(try await Self.eventually { try await Self.get(base, "/tasks/3").1 == #"{"id":3,"done":true}"# })
        #expect(
            try await serve.waitForOutput { $0.contains("Reloaded OpenAPI \(file.path) (Tasks, 1 operation)") },
            "\(serve.standardOutput)")

        // Broken: a mapping where a list is due, on line 3.
        try Self.document(done: false).replacingOccurrences(of: "paths:", with: "paths: [").write(
            to: file, atomically: true, encoding: .utf8)
        #expect(
            try await serve.waitForError { $0.contains("cannot be read (above)") && $0.contains("tasks.yaml:") },
            "where it breaks: \(serve.standardError)")
        #expect(try await Self.get(base, "/tasks/3").1 == #"{"id":3,"done":true}"#, "the last good version")

        try FileManager.default.removeItem(at: file)
        #expect(
            try await Self.eventually {
                serve.standardError.components(separatedBy: "cannot be read (above)").count == 3
            }, "\(serve.standardError)")
        #expect(try await Self.get(base, "/tasks/3").1 == #"{"id":3,"done":true}"#, "still the last good version")

        try Self.document(done: false).write(to: file, atomically: true, encoding: .utf8)
        #expect(try await Self.eventually { try await Self.get(base, "/tasks/3").1 == #"{"id":3,"done":false}"# })
        serve.signal(SIGTERM)
        #expect(try await serve.waitForExit() == 0)
    }

    @Test func serveReloadsEditedStubFilesAndKeepsTheLastGoodReadingThroughABrokenOne() async throws {
        let root = try Call.root(["mappings/hello.json": Self.mapping("one")])
        defer { try? FileManager.default.removeItem(at: root) }
        let serve = try CommandProcess(["serve", "--port", "0", "--root", root.path])
        #expect(try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") }, "\(serve.standardError)")
        let base = try #require(serve.standardOutput.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/)).1
        #expect(try await Self.get(base, "/hello") == (200, "one"))

        let hello = root.appendingPathComponent("mappings/hello.json")
        try Self.mapping("two").write(to: hello, atomically: true, encoding: .utf8)
        #expect(try await Self.eventually { try await Self.get(base, "/hello").1 == "two" })
        #expect(try await serve.waitForOutput { $0.contains("Reloaded 1 stub from \(root.path)") })

        try #"{"request": {"method": "GET", "urlPath": "/hello"}, "response": {"status": "#.write(
            to: hello, atomically: true, encoding: .utf8)
        #expect(
            try await serve.waitForError {
                $0.contains("have errors (above)") && $0.contains("mappings/hello.json:1:")
            }, "\(serve.standardError)")
        #expect(try await Self.get(base, "/hello").1 == "two", "the last good reading")

        try FileManager.default.removeItem(at: hello)
        #expect(try await Self.eventually { try await Self.get(base, "/hello").0 == 404 }, "its stub went with it")
        serve.signal(SIGTERM)
        #expect(try await serve.waitForExit() == 0)
    }

    @Test func readingTheFilesAgainKeepsWhatTheAdminAPIDidAndScenarioStates() async throws {
        let scenario = """
            {"mappings": [
              {"scenarioName": "door", "requiredScenarioState": "Started", "newScenarioState": "open",
               "request": {"method": "POST", "url": "/door"}, "response": {"status": 200, "body": "opened"}},
              {"scenarioName": "door", "requiredScenarioState": "open",
               "request": {"method": "GET", "url": "/door"}, "response": {"status": 200, "body": "open"}}
            ]}
            """
        try await Call.withServer(files: ["mappings/hello.json": Self.mapping("file"), "mappings/door.json": scenario])
        {
            url, server, root in
            // Through the admin API: a mapping of its own for /hello (newer, so it wins), and the door opened.
            let made = try await Call.call(.POST, url, "/__admin/mappings", body: Self.mapping("api"))
            #expect(made.status == 201)
            #expect(try await Call.call(.POST, url, "/door").text == "opened")

            try Self.mapping("file, edited").write(
                to: root.appendingPathComponent("mappings/hello.json"), atomically: true, encoding: .utf8)
            let files = try #require(try server.reloadStubFiles())
            #expect(files.mappingCount == 3)
            #expect(try await Call.call(.GET, url, "/hello").text == "api", "the admin API's mapping still wins")
            #expect(try await Call.call(.GET, url, "/door").text == "open", "the scenario kept its state")
            let listed = try await Call.call(.GET, url, "/__admin/mappings")
            #expect((listed.object["mappings"] as? [Any])?.count == 4)

            try "{".write(to: root.appendingPathComponent("mappings/hello.json"), atomically: true, encoding: .utf8)
            #expect(throws: HTTPStubberError.self) { try server.reloadStubFiles() }
            let after = try await Call.call(.GET, url, "/__admin/mappings")
            #expect((after.object["mappings"] as? [Any])?.count == 4, "nothing changed")

            let id = try #require(made.object["id"] as? String)
            #expect(try await Call.call(.DELETE, url, "/__admin/mappings/\(id)").status == 200)
            try FileManager.default.removeItem(at: root.appendingPathComponent("mappings/hello.json"))
            try server.reloadStubFiles()
            #expect(try await Call.call(.GET, url, "/hello").status == 404)
            #expect(try await Call.call(.GET, url, "/door").text == "open")
        }
    }
}
