import Foundation
import StuntDouble
import StuntDoubleWireMock

/// `/__admin/mappings`: the stubs as WireMock mappings, listed, created, edited, removed, reset to the files,
/// saved to them, imported, and found by metadata.
extension AdminAPI {
    /// `GET /__admin/mappings?offset=&limit=`.
    func listMappings(_ request: AdminRequest) -> AdminResponse {
        let all = store.entries
        let offset = request.query["offset"].flatMap(Int.init) ?? 0
        let limit = request.query["limit"].flatMap(Int.init) ?? all.count
        let page = all.dropFirst(max(0, offset)).prefix(max(0, limit))
        return .json(
            .object([("mappings", .array(page.map(\.json))), ("meta", .object([("total", .number(all.count))]))]))
    }

    /// `POST /__admin/mappings`: 201 with the mapping, its warnings (at most five) in `StuntDouble-Warning`.
    func createMapping(_ body: Data) -> AdminResponse {
        switch store.create(body) {
        case .success(let (entry, diagnostics)):
            var response = AdminResponse.json(entry.json, status: 201)
            for warning in diagnostics.filter({ $0.severity == .warning }).prefix(5) {
                response.headers.append(("StuntDouble-Warning", warning.description))
            }
            return response
        case .failure(let failure): return Self.response(for: failure)
        }
    }

    /// `DELETE /__admin/mappings`.
    func removeAllMappings() -> AdminResponse {
        store.removeAll()
        return .json(.object([]))
    }

    /// `POST /__admin/mappings/reset`: the mappings the files hold, and no others.
    func resetMappings() -> AdminResponse {
        do {
            try store.reset()
            return .json(.object([]))
        } catch {
            return .json(AdminJSON.errors(error.diagnostics), status: 422)
        }
    }

    /// `POST /__admin/mappings/save`.
    func saveMappings() -> AdminResponse {
        switch store.save() {
        case .success: return .json(.object([]))
        case .failure(let failure): return Self.response(for: failure)
        }
    }

    /// `POST /__admin/mappings/import`: `{"mappings": [...], "importOptions": {"duplicatePolicy": ...}}`.
    func importMappings(_ body: Data) -> AdminResponse {
        guard let node = JSONNode.parse(lenient: body), let list = node["mappings"]?.items else {
            return .error(422, "Send {\"mappings\": [...]} to import mappings.")
        }
        let options = node["importOptions"]
        if options?["deleteAllNotInImport"].map({ if case .bool(true) = $0.kind { true } else { false } }) == true {
            store.removeAll()
        }
        let ignoreDuplicates = options?["duplicatePolicy"]?.string == "IGNORE"
        for item in list {
            if ignoreDuplicates, let id = (item["id"] ?? item["uuid"])?.string.flatMap(UUID.init(uuidString:)),
                store.entry(id: id) != nil
            {
                continue
            }
            if case .failure(let failure) = store.create(Data(item.rendered().utf8)) {
                return Self.response(for: failure)
            }
        }
        return .json(.object([]))
    }

    /// `POST /__admin/mappings/find-by-metadata` and `remove-by-metadata`: a value pattern on `metadata`.
    func mappings(byMetadata body: Data, removing: Bool = false) -> AdminResponse {
        let (pattern, diagnostics) = StubValuePattern.read(body, name: "the request body")
        guard let pattern else { return .json(AdminJSON.errors(diagnostics), status: 422) }
        let found = store.entries(whereMetadata: pattern)
        guard removing else { return .json(.object([("mappings", .array(found.map(\.json)))])) }
        for entry in found { _ = store.remove(id: entry.id) }
        return .json(.object([]))
    }

    /// `GET /__admin/mappings/{id}`.
    func mapping(_ idText: String) -> AdminResponse {
        switch Self.mappingID(idText) {
        case .success(let id):
            return store.entry(id: id).map { .json($0.json) } ?? .error(404, "No mapping has the id \(idText).")
        case .failure(let failure): return failure.response
        }
    }

    /// `PUT /__admin/mappings/{id}`.
    func replaceMapping(_ idText: String, with body: Data) -> AdminResponse {
        switch Self.mappingID(idText) {
        case .success(let id):
            switch store.replace(id: id, with: body) {
            case .success(let entry): return .json(entry.json)
            case .failure(let failure): return Self.response(for: failure)
            }
        case .failure(let failure): return failure.response
        }
    }

