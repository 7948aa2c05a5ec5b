import Foundation
import NIOConcurrencyHelpers
import StuntDouble
import StuntDoubleWireMock

/// The stub mappings a server serves from files and from its admin API: each one's JSON, the stub it became,
/// and where it came from, so that the admin API can list, edit, remove, reset them to the files and save
/// them back.
final class MappingStore: Sendable {
    /// One mapping.
    struct Entry: Sendable {
        let stub: HTTPStubRequest
        var spec: MappingSpec
        var origin: Origin
        /// Whether the mapping changed since it was read from (or saved to) its file.
        var isUnsaved: Bool

        /// The mapping's id: its spec's, so that a replaced spec leaves nothing stale behind.
        var id: UUID { spec.id }

        /// The mapping as WireMock's admin API shows it: as written, with its `id` and `uuid`.
        var json: JSONNode {
            let id = JSONNode.string(spec.id.uuidString.lowercased())
            return spec.json.setting("uuid", to: id).setting("id", to: id)
        }
    }

    /// Where a mapping came from.
    enum Origin: Sendable, Equatable {
        /// A file under `mappings/` (relative path), holding one mapping or a list.
        case file(String, isList: Bool)
        /// The admin API.
        case api
    }

    /// Why an admin change was refused.
    enum Failure: Error {
        /// The JSON has errors; each diagnostic says where and why.
        case invalid([StubFileDiagnostic])
        /// No mapping has the id.
        case notFound
        /// The server has no root folder to read or write.
        case noRoot
        /// The root folder is not the user's to write (the bundled examples): its display name.
        case readOnlyRoot(String)
        /// A file could not be written.
        case io(String)
    }

    private struct State: Sendable {
        /// In the order added (the last wins at equal priority).
        var entries: [Entry] = []
        var root: URL?
        var rootDisplay = ""
        /// Whether `save` must leave the root alone.
        var isReadOnly = false
        /// Mappings of the root's files that the admin API removed: reading the files again (`reset`) leaves
        /// them out, as WireMock, which deletes their files, would. (The files themselves are never deleted.)
        var forgotten: Set<UUID> = []
        /// The message mappings read from the root's `message-mappings/` (a reading of the files replaces them).
        var messageFileIDs: Set<UUID> = []
    }

    let stubber: HTTPStubber
    private let state = NIOLockedValueBox(State())
    /// The message stub mappings (`message-mappings/`), read and reset with the others.
    let messages: MessageMappingStore

    /// What a mapping that uses a feature StuntDouble lacks becomes.
    let unsupportedFeatures: StubFiles.UnsupportedFeatures

    /// Which mappings' responses are templates, and what rendering them reads.
    let templating: StubFiles.ResponseTemplating

    /// The custom matchers mappings may name.
    let extensions: [StubFileExtension]

    init(
        stubber: HTTPStubber, unsupportedFeatures: StubFiles.UnsupportedFeatures,
        templating: StubFiles.ResponseTemplating, extensions: [StubFileExtension] = []
    ) {
        self.stubber = stubber
        messages = MessageMappingStore(stubber: stubber)
        self.unsupportedFeatures = unsupportedFeatures
        self.templating = templating
        self.extensions = extensions
    }

    /// The root folder, once stub files were loaded.
    var root: URL? { state.withLockedValue { $0.root } }

    private var filesDirectory: URL? { root?.appendingPathComponent("__files") }

    /// Loads the stub files of a root folder and remembers it for `reset` and `save`.
    func load(root: URL, displayPath: String, isReadOnly: Bool = false) throws(HTTPStubberError) -> StubFiles {
        let files = StubFiles(
            root: root, displayPath: displayPath, unsupportedFeatures: unsupportedFeatures, templating: templating,
            sendsWebhooks: true, extensions: extensions)
        let errors = files.errors
        guard errors.isEmpty else {
            _ = try stubber.load(files)  // throws, with every diagnostic
            return files
        }
        let forgotten = state.withLockedValue { $0.forgotten }
        let entries = files.specs.filter { !forgotten.contains($0.id) }.map { spec in
            let relative = Self.relativePath(of: spec.file, display: displayPath)
            return add(spec, origin: .file(relative, isList: spec.isInList), unsaved: false)
        }
        state.withLockedValue { state in
            state.root = root
            state.rootDisplay = displayPath
            state.isReadOnly = isReadOnly
            state.entries += entries
        }
        let messageIDs = messages.add(files.messageSpecs).map(\.id)
        state.withLockedValue { $0.messageFileIDs.formUnion(messageIDs) }
        return files
    }

