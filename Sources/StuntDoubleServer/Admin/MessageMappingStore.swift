import Foundation
import NIOConcurrencyHelpers
import StuntDouble
import StuntDoubleWireMock

/// The message stub mappings (WireMock 4's WebSocket stubs) a server serves from `message-mappings/` and its admin
/// API: each one's JSON and the stub it became. As in WireMock, they are never written back to files, and
/// removing one through the admin API leaves its file alone; a reset reads the files again.
final class MessageMappingStore: Sendable {
    /// One mapping.
    struct Entry: Sendable {
        let stub: HTTPMessageStub
        let spec: MessageMappingSpec
        /// The order it was added in (the newest wins at equal priority).
        let insertion: Int

        var id: UUID { spec.id }

        /// The mapping as WireMock's admin API shows it: as written, with its `id`.
        var json: JSONNode {
            spec.json.setting("id", to: .string(spec.id.uuidString.lowercased()))
        }
    }

    private struct State: Sendable {
        var entries: [Entry] = []
        var insertions = 0
    }

    let stubber: HTTPStubber
    private let state = NIOLockedValueBox(State())

    init(stubber: HTTPStubber) {
        self.stubber = stubber
    }

    /// Every mapping in the order tried: highest priority first, then the newest (as WireMock lists them).
    var entries: [Entry] {
        state.withLockedValue { $0.entries }.sorted {
            $0.stub.priority != $1.stub.priority ? $0.stub.priority > $1.stub.priority : $0.insertion > $1.insertion
        }
    }

    func entry(id: UUID) -> Entry? {
        state.withLockedValue { $0.entries.first { $0.id == id } }
    }

    /// The mapping a stub was made from, if it was.
    func entry(for stub: HTTPMessageStub) -> Entry? {
        state.withLockedValue { $0.entries.first { $0.stub === stub } }
    }

    /// Adds mappings (a mapping with the id of one already here replaces it).
    @discardableResult
    func add(_ specs: [MessageMappingSpec]) -> [Entry] {
        // Looked up once, not per mapping: a root of thousands would otherwise search the list for each.
        var existing = Set(state.withLockedValue { $0.entries.map(\.id) })
        return specs.map { spec in
            if !existing.insert(spec.id).inserted { remove(id: spec.id) }
            let stub = spec.makeStub()
            stubber.add(messageStub: stub)
            return state.withLockedValue { state in
                state.insertions += 1
                let entry = Entry(stub: stub, spec: spec, insertion: state.insertions)
                state.entries.append(entry)
                return entry
            }
        }
    }

    /// Removes a mapping; whether there was one.
    @discardableResult
    func remove(id: UUID) -> Bool {
        let removed = state.withLockedValue { state -> Entry? in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return nil }
            return state.entries.remove(at: index)
        }
        if let removed { stubber.remove(messageStub: removed.stub) }
        return removed != nil
    }

    /// Removes every mapping.
    func removeAll() {
        let removed = state.withLockedValue { state in
            defer { state.entries = [] }
            return state.entries
        }
        for entry in removed { stubber.remove(messageStub: entry.stub) }
    }

    /// The mappings whose metadata (as JSON text) a pattern matches.
    func entries(whereMetadata pattern: StubValuePattern) -> [Entry] {
        entries.filter { entry in
            guard let metadata = entry.spec.metadata else { return false }
            return pattern.matches(metadata.rendered())
        }
    }
}
