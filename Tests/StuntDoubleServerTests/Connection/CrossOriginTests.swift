import AsyncHTTPClient
import Foundation
import NIOHTTP1
import StuntDouble
import StuntDoubleOpenAPI
import StuntDoubleServer
import TestSupport
import Testing

/// Browsers on other origins (CORS): preflights answered by the server from a loaded document's methods and
/// headers (WireMock's list elsewhere), cross-origin headers on every answer, nothing when it is off; and a real
/// browser on another origin (headless Chromium, driven by Scripts/cors-check).
@Suite struct CrossOriginTests {
    typealias Call = AdminAPITests

    static let notes = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../StuntDoubleOpenAPITests/Documents/notes.yaml").standardized

    /// A server answering notes.yaml, with a stub of its own for `/elsewhere` (which sends its own
    /// `Access-Control-Allow-Origin`) and one for `/plain`.
    static func withServer(cors: Bool = true, _ body: (URL, HTTPStubber) async throws -> Void) async throws {
        let stubber = HTTPStubber()
        try stubber.load(openAPIAt: notes)
        let own = HTTPStubResponse(statusCode: .ok, body: Data("mine".utf8))
        own.headers["Access-Control-Allow-Origin"] = "https://only.test"
        stubber.add(stub: HTTPStubRequest().match(URI: "/elsewhere").stub(for: .get, response: own))
        let plain = HTTPStubResponse(statusCode: .ok, body: Data("plain".utf8))
        plain.headers["X-Request-Id"] = "r-1"
        stubber.add(stub: HTTPStubRequest().match(URI: "/plain").stub(for: .get, response: plain))
        var configuration = HTTPStubServer.Configuration()
        configuration.answersCrossOriginRequests = cors
        try await Call.serving(HTTPStubServer(stubber: stubber, configuration: configuration)) { url in
            try await body(url, stubber)
        }
    }

    static func preflight(_ url: URL, _ path: String, method: String, headers: String? = nil) async throws
        -> AdminAPITests.Reply
    {
        var fields = [("Origin", "http://app.test:3000"), ("Access-Control-Request-Method", method)]
        if let headers { fields.append(("Access-Control-Request-Headers", headers)) }
        return try await Call.call(.OPTIONS, url, path, headers: fields)
    }

