import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleServer
import Testing

/// WireMock's static files: a GET no stub answers gets the file at its path under `__files/`.
@Suite struct StaticFilesTests {
    /// Runs `body` with a server on a root holding a stub and files, and a file outside `__files/` that a
    /// symbolic link points at.
    func withServer(_ body: (String) async throws -> Void) async throws {
        let files: [String: String] = [
            "mappings/stub.json": #"{"request": {"url": "/docs/stubbed.json"}, "response": {"body": "from the stub"}}"#,
            "__files/docs/a.json": #"{"a": 1}"#,
            "__files/docs/stubbed.json": "from the file",
            "__files/site/index.html": "<p>home</p>",
            "__files/body of a stub.txt": "spaces",
            "secret.txt": "outside __files",
        ]
        let root = try AdminAPITests.root(files)
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("__files/link.txt"),
            withDestinationURL: root.appendingPathComponent("secret.txt"))
        let server = HTTPStubServer()
        try server.loadStubFiles(at: root)
        let baseURL = try await server.start()
        do {
            let text = baseURL.absoluteString
            try await body(text.hasSuffix("/") ? String(text.dropLast()) : text)
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    /// What a request receives: its status, content type and body.
    func send(_ method: NIOHTTP1.HTTPMethod = .GET, _ url: String) async throws
        -> (status: UInt, type: String?, text: String)
    {
        var request = HTTPClientRequest(url: url)
        request.method = method
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, response.headers.first(name: "content-type"), String(buffer: body))
    }

    @Test func anUnmatchedGETGetsTheFileAtItsPath() async throws {
        try await withServer { url in
            let file = try await send(.GET, "\(url)/docs/a.json")
            #expect(file.status == 200 && file.text == #"{"a": 1}"#)
            #expect(file.type == "application/json")
            let spaced = try await send(.GET, "\(url)/body%20of%20a%20stub.txt")
            #expect(spaced.status == 200 && spaced.text == "spaces" && spaced.type == "text/plain")
            let folder = try await send(.GET, "\(url)/site/")
            #expect(folder.status == 200 && folder.text == "<p>home</p>" && folder.type == "text/html")
        }
    }

    @Test func stubsWinAndOnlyGETsOfFilesInsideFilesAreServed() async throws {
        try await withServer { url in
            #expect(try await send(.GET, "\(url)/docs/stubbed.json").text == "from the stub")
            let posted = try await send(.POST, "\(url)/docs/a.json")
            #expect(posted.status == 404 && posted.text.hasPrefix("Request was not matched"))
            #expect(try await send(.GET, "\(url)/docs/missing.json").status == 404)
            #expect(try await send(.GET, "\(url)/docs").status == 404, "a folder without an index file")
            #expect(try await send(.GET, "\(url)/link.txt").status == 404, "a link out of __files/ is never followed")
            #expect(try await send(.GET, "\(url)/%2E%2E/secret.txt").status == 404)
            #expect(try await send(.GET, "\(url)/%2E%2E/mappings/stub.json").status == 404)
        }
    }
}
