import Foundation
import StuntDouble
import StuntDoubleGraphQL
import StuntDoubleServer
import StuntDoubleWireMock
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stub files written for WireMock's GraphQL extension (`graphql-body-matcher`), read unchanged; recordings
/// that tell operations apart.
@Suite struct GraphQLStubFileTests {
    /// A root with the given mappings (file name to JSON), removed after `body`.
    static func withRoot<T>(_ mappings: [String: String], _ body: (URL) async throws -> T) async throws -> T {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("graphql-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        for (name, json) in mappings {
            try Data(json.utf8).write(to: root.appendingPathComponent("mappings/\(name)"))
        }
        return try await body(root)
    }

    /// The files of the extension's own shapes: query only, query and variables, all three.
    static let mappings = [
        "hero.json": """
        {"request": {"urlPath": "/graphql", "method": "POST",
          "customMatcher": {"name": "graphql-body-matcher",
            "parameters": {"query": "{ hero { name } }"}}},
         "response": {"status": 200, "jsonBody": {"data": {"hero": {"name": "R2-D2"}}}}}
        """,
        "human.json": """
        {"request": {"urlPath": "/graphql", "method": "POST",
          "customMatcher": {"name": "graphql-body-matcher",
            "parameters": {"query": "query Human($id: ID!) { human(id: $id) { name } }",
              "variables": {"id": "1000"}, "operationName": "Human"}}},
         "response": {"status": 200, "jsonBody": {"data": {"human": {"name": "Luke"}}}}}
        """,
        "human-leia.json": """
        {"request": {"urlPath": "/graphql", "method": "POST",
          "customMatcher": {"name": "graphql-body-matcher",
            "parameters": {"query": "query Human($id: ID!) { human(id: $id) { name } }",
              "variables": {"id": "1003"}, "operationName": "Human"}}},
         "response": {"status": 200, "jsonBody": {"data": {"human": {"name": "Leia"}}}}}
        """,
        "legacy.json": """
        {"request": {"urlPath": "/graphql", "method": "POST",
          "customMatcher": {"name": "graphql-body-matcher",
            "parameters": {"expectedJson": "{\\"query\\": \\"{ villain { name } }\\"}"}}},
         "response": {"status": 200, "jsonBody": {"data": {"villain": {"name": "Vader"}}}}}
        """,
    ]