    @Test func aPreflightIsAnsweredFromTheDocumentsMethodsAndHeaders() async throws {
        try await Self.withServer { url, stubber in
            let reply = try await Self.preflight(url, "/v1/notes", method: "POST", headers: "content-type, x-trace")
            #expect(reply.status == 204 && reply.text.isEmpty)
            #expect(reply.headers["Access-Control-Allow-Origin"] == ["http://app.test:3000"])
            #expect(reply.headers["Access-Control-Allow-Credentials"] == ["true"])
            let methods = Set(
                reply.headers["Access-Control-Allow-Methods"].first?.split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                } ?? [])
            #expect(methods == ["GET", "HEAD", "POST"], "the methods of /notes in notes.yaml")
            let allowed = reply.headers["Access-Control-Allow-Headers"].first ?? ""
            #expect(allowed.hasPrefix("content-type, x-trace"), "what was asked, as asked: \(allowed)")
            #expect(allowed.contains("Prefer") && !allowed.contains("Content-Type"), "once each: \(allowed)")
            #expect(reply.headers["Access-Control-Max-Age"] == ["60"])
            #expect(stubber.journal.isEmpty, "a preflight reaches no stub and no journal")

            // A method the path does not have: answered, without it, so the browser refuses and says why.
            let put = try await Self.preflight(url, "/v1/notes/1", method: "PUT")
            #expect(put.status == 204)
            #expect(put.headers["Access-Control-Allow-Methods"].first?.contains("PUT") == false)
            #expect(put.headers["Access-Control-Allow-Methods"].first?.contains("DELETE") == true)

            // A path no document has: WireMock's list.
            let other = try await Self.preflight(url, "/plain", method: "PATCH")
            #expect(other.headers["Access-Control-Allow-Methods"] == ["OPTIONS, GET, POST, PUT, PATCH, DELETE"])
            #expect(other.headers["Access-Control-Allow-Headers"].isEmpty)

            let network = try await Call.call(
                .OPTIONS, url, "/plain",
                headers: [
                    ("Origin", "https://public.test"), ("Access-Control-Request-Method", "GET"),
                    ("Access-Control-Request-Private-Network", "true"),
                ])
            #expect(network.headers["Access-Control-Allow-Private-Network"] == ["true"])
        }
    }

    @Test func everyAnswerToAnotherOriginSaysItMayReadIt() async throws {
        try await Self.withServer { url, _ in
            let origin = [("Origin", "http://app.test:3000")]
            let note = try await Call.call(.GET, url, "/v1/notes/1", headers: origin)
            #expect(note.status == 200)
            #expect(note.headers["Access-Control-Allow-Origin"] == ["http://app.test:3000"])
            #expect(note.headers["Access-Control-Allow-Credentials"] == ["true"])
            #expect(note.headers["Vary"].contains("Origin"))

            let plain = try await Call.call(.GET, url, "/plain", headers: origin)
            #expect(plain.headers["Access-Control-Expose-Headers"].first?.contains("X-Request-Id") == true)
            #expect(plain.headers["Access-Control-Expose-Headers"].first?.contains("Content-Type") == false)

            let refused = try await Call.call(.GET, url, "/v1/notes/0", headers: origin)
            #expect(refused.status == 400 && refused.headers["Access-Control-Allow-Origin"] == ["http://app.test:3000"])
            let unmatched = try await Call.call(.GET, url, "/nowhere", headers: origin)
            #expect(unmatched.status == 404 && unmatched.headers["Access-Control-Allow-Origin"].count == 1)

            let own = try await Call.call(.GET, url, "/elsewhere", headers: origin)
            #expect(own.headers["Access-Control-Allow-Origin"] == ["https://only.test"], "the stub's own, kept")
            #expect(own.headers["Access-Control-Allow-Credentials"].isEmpty)

            let sameOrigin = try await Call.call(.GET, url, "/v1/notes/1")
            #expect(sameOrigin.headers["Access-Control-Allow-Origin"].isEmpty, "no Origin, no CORS headers")
            let admin = try await Call.call(.GET, url, "/__admin/health", headers: origin)
            #expect(admin.status == 200 && admin.headers["Access-Control-Allow-Origin"].isEmpty, "never the admin API")
        }
    }

    @Test func offNoPreflightIsAnsweredAndNoAnswerIsOpened() async throws {
        try await Self.withServer(cors: false) { url, _ in
            let reply = try await Self.preflight(url, "/v1/notes", method: "POST")
            #expect(reply.status == 405, "the document's own answer to OPTIONS")
            #expect(reply.headers["Access-Control-Allow-Origin"].isEmpty)
            let note = try await Call.call(.GET, url, "/v1/notes/1", headers: [("Origin", "http://app.test:3000")])
            #expect(note.status == 200 && note.headers["Access-Control-Allow-Origin"].isEmpty)
        }
    }

    @Test func serveAnswersOtherOriginsForADocumentByDefaultAndForStubFilesWhenAsked() async throws {
        func preflightStatus(_ arguments: [String]) async throws -> (Int?, String?) {
            let serve = try CommandProcess(["serve", "--port", "0"] + arguments)
            #expect(try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") }, "\(serve.standardError)")
            let base = try #require(serve.standardOutput.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/)).1
            let reply = try await Self.preflight(URL(string: String(base))!, "/v1/notes/1", method: "DELETE")
            serve.signal(SIGTERM)
            #expect(try await serve.waitForExit() == 0)
            return (Int(reply.status), reply.headers["Access-Control-Allow-Methods"].first)
        }
        let document = ["--openapi", Self.notes.path]
        #expect(try await preflightStatus(document) == (204, "DELETE, GET, HEAD"))
        #expect(try await preflightStatus(document + ["--no-cors"]).0 == 405)
        #expect(try await preflightStatus([]).0 == 404, "the bundled examples, CORS off")
        #expect(try await preflightStatus(["--enable-stub-cors"]) == (204, "OPTIONS, GET, POST, PUT, PATCH, DELETE"))
        let both = try await CommandProcess.run(["serve", "--cors", "--no-cors"])
        #expect(both.status != 0 && both.error.contains("--cors and --no-cors ask for opposite things"), "\(both)")
    }

    @Test(
        .enabled(
            if: TrafficPageTests.chromiumInstalled, "Chromium is not installed (apt-get install chromium; CI does)"))
    func aBrowserOnAnotherOriginUsesTheMockAsTheDocumentAllows() async throws {
        try await Self.withServer { url, _ in
            let result = try await ChildProcess.run(
                TrafficPageTests.scripts.appendingPathComponent("cors-check").path,
                [
                    url.absoluteString + "/v1", "--allowed", "GET /notes/1", "--allowed", #"POST /notes {"text": "x"}"#,
                    "--allowed", "DELETE /notes/1", "--blocked", #"PUT /notes/1 {"text": "x"}"#,
                    "--reads-header", "GET /notes/1 content-type",
                ], timeout: .seconds(120))
            #expect(result.status == 0, "\(result.output)")
            let passed = result.output.split(separator: "\n").filter { $0.hasPrefix("ok: ") }
            #expect(passed.count == 6, "\(result.output)")
        }
        try await Self.withServer(cors: false) { url, _ in
            let result = try await ChildProcess.run(
                TrafficPageTests.scripts.appendingPathComponent("cors-check").path,
                [url.absoluteString, "--blocked", "GET /v1/notes/1", "--blocked", #"POST /v1/notes {"text": "x"}"#],
                timeout: .seconds(120))
            #expect(result.status == 0, "without CORS the browser refuses both: \(result.output)")
        }
        try await Self.withServer { url, _ in
            let result = try await ChildProcess.run(
                TrafficPageTests.scripts.appendingPathComponent("cors-check").path,
                [url.absoluteString, "--allowed", "GET /plain", "--reads-header", "GET /plain X-Request-Id"],
                timeout: .seconds(120))
            #expect(result.status == 0, "a stub of its own: \(result.output)")
        }
    }
}
