import Foundation
import StuntDouble
import StuntDoubleWireMock

/// WireMock 4's `/__admin/message-mappings`: message stub mappings (WebSocket stubs) listed, created, replaced,
/// removed, and found or removed by metadata.
extension AdminAPI {
    /// `GET /__admin/message-mappings?offset=&limit=`: highest priority first, then the newest.
    func listMessageMappings(_ request: AdminRequest) -> AdminResponse {
        let all = store.messages.entries
        let offset = request.query["offset"].flatMap(Int.init) ?? 0
        let limit = request.query["limit"].flatMap(Int.init) ?? all.count
        let page = all.dropFirst(max(0, offset)).prefix(max(0, limit))
        return .json(
            .object([
                ("messageMappings", .array(page.map(\.json))), ("meta", .object([("total", .number(all.count))])),
            ]))
    }

    /// `POST /__admin/message-mappings`: one mapping; 201 with it and its id.
    func createMessageMapping(_ body: Data) -> AdminResponse {
        switch readMessageMapping(body) {
        case .success(let spec): return .json(store.messages.add([spec])[0].json, status: 201)
        case .failure(let failure): return failure.response
        }
    }

    /// `DELETE /__admin/message-mappings`.
    func removeAllMessageMappings() -> AdminResponse {
        store.messages.removeAll()
        return .json(.object([]))
    }

    /// `GET /__admin/message-mappings/{id}`.
    func messageMapping(_ idText: String) -> AdminResponse {
        switch Self.messageMappingID(idText) {
        case .success(let id):
            return store.messages.entry(id: id).map { .json($0.json) }
                ?? .error(404, "No message mapping has the id \(idText).")
        case .failure(let failure): return failure.response
        }
    }

    /// `PUT /__admin/message-mappings/{id}`: the mapping replaced (its id is the path's).
    func replaceMessageMapping(_ idText: String, with body: Data) -> AdminResponse {
        switch Self.messageMappingID(idText) {
        case .success(let id):
            guard store.messages.entry(id: id) != nil else {
                return .error(404, "No message mapping has the id \(idText).")
            }
            switch readMessageMapping(body) {
            case .success(var spec):
                spec.id = id
                return .json(store.messages.add([spec])[0].json)
            case .failure(let failure): return failure.response
            }
        case .failure(let failure): return failure.response
        }
    }

    /// `DELETE /__admin/message-mappings/{id}`: 200 whether or not there was one, as in WireMock.
    func removeMessageMapping(_ idText: String) -> AdminResponse {
        switch Self.messageMappingID(idText) {
        case .success(let id):
            store.messages.remove(id: id)
            return .json(.object([]))
        case .failure(let failure): return failure.response
        }
    }

    /// `POST /__admin/message-mappings/find-by-metadata` and `remove-by-metadata`.
    func messageMappings(byMetadata body: Data, removing: Bool = false) -> AdminResponse {
        let (pattern, diagnostics) = StubValuePattern.read(body, name: "the request body")
        guard let pattern else { return .json(AdminJSON.errors(diagnostics), status: 422) }
        let found = store.messages.entries(whereMetadata: pattern)
        guard removing else {
            return .json(
                .object([
                    ("messageMappings", .array(found.map(\.json))),
                    ("meta", .object([("total", .number(found.count))])),
                ]))
        }
        for entry in found { store.messages.remove(id: entry.id) }
        return .json(.object([]))
    }

    /// One mapping from a request body; `{"messageMappings": [...]}` belongs in a file.
    private func readMessageMapping(_ body: Data) -> Result<MessageMappingSpec, AdminFailure> {
        let node = JSONNode.parse(lenient: body)
        if node?["messageMappings"] != nil {
            return .failure(
                AdminFailure(
                    .error(
                        422,
                        "POST one message mapping; {\"messageMappings\": [...]} is for files in message-mappings/.")))
        }
        let (specs, diagnostics) = StubFiles.readMessageMappings(
            json: body, name: "the request body",
            filesDirectory: store.root?.appendingPathComponent("__files"), templating: store.templating)
        guard var spec = specs.first else {
            return .failure(AdminFailure(.json(AdminJSON.errors(diagnostics), status: 422)))
        }
        // Without an id, a new one (the reader's would be the same for every body).
        if node?["id"] == nil, node?["uuid"] == nil { spec.id = UUID() }
        return .success(spec)
    }

    private static func messageMappingID(_ text: String) -> Result<UUID, AdminFailure> {
        guard let id = UUID(uuidString: text) else {
            return .failure(
                AdminFailure(
                    .json(
                        .object([
                            (
                                "errors",
                                .array([
                                    .object([
                                        ("code", .number(10)), ("title", .string("\(text) is not a valid UUID")),
                                    ])
                                ])
                            )
                        ]), status: 400)))
        }
        return .success(id)
    }
}
