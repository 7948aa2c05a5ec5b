import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// `serve --openapi` and `check --openapi`, run as processes.
@Suite struct OpenAPICommandTests {
    static let document = """
        openapi: 3.0.3
        info: { title: Tasks, version: "1" }
        paths:
          /tasks/{id}:
            get:
              parameters:
                - { name: id, in: path, required: true, schema: { type: integer } }
              responses:
                "200":
                  description: A task.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [id, done]
                        properties: { id: { type: integer }, done: { type: boolean } }
                      example: { id: 3, done: false }
        """

    /// A root with the document beside a mappings folder.
    private func root(mapping: String) throws -> URL {
        let root = try AdminAPITests.root(["mappings/task.json": mapping])
        try Self.document.write(to: root.appendingPathComponent("tasks.yaml"), atomically: true, encoding: .utf8)
        return root
    }

    @Test func serveOpenAPIAnswersChecksAndLetsStubFilesWin() async throws {
        let root = try root(
            mapping:
                #"{"request": {"method": "GET", "urlPath": "/tasks/7"}, "response": {"status": 200, "jsonBody": {"id": 7}}}"#
        )
        defer { try? FileManager.default.removeItem(at: root) }
        let serve = try CommandProcess([
            "serve", "--port", "0", "--root", root.path, "--openapi", root.appendingPathComponent("tasks.yaml").path,
        ])
        #expect(try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") }, "\(serve.standardError)")
        let output = serve.standardOutput
        #expect(output.contains("(Tasks, 1 operation)") && output.contains("answering from examples and schemas"))
        let base = try #require(output.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/)).1
        func get(_ path: String) async throws -> (Int, String) {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: base + path), timeout: .seconds(120))
            return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
        }
        #expect(try await get("/tasks/3") == (200, #"{"id":3,"done":false}"#))
        #expect(try await get("/tasks/7").1 == #"{"id":7}"#)  // the stub file wins
        #expect(try await get("/tasks/x").0 == 400)
        #expect(
            try await serve.waitForOutput(timeout: .seconds(120)) {
                $0.contains("the stub's response breaks the OpenAPI document: header.Content-Type: missing")
                    && $0.contains("body.done: missing")
            }, "\(serve.standardOutput)")
        serve.signal(SIGTERM)
        #expect(try await serve.waitForExit() == 0)
    }

    @Test func checkOpenAPIFailsOnDriftAtTheMappingsLine() async throws {
        let root = try root(
            mapping: """
                {
                  "request": {"method": "GET", "urlPath": "/tasks/7"},
                  "response": {"status": 200, "jsonBody": {"id": 7, "done": "no"}}
                }
                """)
        defer { try? FileManager.default.removeItem(at: root) }
        let document = root.appendingPathComponent("tasks.yaml").path
        let checked = try await CommandProcess.run(["check", "--openapi", document, root.path])
        #expect(checked.status == 1)
        #expect(
            checked.output.contains(
                "\(root.path)/mappings/task.json:3:15: error: response: breaks tasks.yaml: body.done: expected boolean, found string \"no\" (type, tasks.yaml:16:"
            ), "\(checked.output)")
        let missing = try await CommandProcess.run(["check", "--openapi", "/no/such.yaml", root.path])
        #expect(missing.status == 1 && missing.error.contains("cannot read /no/such.yaml"))
        let badFlag = try await CommandProcess.run(["serve", "--openapi", "/no/such.yaml"])
        #expect(badFlag.status != 0 && badFlag.error.contains("/no/such.yaml"))
    }

    /// A document that deviates from the specification: served (each deviation a warning), listed by `check
    /// --openapi` alone, refused by `serve --strict`.
    @Test func aDeviatingDocumentServesWarnsAndIsRefusedWhenStrict() async throws {
        let root = try AdminAPITests.root([
            "api.yaml": """
            openapi: 3.0.3
            info: { title: Tasks, version: 2.0 }
            paths:
              /tasks/{id}:
                get:
                  responses:
                    "200": { description: A task., content: { text/plain: { example: "a task" } } }
            """
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let document = root.appendingPathComponent("api.yaml").path
        let checked = try await CommandProcess.run(["check", "--openapi", document])
        #expect(checked.status == 1, "warnings fail a check")
        #expect(
            checked.output.contains(
                "\(document):2:32: warning: info.version 2.0 is not a string: read as the text \"2.0\""),
            "\(checked.output)")
        #expect(checked.output.contains("\(document):6:7: warning: the path /tasks/{id} has {id}"))
        #expect(checked.error.contains("checked 1 file: 0 errors, 2 warnings"), "\(checked.error)")

        let strict = try await CommandProcess.run(["serve", "--port", "0", "--strict", "--openapi", document])
        #expect(strict.status != 0)
        #expect(strict.error.contains("refused: strict reading") && strict.error.contains("info.version"))

        let serve = try CommandProcess(["serve", "--port", "0", "--openapi", document])
        #expect(try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") }, "\(serve.standardError)")
        #expect(
            try await serve.waitForError { $0.contains("warning: api.yaml:6:7: the path /tasks/{id} has {id}") },
            "\(serve.standardError)")
        let base = try #require(serve.standardOutput.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/)).1
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: base + "/tasks/anything"), timeout: .seconds(120))
        #expect(response.status == .ok)
        #expect(String(buffer: try await response.body.collect(upTo: 1 << 20)) == "a task")
        serve.signal(SIGTERM)
        #expect(try await serve.waitForExit() == 0)
    }

    /// `serve --stateful`: a task made with POST is read and listed, the examples are the start with
    /// `--initial-state examples`, and `POST /__admin/reset` goes back to them.
    @Test func aStatefulDocumentKeepsWhatRequestsMakeUntilAReset() async throws {
        let root = try AdminAPITests.root([
            "api.yaml": """
            openapi: 3.1.0
            info: { title: Tasks, version: "1" }
            paths:
              /tasks:
                get:
                  responses:
                    "200":
                      description: The tasks.
                      content:
                        application/json:
                          schema: { type: array, items: { $ref: "#/components/schemas/Task" } }
                          example: [{ id: 1, title: Shop, done: false }]
                post:
                  requestBody:
                    content: { application/json: { schema: { $ref: "#/components/schemas/Task" } } }
                  responses:
                    "201":
                      description: Made.
                      content: { application/json: { schema: { $ref: "#/components/schemas/Task" } } }
              /tasks/{id}:
                get:
                  parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
                  responses:
                    "200":
                      description: A task.
                      content: { application/json: { schema: { $ref: "#/components/schemas/Task" } } }
                    "404": { description: No such task. }
            components:
              schemas:
                Task:
                  type: object
                  required: [id, title, done]
                  properties:
                    id: { type: integer, readOnly: true }
                    title: { type: string }
                    done: { type: boolean, default: false }
            """
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let document = root.appendingPathComponent("api.yaml").path
        let refused = try await CommandProcess.run([
            "serve", "--port", "0", "--openapi", document, "--initial-state", "examples",
        ])
        #expect(refused.status != 0)
        #expect(refused.error.contains("--initial-state examples is for --stateful documents"), "\(refused.error)")

        let serve = try CommandProcess([
            "serve", "--port", "0", "--openapi", document, "--stateful", "--initial-state", "examples",
        ])
        #expect(try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") }, "\(serve.standardError)")
        #expect(serve.standardOutput.contains("--stateful, keeping resources of /tasks and /tasks/{id} (id: id)"))
        let base = String(try #require(serve.standardOutput.firstMatch(of: /on (http:\/\/127\.0\.0\.1:\d+)/)).1)
        func send(_ method: HTTPMethod, _ path: String, _ body: String? = nil) async throws -> (Int, String) {
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: body))
            }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
            return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
        }
        #expect(try await send(.GET, "/tasks").1 == #"[{"id":1,"title":"Shop","done":false}]"#)
        let made = try await send(.POST, "/tasks", #"{"title": "Cook", "done": true}"#)
        #expect(made.0 == 201)
        #expect(made.1 == #"{"title":"Cook","done":true,"id":2}"#)
        #expect(try await send(.GET, "/tasks/2") == (200, made.1))
        #expect(try await send(.GET, "/tasks").1.contains("Cook"))
        #expect(try await send(.POST, "/__admin/reset").0 == 200)
        #expect(try await send(.GET, "/tasks/2").0 == 404)
        #expect(try await send(.GET, "/tasks").1 == #"[{"id":1,"title":"Shop","done":false}]"#)
        serve.signal(SIGTERM)
        #expect(try await serve.waitForExit() == 0)
    }
}