    /// The path of a mapping file relative to `mappings/`, from the path diagnostics show.
    private static func relativePath(of file: String, display: String) -> String {
        for prefix in [display + "/mappings/", display + "/"] where file.hasPrefix(prefix) {
            return String(file.dropFirst(prefix.count))
        }
        return (file as NSString).lastPathComponent
    }

    /// Makes the stub of a spec and adds it to the stubber.
    private func add(_ spec: MappingSpec, origin: Origin, unsaved: Bool) -> Entry {
        let stub = spec.makeStub { self.stubber.scenario(named: $0) }
        StubWireResponse.prepare(stub)
        stubber.add(stub: stub)
        return Entry(stub: stub, spec: spec, origin: origin, isUnsaved: unsaved)
    }

    // MARK: - Reading

    /// Every mapping, the one that wins at equal priority first (as WireMock lists them).
    var entries: [Entry] {
        state.withLockedValue { Array($0.entries.reversed()) }
    }

    func entry(id: UUID) -> Entry? {
        state.withLockedValue { $0.entries.first { $0.id == id } }
    }

    /// The mapping a stub was made from, if it was.
    func entry(for stub: HTTPStubRequest) -> Entry? {
        guard let id = stub.mappingID else { return nil }
        return state.withLockedValue { $0.entries.first { $0.id == id && $0.stub === stub } }
    }

    // MARK: - Changing

    /// Reads mappings sent to the admin API: one mapping, or `{"mappings": [...]}`.
    private func read(_ json: Data, name: String) -> Result<[MappingSpec], Failure> {
        let files = StubFiles(
            json: json, name: name, filesDirectory: filesDirectory, unsupportedFeatures: unsupportedFeatures,
            refusingUnknownFields: true, templating: templating, sendsWebhooks: true, extensions: extensions)
        guard files.errors.isEmpty else { return .failure(.invalid(files.diagnostics)) }
        // A mapping sent without an id gets a new, random one, as in WireMock.
        let given = JSONNode.parse(lenient: json)
        let written = given?["mappings"]?.items ?? given.map { [$0] } ?? []
        return .success(
            files.specs.enumerated().map { index, spec in
                var spec = spec
                let node = index < written.count ? written[index] : spec.json
                if node["id"] == nil && node["uuid"] == nil { spec.id = UUID() }
                return spec
            })
    }

    /// Adds a mapping (`POST /__admin/mappings`).
    func create(_ json: Data) -> Result<(Entry, [StubFileDiagnostic]), Failure> {
        let diagnostics = StubFiles(
            json: json, name: "the request body", filesDirectory: filesDirectory,
            unsupportedFeatures: unsupportedFeatures, refusingUnknownFields: true, templating: templating,
            sendsWebhooks: true, extensions: extensions
        ).diagnostics
        switch read(json, name: "the request body") {
        case .failure(let failure):
            return .failure(failure)
        case .success(let specs):
            guard let spec = specs.first else { return .failure(.invalid(diagnostics)) }
            // A mapping with the id of one already here replaces it.
            if entry(id: spec.id) != nil {
                return replace(id: spec.id, with: spec).map { ($0, diagnostics) }
            }
            let entry = add(spec, origin: .api, unsaved: true)
            state.withLockedValue { $0.entries.append(entry) }
            return .success((entry, diagnostics))
        }
    }

    /// Replaces a mapping, keeping its id and its place (`PUT /__admin/mappings/{id}`).
    func replace(id: UUID, with json: Data) -> Result<Entry, Failure> {
        switch read(json, name: "the request body") {
        case .failure(let failure): return .failure(failure)
        case .success(let specs):
            guard var spec = specs.first else { return .failure(.invalid([])) }
            spec.id = id
            return replace(id: id, with: spec)
        }
    }

