import Foundation
import OpenAPIRuntime
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

/// A client that swift-openapi-generator made from Documents/notes.yaml (Generated/, by
/// Scripts/generate-openapi-client), answered in process by HTTPStubTransport.
@Suite("A generated client over HTTPStubTransport")
struct GeneratedClientTests {
    private let server = URL(string: "https://notes.example.test/v1")!

    private func client(_ stubber: HTTPStubber) -> Client {
        Client(serverURL: server, transport: HTTPStubTransport(stubber: stubber))
    }

    private func notesStubber() throws -> HTTPStubber {
        let stubber = HTTPStubber()
        try stubber.load(openAPIAt: Documents.url("notes.yaml"))
        return stubber
    }

    @Test("The document's examples decode into the generated types")
    func examples() async throws {
        let stubber = try notesStubber()
        let note = try await client(stubber).getNote(path: .init(noteId: 1)).ok.body.json
        #expect(note.id == 1 && note.text == "Call Ana")
        #expect(note.created == Date(timeIntervalSince1970: 1_795_113_000))
        let notes = try await client(stubber).listNotes(query: .init(limit: 5)).ok.body.json
        #expect(notes.map(\.id) == [2, 1])
        let created = try await client(stubber).createNote(body: .json(.init(text: "Water plants", tags: ["home"])))
        // No example: a value generated from the schema, which the generated decoder accepts.
        let generated = try created.created.body.json
        #expect(generated.id >= 1 && !generated.text.isEmpty)
        #expect(try await client(stubber).deleteNote(path: .init(noteId: 3)) == .noContent(.init()))
        #expect(stubber.journal.count == 4 && stubber.journal.allSatisfy { $0.path == .clientTransport })
    }

    @Test("Server-sent events reach the generated client's event sequence as they are due")
    func serverSentEvents() async throws {
        let stubber = try notesStubber()
        // The stream stays open after the last change: the client reads each before any end could come.
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://notes.example.test/v1/notes/changes")
                .stub(
                    for: .get,
                    response: .eventStream(
                        [
                            HTTPStubEvent(data: #"{"kind": "created", "id": 3}"#, id: "a", delay: 0.08),
                            HTTPStubEvent(comment: "keep-alive", delay: 0.08),
                            HTTPStubEvent(
                                data: #"{"kind": "updated", "id": 3}"#, event: "change", id: "b", delay: 0.08),
                            HTTPStubEvent(data: #"{"kind": "deleted",\#n "id": 3}"#, id: "c", delay: 0.08),
                        ], end: .stayOpen)))
        let start = ContinuousClock.now
        let body = try await client(stubber).watchNotes().ok.body.text_event_hyphen_stream
        var changes: [(Components.Schemas.NoteChange, String?, Double)] = []
        for try await event in body.asDecodedServerSentEventsWithJSONData(of: Components.Schemas.NoteChange.self) {
            // The runtime yields the keep-alive comment's block as an event without data, as other parsers skip it.
            guard let change = event.data else { continue }
            changes.append((change, event.id, (ContinuousClock.now - start).seconds))
            if changes.count == 3 { break }
        }
        #expect(changes.map(\.0.kind) == [.created, .updated, .deleted])
        #expect(changes.map(\.1) == ["a", "b", "c"])
        for (index, due) in [0.08, 0.24, 0.32].enumerated() where index < changes.count {
            #expect(changes[index].2 >= due, "change \(index + 1) came when due")
        }
    }

    @Test("A request the document refuses reaches the client as its documented error")
    func refusals() async throws {
        let stubber = try notesStubber()
        let tooLong = String(repeating: "x", count: 141)
        let output = try await client(stubber).createNote(body: .json(.init(text: tooLong)))
        guard case .unprocessableContent(let problem) = output else {
            Issue.record("expected 422, got \(output)")
            return
        }
        #expect(try problem.body.application_problem_plus_json.status == 422)
        // 0 is below the path parameter's minimum: 400, which getNote does not document.
        let invalid = try await client(stubber).getNote(path: .init(noteId: 0))
        guard case .undocumented(let status, _) = invalid else {
            Issue.record("expected an undocumented 400, got \(invalid)")
            return
        }
        #expect(status == 400)
    }

    @Test("A test's own stub wins over the document, and is verified as on every path")
    func ownStub() async throws {
        let stubber = try notesStubber()
        let missing = HTTPStubRequest().match(URL: "https://notes.example.test/v1/notes/9")
            .stub(
                for: .get, code: .notFound, contentType: "application/problem+json",
                body: Data(#"{"title": "Not Found", "status": 404}"#.utf8))
        stubber.add(stub: missing)
        let output = try await client(stubber).getNote(path: .init(noteId: 9))
        #expect(try output.notFound.body.application_problem_plus_json.title == "Not Found")
        try stubber.verify(missing, called: .once)
        #expect(stubber.validate(against: try OpenAPIContract(contentsOf: Documents.url("notes.yaml"))).isEmpty)
    }
}