    static func post(_ stubber: HTTPStubber, _ body: String) -> String? {
        stubber.bodyText(
            "POST", "http://localhost/graphql", headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }

    @Test func filesInTheExtensionsFormatPickTheRightOperation() async throws {
        try await Self.withRoot(Self.mappings) { root in
            let stubber = HTTPStubber()
            try stubber.load(stubFilesAt: root, extensions: [.graphQL])
            // Another layout; no operationName and no variables, as the file says.
            #expect(
                Self.post(stubber, #"{"query": "query {\n  hero {\n    name\n  }\n}"}"#)
                    == #"{"data":{"hero":{"name":"R2-D2"}}}"#)
            #expect(
                Self.post(
                    stubber,
                    #"{"operationName": "Human", "variables": {"id": "1003"}, "query": "query Human($id: ID!) { human(id: $id) { name } }", "extensions": {"clientLibrary": {"name": "apollo-ios"}}}"#
                )
                    == #"{"data":{"human":{"name":"Leia"}}}"#)
            #expect(
                Self.post(
                    stubber,
                    #"{"operationName": "Human", "variables": {"id": "1000"}, "query": "query Human($id: ID!) {human(id:$id){name}}"}"#
                )
                    == #"{"data":{"human":{"name":"Luke"}}}"#)
            // As the extension reads a file without them: a request that sends an operationName or variables the
            // file leaves out does not match it.
            #expect(Self.post(stubber, #"{"operationName": "Hero", "query": "query Hero { hero { name } }"}"#) == nil)
            #expect(Self.post(stubber, #"{"query": "{ hero { name } }", "variables": {"a": 1}}"#) == nil)
            #expect(Self.post(stubber, #"{"query": "{ hero { name } }", "variables": null}"#) != nil)
            // An older file's expectedJson: variables left out mean none or {}.
            #expect(
                Self.post(stubber, #"{"query": "{ villain { name } }", "variables": {}}"#)
                    == #"{"data":{"villain":{"name":"Vader"}}}"#)
        }
    }

    @Test func errorsNameTheFileLineAndColumn() async throws {
        let broken = """
            {"request": {"urlPath": "/graphql",
              "customMatcher": {"name": "graphql-body-matcher",
                "parameters": {"query": "{ hero { name }"}}},
             "response": {"status": 200}}
            """
        try await Self.withRoot(["broken.json": broken]) { root in
            let files = StubFiles(root: root, extensions: [.graphQL])
            let error = try #require(files.errors.first)
            #expect(error.line == 3)
            #expect(error.field == "request.customMatcher.parameters.query")
            #expect(error.message.contains("the query is not GraphQL"), "\(error)")
            // Without the extension: a feature StuntDouble lacks there, and how to get it.
            let without = try #require(StubFiles(root: root).errors.first)
            #expect(without.message.contains("WireMock extension"), "\(without)")
            #expect(without.field == "request.customMatcher.name")
        }
        let unknown = """
            {"request": {"customMatcher": {"name": "my-matcher"}}, "response": {"status": 200}}
            """
        try await Self.withRoot(["unknown.json": unknown]) { root in
            let error = try #require(StubFiles(root: root, extensions: [.graphQL]).errors.first)
            #expect(error.message.contains("it runs graphql-body-matcher (StuntDoubleGraphQL)"), "\(error)")
            // serve's way: loaded, answering 500 saying why.
            let stubber = HTTPStubber()
            try stubber.load(stubFilesAt: root, unsupportedFeatures: .answerWithError, extensions: [.graphQL])
            #expect(stubber.plan("GET", "http://localhost/")?.response?.statusCode == .internalServerError)
        }
    }

    @Test func aServerServesThemAndItsAdminAPITakesThem() async throws {
        try await Self.withRoot(Self.mappings) { root in
            var configuration = HTTPStubServer.Configuration()
            configuration.stubFileExtensions = [.graphQL]
            let server = HTTPStubServer(stubber: HTTPStubber(), configuration: configuration)
            try server.loadStubFiles(at: root)
            let base = try await server.start()
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            func post(_ path: String, _ body: String) async throws -> (Int, String) {
                var request = URLRequest(url: base.appendingPathComponent(path))
                request.httpMethod = "POST"
                request.httpBody = Data(body.utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                let (data, response) = try await session.data(for: request)
                return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
            }
            let luke = try await post(
                "graphql",
                #"{"operationName": "Human", "variables": {"id": "1000"}, "query": "query Human($id: ID!) { human(id: $id) { name } }"}"#
            )
            #expect(luke.1.contains("Luke"))
            let mapping = """
                {"request": {"urlPath": "/graphql", "method": "POST", "customMatcher": {"name": "graphql-body-matcher",
                  "parameters": {"query": "{ droid(id: 2001) { name } }"}}}, "response": {"status": 200, "body": "droid"}}
                """
            #expect(try await post("__admin/mappings", mapping).0 == 201)
            #expect(try await post("graphql", #"{"query": "{droid(id:2001){name}}"}"#).1 == "droid")
            let unmatched = try await post("graphql", #"{"operationName": "Nope", "query": "query Nope { nope }"}"#)
            #expect(unmatched.0 == 404)
            #expect(unmatched.1.contains("graphql: query Nope"), "\(unmatched.1)")
            await server.stop()
        }
    }

    @Test func recordingsTellOperationsApartAndReplayThemInAnyOrder() async throws {
        let upstream = try TestHTTPServer { request in
            let body = String(decoding: request.body, as: UTF8.self)
            let answer =
                body.contains("Hero")
                ? #"{"data": {"hero": {"name": "R2-D2"}}}"# : #"{"data": {"human": {"name": "Luke"}}}"#
            return .init(headers: ["Content-Type": "application/json"], body: Data(answer.utf8))
        }
        defer { upstream.stop() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("graphql-rec-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var options = HTTPRecording.Options()
        options.extensions = [.graphQL]
        options.redactedJSONFields = ["token"]
        let url = upstream.baseURL.appendingPathComponent("graphql").absoluteString
        let hero =
            #"{"operationName": "Hero", "query": "query Hero { hero { name } }", "extensions": {"clientLibrary": {"name": "apollo-ios", "version": "1.25.7"}}}"#
        let human =
            #"{"operationName": "Human", "query": "query Human($id: ID!, $token: String) { human(id: $id) { name } }", "variables": {"id": "1000", "token": "s3cret"}}"#
        let recorder = HTTPStubber()
        let recording = try recorder.record(to: root, mode: .record, options: options, environment: [:])
        let session = recorder.session()
        for body in [hero, human] {
            var request = URLRequest(url: URL(string: url)!)
            request.httpMethod = "POST"
            request.httpBody = Data(body.utf8)
            _ = try await session.data(for: request)
        }
        try recording.save()
        let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("mappings").path)
            .sorted()
        #expect(names == ["post-graphql-query-hero.json", "post-graphql-query-human.json"])
        let written = try String(
            contentsOf: root.appendingPathComponent("mappings/post-graphql-query-human.json"), encoding: .utf8)
        #expect(written.contains(#""name": "graphql-body-matcher""#), "\(written)")
        #expect(!written.contains("s3cret"), "\(written)")
        upstream.stop()

        // Replayed with no upstream, in the other order.
        let replaying = HTTPStubber()
        try replaying.record(to: root, mode: .replay, options: options, environment: [:])
        let variables = #"{"id": "1000", "token": "another"}"#
        #expect(
            replaying.bodyText(
                "POST", url,
                body: Data(
                    #"{"operationName": "Human", "query": "query Human($token: String, $id: ID!) { human(id: $id) { name } }", "variables": \#(variables)}"#
                        .utf8))?.contains("Luke") == true)
        #expect(replaying.bodyText("POST", url, body: Data(hero.utf8))?.contains("R2-D2") == true)
    }
}
