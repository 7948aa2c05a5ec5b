import AsyncHTTPClient
import Foundation
import InMemoryLogging
import Logging
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleOpenAPI
import StuntDoubleServer
import Testing

/// `serve --openapi`: a document's answers and checks over a real socket, and stub files beside it.
@Suite struct OpenAPIServingTests {
    static let document = """
        openapi: 3.1.0
        info: { title: Notes, version: "1" }
        servers: [{ url: "https://notes.test/api" }]
        paths:
          /notes/{id}:
            get:
              operationId: getNote
              parameters:
                - { name: id, in: path, required: true, schema: { type: integer, minimum: 1 } }
              responses:
                "200":
                  description: A note.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [id, text]
                        properties:
                          id: { type: integer }
                          text: { type: string, maxLength: 10 }
                      example: { id: 1, text: hello }
          /notes:
            post:
              operationId: addNote
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [text]
                      properties: { text: { type: string, maxLength: 10 } }
              responses:
                "201": { description: Added. }
        """

    private func fetch(
        _ url: URL, method: NIOHTTP1.HTTPMethod = .GET, body: String? = nil
    ) async throws -> (HTTPClientResponse, String) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        return (response, String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    @Test func answersAndRefusesOverTheSocket() async throws {
        let stubber = HTTPStubber()
        stubber.load(try OpenAPIContract(text: Self.document))
        try await withStubServer(stubber: stubber) { base in
            let (ok, body) = try await fetch(base.appendingPathComponent("api/notes/1"))
            #expect(ok.status == .ok)
            #expect(body == #"{"id":1,"text":"hello"}"#)
            let (refused, problem) = try await fetch(base.appendingPathComponent("api/notes/0"))
            #expect(refused.status == .badRequest)
            #expect(refused.headers["Content-Type"] == ["application/problem+json"])
            #expect(problem.contains(#""location":"path.id""#) && problem.contains(#""rule":"minimum""#))
            let (created, _) = try await fetch(
                base.appendingPathComponent("api/notes"), method: .POST, body: #"{"text": "hi"}"#)
            #expect(created.status == .created)
            let (tooLong, _) = try await fetch(
                base.appendingPathComponent("api/notes"), method: .POST, body: #"{"text": "far too long for it"}"#)
            #expect(tooLong.status == .unprocessableEntity)
        }
    }

    @Test func aStubsBrokenAnswerIsLoggedAndInTheJournal() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest(name: "stale").match(URL: "/api/notes/2")
                .stub(for: .get, json: #"{"id": "two"}"#))
        stubber.load(try OpenAPIContract(text: Self.document))
        var configuration = HTTPStubServer.Configuration()
        let logs = InMemoryLogHandler()
        configuration.logger = Logger(label: "test") { _ in logs }
        try await withStubServer(stubber: stubber, configuration: configuration) { base in
            let (response, body) = try await fetch(base.appendingPathComponent("api/notes/2"))
            #expect(response.status == .ok && body == #"{"id": "two"}"#)  // the stub still answers
            let (events, json) = try await fetch(base.appendingPathComponent("__admin/requests"))
            #expect(events.status == .ok)
            #expect(
                json.contains(#""contractViolations": ["#) && json.contains(#""body.id: expected integer"#), "\(json)")
        }
        let entry = try #require(stubber.journal.first)
        #expect(entry.openAPIViolations.count == 2)
        #expect(entry.openAPIViolations.contains { $0.location == "body.id" && $0.rule == "type" })
        #expect(entry.openAPIViolations.contains { $0.description.hasPrefix("body.text: missing") })
        let warnings = logs.entries.filter { $0.level == .warning }.map(\.message.description)
        #expect(warnings.contains { $0.contains("breaks the OpenAPI document") && $0.contains("body.id") })
    }

    @Test func validateOnlyLetsStubsAnswer() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/api/notes/{id}").stub(for: .get, json: #"{"id": 5, "text": "stub"}"#))
        stubber.load(try OpenAPIContract(text: Self.document), answersRequests: false)
        try await withStubServer(stubber: stubber) { base in
            let (ok, body) = try await fetch(base.appendingPathComponent("api/notes/5"))
            #expect(ok.status == .ok && body.contains("stub"))
            let (refused, _) = try await fetch(base.appendingPathComponent("api/notes/abc"))
            #expect(refused.status == .badRequest)
            let (unanswered, _) = try await fetch(
                base.appendingPathComponent("api/notes"), method: .POST, body: #"{"text": "x"}"#)
            #expect(unanswered.status == .notFound)
        }
    }
}
