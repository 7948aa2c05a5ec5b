import AsyncHTTPClient
import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import StuntDouble
import StuntDoubleServer
import Testing

@testable import StuntDoubleOpenAPI

/// The generated client of Documents/notes.yaml over swift-openapi-generator's `AsyncHTTPClientTransport`, the
/// transport server-side code uses. It takes only a concrete `HTTPClient` (its seam is internal), so no stub can
/// sit under it in process: it talks to the same stubber through the loopback server, unchanged.
@Suite struct AsyncHTTPClientTransportTests {
    @Test func aGeneratedClientOverAsyncHTTPClientTransportGetsTheSameAnswers() async throws {
        let stubber = HTTPStubber()
        try stubber.load(openAPIAt: Documents.url("notes.yaml"))
        let server = HTTPStubServer(stubber: stubber)
        let base = try await server.start()
        let client = Client(
            serverURL: base.appendingPathComponent("v1"),
            transport: AsyncHTTPClientTransport(configuration: .init(client: .shared, timeout: .seconds(120))))
        let note = try await client.getNote(path: .init(noteId: 1)).ok.body.json
        #expect(note.id == 1 && note.text == "Call Ana")
        let notes = try await client.listNotes(query: .init(limit: 5)).ok.body.json
        #expect(notes.map(\.id) == [2, 1])
        // The document's rules hold on this path too: a limit beyond its maximum is refused.
        let refused = try await client.listNotes(query: .init(limit: 10_000))
        guard case .undocumented(let status, _) = refused else {
            Issue.record("a limit beyond the maximum must be refused: \(refused)")
            await server.stop()
            return
        }
        #expect(status == 400 || status == 422)
        #expect(stubber.journal.count == 3)
        await server.stop()
    }
}
