import AsyncHTTPClient
import Foundation
import NIOCore
import NIOWebSocket
import Testing

/// The `stuntdouble` command, run as a process: `serve` and `check`.
@Suite struct CommandTests {
    /// A stub-file root in a temporary folder.
    func root(_ files: [String: String]) throws -> URL {
        try AdminAPITests.root(files)
    }

    @Test func serveStartsOnTheBundledExamplesAndLogsEachRequest() async throws {
        let serve = try CommandProcess(["serve", "--port", "0"])
        #expect(try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") }, "\(serve.standardOutput)")
        let output = serve.standardOutput
        let match = try #require(
            output.firstMatch(of: /Serving (\d+) stubs from the bundled examples on (http:\/\/127\.0\.0\.1:\d+)/))
        #expect(Int(match.1)! >= 10)
        #expect(output.contains("GET /users/{name}/repos"))
        let baseURL = String(match.2)

        let repos = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: baseURL + "/users/mark/repos"), timeout: .seconds(120))
        #expect(repos.status == .ok)
        #expect(String(buffer: try await repos.body.collect(upTo: 1 << 20)) == #"[{"name":"Repo Name"}]"#)
        let missing = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: baseURL + "/nope"), timeout: .seconds(120))
        #expect(missing.status == .notFound)

        // The bundled WebSocket example, as the README shows it.
        #expect(output.contains("and 3 WebSocket message stubs"), "\(output)")
        let (chat, _) = try await WebSocketTestClient.connect(to: URL(string: baseURL)!, path: "/chat")
        try await chat.send(text: "hi")
        try await chat.send(text: "bye")
        let frames = try await chat.frames(count: 4)
        #expect(frames.prefix(3).map(\.text) == ["welcome to the chat", "you said: hi", "see you"])
        #expect(frames.last?.opcode == .connectionClose && frames.last?.closeCode == 1000)
        await chat.close()
        #expect(try await serve.waitForOutput { $0.contains("GET /nope → 404 unmatched") }, "\(serve.standardOutput)")
        #expect(serve.standardOutput.contains(#"GET /users/mark/repos → 200 stub "a user's repositories"#))
        serve.signal(SIGTERM)
        #expect(try await serve.waitForExit() == 0)
        #expect(serve.standardOutput.contains("SIGTERM: stopping"))
    }

    @Test func serveRefusesFilesWithErrorsAndSaysWhere() async throws {
        let root = try root(["mappings/bad.json": #"{"request": {"url": "/x"}, "response": {"status": 1000}}"#])
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try await CommandProcess.run(["serve", "--port", "0", "--root", root.path])
        #expect(result.status == 1)
        #expect(
            result.error.contains(
                "\(root.path)/mappings/bad.json:1:51: error: response.status: 1000 is not an HTTP status code"))
        #expect(result.error.contains("not serving"))
    }

    /// A stub that uses a feature StuntDouble lacks (here an XPath matcher).
    static let unsupportedStub =
        #"{"request": {"url": "/xml", "bodyPatterns": [{"matchesXPath": "/a"}]}, "response": {"status": 201}}"#

    @Test func serveServesARootAroundAStubItCannotAnswerAndThatStubSaysWhy() async throws {
        let root = try root([
            "mappings/ok.json": #"{"request": {"url": "/ok"}, "response": {"body": "fine"}}"#,
            "mappings/xml.json": Self.unsupportedStub,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let serve = try CommandProcess(["serve", "--port", "0", "--root", root.path])
        #expect(try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") }, "\(serve.standardError)")
        let location = "\(root.path)/mappings/xml.json:1:47"
        let warning = "\(location): warning: request.bodyPatterns[0].matchesXPath: "
        #expect(try await serve.waitForError { $0.contains(warning) }, "\(serve.standardError)")
        #expect(serve.standardOutput.contains("Serving 2 stubs"))
        #expect(serve.standardOutput.contains("1 stub uses WireMock features StuntDouble does not support yet"))
        let baseURL = String(try #require(serve.standardOutput.firstMatch(of: /http:\/\/127\.0\.0\.1:\d+/)).0)

        let fine = try await HTTPClient.shared.execute(HTTPClientRequest(url: baseURL + "/ok"), timeout: .seconds(120))
        #expect(fine.status == .ok)
        let refused = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: baseURL + "/xml"), timeout: .seconds(120))
        #expect(refused.status == .internalServerError)
        let text = String(buffer: try await refused.body.collect(upTo: 1 << 20))
        #expect(text.contains("\(location): request.bodyPatterns[0].matchesXPath: the matchesXPath operator"))
        serve.signal(SIGTERM)
        #expect(try await serve.waitForExit() == 0)
    }

    @Test func serveStrictRefusesAStubItCannotAnswer() async throws {
        let root = try root(["mappings/xml.json": Self.unsupportedStub])
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try await CommandProcess.run(["serve", "--port", "0", "--strict", "--root", root.path])
        #expect(result.status == 1)
        #expect(result.error.contains("xml.json:1:47: error: request.bodyPatterns[0].matchesXPath: "))
        #expect(result.error.contains("not serving"))
    }

    @Test func servePrintsWarningsAndServesAnyway() async throws {
        let root = try root(["mappings/typo.json": #"{"request": {"url": "/x"}, "response": {"bodee": "hi"}}"#])
        defer { try? FileManager.default.removeItem(at: root) }
        let serve = try CommandProcess(["serve", "--port", "0", "--root", root.path])
        #expect(try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") })
        #expect(
            try await serve.waitForError { $0.contains(#"typo.json:1:41: warning: response.bodee: unknown field"#) },
            "\(serve.standardError)")
        #expect(serve.standardOutput.contains("1 warning (above)"))
        serve.signal(SIGINT)
        #expect(try await serve.waitForExit() == 0)
    }

    @Test func aPortInUseIsAClearError() async throws {
        let first = try CommandProcess(["serve", "--port", "0"])
        #expect(try await first.waitForOutput { $0.contains("Press Ctrl-C") })
        let port = try #require(first.standardOutput.firstMatch(of: /127\.0\.0\.1:(\d+)/)).1
        let second = try await CommandProcess.run(["serve", "--port", String(port)])
        #expect(second.status == 1)
        #expect(second.error.contains("Cannot listen on 127.0.0.1:\(port)"))
        first.signal(SIGTERM)
        #expect(try await first.waitForExit() == 0)
    }

    /// Each timeout must be a number of seconds above 0; the error names the flag and what it was given.
    @Test(arguments: ["--idle-timeout", "--body-timeout", "--send-timeout"], ["0", "-1", "inf", "nan"])
    func timeoutsMustBePositiveSeconds(flag: String, value: String) async throws {
        let result = try await CommandProcess.run(["serve", "--port", "0", flag, value])
        #expect(result.status != 0)
        #expect(result.error.contains(flag), "\(result.error)")
    }

    @Test func checkPassesTheExamplesAndFailsOnAnyErrorOrWarning() async throws {
        let examples = try #require(
            CommandProcess.executable?.deletingLastPathComponent()
                .appendingPathComponent("StuntDouble_StuntDoubleCommand.resources/Examples"))
        let clean = try await CommandProcess.run(["check", examples.path])
        #expect(clean.status == 0, "\(clean.output)\(clean.error)")
        #expect(clean.output.contains("checked 4 files: 0 errors, 0 warnings"))

        let root = try root([
            "mappings/typo.json": """
            {
              "request": {"method": "GET", "url": "/x"},
              "response": {"status": 200, "bodee": "hello"}
            }
            """,
            "mappings/broken.json": #"{"request": {"url": "/y"} "response": {}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let checked = try await CommandProcess.run(["check", root.path])
        #expect(checked.status == 1)
        let lines = checked.output.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "\(root.path)/mappings/broken.json:1:27: error: the file is not valid JSON: expected ',' or '}'"))
        #expect(
            lines.contains(
                #"\#(root.path)/mappings/typo.json:3:31: warning: response.bodee: unknown field; WireMock 2.35.1 refuses the file, StuntDouble ignores the field; did you mean "body"?"#
            ))
        #expect(checked.error.contains("checked 2 files: 1 error, 1 warning"))

        // A single file, and a file that does not exist.
        let single = try await CommandProcess.run([
            "check", root.appendingPathComponent("mappings/typo.json").path, "/no/such.json",
        ])
        #expect(single.status == 1)
        #expect(single.output.contains("/no/such.json:1:1: error: no such file"))
    }
}