    private func replace(id: UUID, with spec: MappingSpec) -> Result<Entry, Failure> {
        state.withLockedValue { state in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return .failure(.notFound) }
            var entry = state.entries[index]
            entry.stub.adopt(spec.makeStub { self.stubber.scenario(named: $0) })
            entry.spec = spec
            entry.isUnsaved = true
            state.entries[index] = entry
            return .success(entry)
        }
    }

    /// Removes a mapping (`DELETE /__admin/mappings/{id}`). Its file, if any, stays.
    func remove(id: UUID) -> Bool {
        let removed: Entry? = state.withLockedValue { state in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return nil }
            Self.forget([state.entries[index]], in: &state)
            return state.entries.remove(at: index)
        }
        if let removed { stubber.remove(stub: removed.stub) }
        return removed != nil
    }

    /// Removes every mapping (`DELETE /__admin/mappings`); stubs added in Swift stay. Those of the root's files
    /// stay out when the files are read again (`reset`), as in WireMock.
    func removeAll() {
        let removed = state.withLockedValue { state in
            Self.forget(state.entries, in: &state)
            defer { state.entries = [] }
            return state.entries
        }
        for entry in removed { stubber.remove(stub: entry.stub) }
    }

    /// Keeps the removed mappings that came from the root's files out of the next reading of them.
    private static func forget(_ entries: [Entry], in state: inout State) {
        for entry in entries {
            if case .file = entry.origin { state.forgotten.insert(entry.id) }
        }
    }

    /// Removes every mapping and loads the root folder's files again (`POST /__admin/mappings/reset`), but for
    /// the mappings the admin API removed from them; message mappings too (all of their files: WireMock never
    /// deletes those).
    func reset() throws(HTTPStubberError) {
        let removed = state.withLockedValue { state in
            defer { state.entries = [] }
            return state.entries
        }
        for entry in removed { stubber.remove(stub: entry.stub) }
        messages.removeAll()
        state.withLockedValue { $0.messageFileIDs = [] }
        let (root, display, isReadOnly) = state.withLockedValue { ($0.root, $0.rootDisplay, $0.isReadOnly) }
        if let root {
            _ = try load(root: root, displayPath: display, isReadOnly: isReadOnly)
        }
    }

    /// Reads the root's files again after they changed on disk (`serve` watching them), in one step: the files'
    /// mappings replace those read from them before. Mappings made or changed through the admin API and not saved
    /// stay as they are, and stay the most recent (nothing done through the API is lost); the files' mappings the
    /// API removed stay out. With errors in the files nothing changes: the last good reading serves on.
    /// - Returns: The files read, with their warnings.
    /// - Throws: `HTTPStubberError` (`invalidStubFile`) with each error, when the files have errors.
    func reloadFiles() throws(HTTPStubberError) -> StubFiles? {
        let (root, display) = state.withLockedValue { ($0.root, $0.rootDisplay) }
        guard let root else { return nil }
        let files = StubFiles(
            root: root, displayPath: display, unsupportedFeatures: unsupportedFeatures, templating: templating,
            sendsWebhooks: true, extensions: extensions)
        guard files.errors.isEmpty else {
            _ = try stubber.load(files)  // throws, with every diagnostic
            return files
        }
        let made = files.specs.map { spec in
            let stub = spec.makeStub { self.stubber.scenario(named: $0) }
            StubWireResponse.prepare(stub)
            return Entry(
                stub: stub, spec: spec,
                origin: .file(Self.relativePath(of: spec.file, display: display), isList: spec.isInList),
                isUnsaved: false)
        }
        state.withLockedValue { state in
            let (read, kept) = state.entries.reduce(into: ([Entry](), [Entry]())) { split, entry in
                if case .file = entry.origin, !entry.isUnsaved { split.0.append(entry) } else { split.1.append(entry) }
            }
            let keptIDs = Set(kept.map(\.id))
            let fresh = made.filter { !state.forgotten.contains($0.id) && !keptIDs.contains($0.id) }
            stubber.exchange(removing: read.map(\.stub), adding: fresh.map(\.stub) + kept.map(\.stub))
            state.entries = fresh + kept
        }
        let previous = state.withLockedValue { $0.messageFileIDs }
        for id in previous { _ = messages.remove(id: id) }
        let messageIDs = messages.add(files.messageSpecs).map(\.id)
        state.withLockedValue { $0.messageFileIDs = Set(messageIDs) }
        return files
    }

    /// The root folder, when there is one and it is the user's to write into.
    func writableRoot() -> Result<URL, Failure> {
        let (root, display, isReadOnly) = state.withLockedValue { ($0.root, $0.rootDisplay, $0.isReadOnly) }
        guard let root else { return .failure(.noRoot) }
        return isReadOnly ? .failure(.readOnlyRoot(display)) : .success(root)
    }

    /// Writes every mapping added or changed through the admin API to the root folder
    /// (`POST /__admin/mappings/save`): a new mapping to a file of its own, a changed one into the file it
    /// came from. No file is ever deleted.
    /// - Parameter ids: Only these mappings (made through the admin API), or every changed one when `nil`.
    /// - Returns: How many mappings were written, or why none could be.
    func save(only ids: Set<UUID>? = nil) -> Result<Int, Failure> {
        let root: URL
        switch writableRoot() {
        case .success(let url): root = url
        case .failure(let failure): return .failure(failure)
        }
        let folder = root.appendingPathComponent("mappings")
        var written = 0
        return state.withLockedValue { state -> Result<Int, Failure> in
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                // Changed mappings that came from files: each such file is written with its mappings now.
                let changedFiles = Set(
                    state.entries.compactMap { entry -> String? in
                        guard ids == nil, entry.isUnsaved, case .file(let path, _) = entry.origin else { return nil }
                        return path
                    })
                for path in changedFiles.sorted() {
                    let members = state.entries.filter {
                        if case .file(path, _) = $0.origin { true } else { false }
                    }
                    let isList =
                        members.first.map { entry in
                            if case .file(_, let isList) = entry.origin { isList } else { false }
                        } ?? false
                    let node: JSONNode =
                        isList || members.count != 1
                        ? .object([("mappings", .array(members.map(\.json)))]) : members[0].json
                    try Data((node.rendered(pretty: true, sortedKeys: true) + "\n").utf8)
                        .write(to: folder.appendingPathComponent(path), options: .atomic)
                    written += members.count
                }
                for index in state.entries.indices where state.entries[index].isUnsaved {
                    if let ids, !ids.contains(state.entries[index].id) { continue }
                    if case .api = state.entries[index].origin {
                        let name = Self.fileName(for: state.entries[index])
                        try Data((state.entries[index].json.rendered(pretty: true, sortedKeys: true) + "\n").utf8)
                            .write(to: folder.appendingPathComponent(name), options: .atomic)
                        state.entries[index].origin = .file(name, isList: false)
                        state.forgotten.remove(state.entries[index].id)
                        written += 1
                    }
                    state.entries[index].isUnsaved = false
                }
                return .success(written)
            } catch {
                return .failure(.io("\(error)"))
            }
        }
    }

    /// `get-users-8c5db8b0.json`: the name (or method and URL) made file-safe, and the start of the id.
    static func fileName(for entry: Entry) -> String {
        fileName(
            label: entry.spec.name ?? "\(entry.spec.method?.rawValue ?? "any") \(entry.spec.urlSummary)", id: entry.id)
    }

    /// A label made file-safe (`GET /users` is `get-users`), with the start of an id.
    static func fileName(label: String, id: UUID) -> String {
        var slug = ""
        for scalar in label.lowercased().unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar), scalar.isASCII {
                slug.unicodeScalars.append(scalar)
            } else if !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        slug = String(slug.trimmingCharacters(in: CharacterSet(charactersIn: "-")).prefix(60))
        return (slug.isEmpty ? "mapping" : slug) + "-" + id.uuidString.lowercased().prefix(8) + ".json"
    }

    /// The mappings whose metadata satisfies a pattern (`find-by-metadata`, `remove-by-metadata`).
    func entries(whereMetadata pattern: StubValuePattern) -> [Entry] {
        entries.filter { entry in
            pattern.matches(entry.spec.json["metadata"].map { $0.rendered() })
        }
    }

    // MARK: - Scenarios

    /// Every scenario the mappings name: its current state and the states the mappings mention.
    var scenarios: [(name: String, state: String, possibleStates: [String], mappings: [JSONNode])] {
        var states: [String: Set<String>] = [:]
        var mappings: [String: [JSONNode]] = [:]
        for entry in entries {
            guard let name = entry.spec.scenarioName else { continue }
            states[name, default: ["Started"]].formUnion(
                [entry.spec.requiredScenarioState, entry.spec.newScenarioState].compactMap { $0 })
            mappings[name, default: []].append(entry.json)
        }
        for name in stubber.namedScenarios.keys where states[name] == nil {
            states[name] = ["Started"]
        }
        return states.keys.sorted().map { name in
            let scenario = stubber.scenario(named: name)
            return (name, stubber.state(of: scenario), states[name, default: []].sorted(), mappings[name] ?? [])
        }
    }
}
