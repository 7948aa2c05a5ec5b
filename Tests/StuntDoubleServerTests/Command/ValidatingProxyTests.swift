import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleOpenAPI
import Testing

@testable import StuntDoubleServer

/// `serve --openapi X --proxy URL`: a validating proxy in front of an upstream of our own that breaks the
/// document on purpose (a task whose id is text, a status the document does not list).
@Suite struct ValidatingProxyTests {
    static let document = """
        openapi: 3.1.0
        info: { title: Tasks, version: "1" }
        paths:
          /tasks/{id}:
            get:
              parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
              responses:
                "200":
                  description: A task.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [id, title]
                        properties: { id: { type: integer }, title: { type: string } }
                "404": { description: No such task. }
        """

    /// The misbehaving upstream: task 1's id is text, task 2 keeps to the document, task 3 answers 418.
    static func withUpstream(_ body: (String) async throws -> Void) async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/tasks/1").stub(for: .get, json: #"{"id": "one", "title": "A"}"#))
        stubber.add(stub: HTTPStubRequest().match(URI: "/tasks/2").stub(for: .get, json: #"{"id": 2, "title": "B"}"#))
        stubber.add(stub: HTTPStubRequest().match(URI: "/tasks/3").stub(for: .get, code: HTTPStatusCode(rawValue: 418)))
        stubber.add(stub: HTTPStubRequest().match(URI: "/tasks/x").stub(for: .get, json: #"{"id": 0, "title": "X"}"#))
        let server = HTTPStubServer(stubber: stubber)
        try await server.start()
        do {
            try await body("http://127.0.0.1:\(try #require(server.port))")
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    static func get(_ url: String) async throws -> (status: Int, violations: String?, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(120))
        let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
        return (Int(response.status.code), response.headers.first(name: "StuntDouble-Violations"), body)
    }

    @Test func violationsAreReportedAndTheUpstreamsAnswersPassedOn() async throws {
        let root = try AdminAPITests.root(["api.yaml": Self.document])
        defer { try? FileManager.default.removeItem(at: root) }
        try await Self.withUpstream { upstream in
            let serve = try CommandProcess([
                "serve", "--port", "0", "--openapi", root.appendingPathComponent("api.yaml").path, "--proxy", upstream,
            ])
            #expect(try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") }, "\(serve.standardError)")
            #expect(serve.standardOutput.contains("checking what is forwarded to \(upstream) and its answers"))
            let base = String(try #require(serve.standardOutput.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/)).1)

            let good = try await Self.get(base + "/tasks/2")
            #expect(good.status == 200 && good.violations == nil, "\(good)")
            #expect(good.body.contains(#""title": "B""#) || good.body.contains(#""title":"B""#))

            let badAnswer = try await Self.get(base + "/tasks/1")
            #expect(badAnswer.status == 200, "the upstream's answer, as it was")
            #expect(badAnswer.body.contains("one"))
            #expect(badAnswer.violations?.contains(#"body.id: expected integer, found string "one""#) == true)

            let badStatus = try await Self.get(base + "/tasks/3")
            #expect(badStatus.status == 418)
            #expect(badStatus.violations?.contains("418 is not a response of GET /tasks/{id}") == true)

            let badRequest = try await Self.get(base + "/tasks/x")
            #expect(badRequest.status == 200, "forwarded all the same: violations are reports")
            #expect(badRequest.violations?.contains("path.id") == true, "\(badRequest)")

            // The journal keeps each side's findings apart; the log names them.
            let journal = try await Self.get(base + "/__admin/requests")
            #expect(journal.body.contains("requestViolations") && journal.body.contains("contractViolations"))
            #expect(
                try await serve.waitForOutput { output in
                    output.contains("GET /tasks/1: the upstream's response breaks the OpenAPI document: body.id")
                        && output.contains("GET /tasks/x: the request breaks the OpenAPI document: path.id")
                }, "\(serve.standardOutput)")
            serve.signal(SIGTERM)
            #expect(try await serve.waitForExit() == 0)
        }
    }

    @Test func withErrorsViolationsBecomeProblems() async throws {
        let root = try AdminAPITests.root(["api.yaml": Self.document])
        defer { try? FileManager.default.removeItem(at: root) }
        try await Self.withUpstream { upstream in
            let serve = try CommandProcess([
                "serve", "--port", "0", "--openapi", root.appendingPathComponent("api.yaml").path, "--proxy", upstream,
                "--errors",
            ])
            #expect(try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") }, "\(serve.standardError)")
            let base = String(try #require(serve.standardOutput.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/)).1)
            #expect(try await Self.get(base + "/tasks/2").status == 200)
            let badAnswer = try await Self.get(base + "/tasks/1")
            #expect(badAnswer.status == 502)
            #expect(badAnswer.body.contains("The upstream's response does not keep to api.yaml"), "\(badAnswer)")
            #expect(badAnswer.body.contains(#""title":"Bad Gateway""#))
            let badRequest = try await Self.get(base + "/tasks/x")
            #expect(badRequest.status == 400, "refused, never forwarded")
            serve.signal(SIGTERM)
            #expect(try await serve.waitForExit() == 0)
        }
        let refused = try await CommandProcess.run([
            "serve", "--port", "0", "--openapi", root.appendingPathComponent("api.yaml").path, "--errors",
        ])
        #expect(refused.status != 0 && refused.error.contains("--errors is for a validating proxy"))
    }

    /// `record --openapi`: what breaks the document is marked in the recorded mapping, and `check --openapi`
    /// of the recording reports the drift at the mapping's place.
    @Test func aRecordingThroughTheProxyMarksWhatBreaksTheDocument() async throws {
        let root = try AdminAPITests.root(["api.yaml": Self.document])
        defer { try? FileManager.default.removeItem(at: root) }
        let document = root.appendingPathComponent("api.yaml").path
        let recorded = root.appendingPathComponent("recorded")
        try await Self.withUpstream { upstream in
            let record = try CommandProcess([
                "record", "--upstream", upstream, "--root", recorded.path, "--port", "0", "--openapi", document,
            ])
            #expect(try await record.waitForOutput { $0.contains("Press Ctrl-C") }, "\(record.standardError)")
            let base = String(
                try #require(record.standardOutput.firstMatch(of: /through (http:\/\/127\.0\.0\.1:\d+)/)).1)
            #expect(try await Self.get(base + "/tasks/1").violations?.contains("body.id") == true)
            #expect(try await Self.get(base + "/tasks/2").violations == nil)
            record.signal(SIGTERM)
            #expect(try await record.waitForExit() == 0, "\(record.standardError)")
        }
        let mappings = recorded.appendingPathComponent("mappings")
        let broken = try String(contentsOf: mappings.appendingPathComponent("get-tasks-1.json"), encoding: .utf8)
        #expect(
            broken.contains(#""contractViolations""#) && broken.contains(#"answer: body.id: expected integer"#),
            "\(broken)")
        let kept = try String(contentsOf: mappings.appendingPathComponent("get-tasks-2.json"), encoding: .utf8)
        #expect(!kept.contains("contractViolations"))
        let checked = try await CommandProcess.run(["check", "--openapi", document, recorded.path])
        #expect(checked.status == 1)
        #expect(checked.output.contains("get-tasks-1.json") && checked.output.contains("body.id"), "\(checked.output)")
        #expect(!checked.output.contains("get-tasks-2.json"), "\(checked.output)")
    }

    /// The admin API's recorder (`POST /__admin/recordings/snapshot`) through a validating proxy marks what
    /// breaks the document, as `record --openapi` does.
    @Test func theAdminAPIsRecorderMarksWhatBreaksTheDocument() async throws {
        try await Self.withUpstream { upstream in
            let stubber = HTTPStubber()
            stubber.load(checkingForwardedTrafficAgainst: try OpenAPIContract(text: Self.document))
            var configuration = HTTPStubServer.Configuration()
            configuration.upstream = URL(string: upstream)
            try await AdminAPITests.serving(HTTPStubServer(stubber: stubber, configuration: configuration)) { url in
                #expect(try await Self.get(url.absoluteString + "/tasks/1").violations?.contains("body.id") == true)
                #expect(try await Self.get(url.absoluteString + "/tasks/2").violations == nil)
                #expect(try await Self.get(url.absoluteString + "/tasks/x").violations?.contains("path.id") == true)
                let snapshot = try await AdminAPITests.call(
                    .POST, url, "/__admin/recordings/snapshot", body: #"{"persist": false}"#)
                let mappings = snapshot.object["mappings"] as? [[String: Any]] ?? []
                func notes(_ path: String) -> [String] {
                    let mapping = mappings.first { ($0["request"] as? [String: Any])?["url"] as? String == path }
                    let metadata = (mapping?["metadata"] as? [String: Any])?["stuntdouble"] as? [String: Any]
                    return metadata?["contractViolations"] as? [String] ?? []
                }
                #expect(mappings.count == 3, "\(snapshot.text)")
                #expect(
                    notes("/tasks/1").contains { $0.hasPrefix("answer: body.id: expected integer") },
                    "\(notes("/tasks/1"))")
                #expect(notes("/tasks/2").isEmpty)
                #expect(notes("/tasks/x").contains { $0.hasPrefix("request: path.id") }, "\(notes("/tasks/x"))")
            }
        }
    }

    /// The hold on an answer: nothing passes until its end, an event stream passes at once, and an answer
    /// larger than the limit passes once it is past it.
    @Test func theHoldOnAnAnswerEndsAtItsEndOrItsLimit() {
        let notes = Notes()
        let check = HTTPForwardedCheck(
            request: HTTPForwardedFindings(summary: "query.q: missing"),
            response: { status, _, body in
                HTTPForwardedFindings(summary: "status \(status), \(body.count) bytes")
            })
        let held = CheckedForwarding(checks: [check], limit: 10) { _, unchecked in notes.add(unchecked) }
        #expect(held.pass(.head(.ok, ["Content-Type": "application/json"])).events.isEmpty)
        #expect(held.pass(.body(ByteBuffer(string: "12345"))).events.isEmpty)
        let end = held.pass(.end).events
        #expect(end.count == 3)
        if case .head(_, let headers) = end.first {
            #expect(headers.first(name: "StuntDouble-Violations") == "query.q: missing; status 200, 5 bytes")
        } else {
            Issue.record("no head first: \(end)")
        }

        let large = CheckedForwarding(checks: [check], limit: 10) { _, unchecked in notes.add(unchecked) }
        _ = large.pass(.head(.ok, [:]))
        #expect(large.pass(.body(ByteBuffer(string: "123456"))).events.isEmpty)
        let past = large.pass(.body(ByteBuffer(string: "789012")))
        #expect(past.events.count == 2 && !past.streamed)
        let after = large.pass(.body(ByteBuffer(string: "x")))
        #expect(after.events.count == 1 && after.streamed)

        let stream = CheckedForwarding(checks: [check], limit: 10) { _, unchecked in notes.add(unchecked) }
        #expect(stream.pass(.head(.ok, ["Content-Type": "text/event-stream"])).events.count == 1)
        #expect(notes.values == ["larger than 10 bytes", "an event stream"])
    }
}

/// Notes a closure takes, from any thread.
private final class Notes: Sendable {
    private let box = Locked<[String]>([])
    var values: [String] { box.withLock { $0 } }
    func add(_ note: String?) {
        if let note { box.withLock { $0.append(note) } }
    }
}