    /// `POST /__admin/mappings/remove` (WireMock's `removeStub`): removes the mapping with the body's `id` (or
    /// `uuid`); without one, every mapping whose `request` is the body's, as WireMock compares them. 200 either
    /// way, as in WireMock.
    func removeMatchingMappings(_ body: Data) -> AdminResponse {
        guard let mapping = JSONNode.parse(lenient: body), mapping.members != nil else {
            return .error(422, "The body is not a mapping: give a JSON object with its id, or its request.")
        }
        if let text = (mapping["id"] ?? mapping["uuid"])?.string {
            guard let id = UUID(uuidString: text) else {
                return .error(422, "The body's id \(text) is not a mapping id (a UUID).")
            }
            if store.remove(id: id) { return AdminResponse(status: 200, body: Data()) }
        }
        let request = (mapping["request"] ?? .object([])).rendered(sortedKeys: true)
        for entry in store.entries where (entry.json["request"] ?? .object([])).rendered(sortedKeys: true) == request {
            _ = store.remove(id: entry.id)
        }
        return AdminResponse(status: 200, body: Data())
    }

    /// `POST /__admin/mappings/edit` (WireMock 2's `editStub`): replaces the mapping with the body's `id` (or
    /// `uuid`) by the body; 204.
    func editMapping(_ body: Data) -> AdminResponse {
        guard let mapping = JSONNode.parse(lenient: body), mapping.members != nil else {
            return .error(422, "The body is not a mapping: give the JSON of the mapping, with the id it replaces.")
        }
        guard let text = (mapping["id"] ?? mapping["uuid"])?.string else {
            return .error(422, "The mapping has no id: give the id of the mapping it replaces.")
        }
        switch Self.mappingID(text).flatMap({ id in
            store.replace(id: id, with: body).mapError { AdminFailure(Self.response(for: $0)) }
        }) {
        case .success: return AdminResponse(status: 204, body: Data())
        case .failure(let failure): return failure.response
        }
    }

    /// `GET /__admin/mappings/unmatched` (WireMock 3): the mappings no request in the journal matched, as
    /// `GET /__admin/mappings` lists them.
    func unmatchedMappings() -> AdminResponse {
        let unmatched = unmatchedEntries()
        return .json(
            .object([
                ("mappings", .array(unmatched.map(\.json))), ("meta", .object([("total", .number(unmatched.count))])),
            ]))
    }

    /// `DELETE /__admin/mappings/unmatched` (WireMock 3): removes the mappings no request in the journal matched.
    func removeUnmatchedMappings() -> AdminResponse {
        for entry in unmatchedEntries() { _ = store.remove(id: entry.id) }
        return .json(.object([]))
    }

    private func unmatchedEntries() -> [MappingStore.Entry] {
        let matched = Set(stubber.journal.compactMap { $0.stub?.mappingID })
        return store.entries.filter { !matched.contains($0.id) }
    }

    /// `DELETE /__admin/mappings/{id}`.
    func removeMapping(_ idText: String) -> AdminResponse {
        switch Self.mappingID(idText) {
        case .success(let id):
            return store.remove(id: id) ? .json(.object([])) : .error(404, "No mapping has the id \(idText).")
        case .failure(let failure): return failure.response
        }
    }

    private static func mappingID(_ text: String) -> Result<UUID, AdminFailure> {
        guard let id = UUID(uuidString: text) else {
            return .failure(AdminFailure(.error(404, "No mapping has the id \(text) (a mapping id is a UUID).")))
        }
        return .success(id)
    }

    static func response(for failure: MappingStore.Failure) -> AdminResponse {
        switch failure {
        case .invalid(let diagnostics): return .json(AdminJSON.errors(diagnostics), status: 422)
        case .notFound: return .error(404, "No mapping has that id.")
        case .noRoot:
            return .error(
                409, "The server has no root folder to save to: start it with --root DIR (or load stub files into it).")
        case .readOnlyRoot(let display):
            return .error(
                409,
                "The server serves \(display), which are not yours to change: nothing was saved. Start it with --root "
                    + "DIR (a folder of your own) to save mappings made through the admin API.")
        case .io(let message): return .error(500, "Saving the mappings failed: \(message)")
        }
    }
}
