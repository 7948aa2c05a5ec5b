import Foundation
import StuntDouble

/// A document's resources, kept: `POST /pets` makes a pet that `GET /pets/{petId}` returns and `GET /pets`
/// lists, `PUT` and `PATCH` change it, `DELETE` removes it (then `404`, the document's own). Requests are
/// checked by the document before they get here, and every answer after (a break is named in
/// `StuntDouble-Violations`). One per loaded document, so per stubber: per test in process, per server.
final class StatefulMock: Sendable {
    /// The resources of every concrete collection path (`/pets`, `/owners/7/pets`).
    struct Store: Sendable {
        struct Shelf: Sendable {
            /// Ids in the order the resources were made.
            var order: [String] = []
            var items: [String: SchemaValue] = [:]
            /// The largest numeric id so far: a new one is the next.
            var highestNumber = 0

            mutating func put(_ resource: SchemaValue, key: String, id: SchemaValue) {
                if items.updateValue(resource, forKey: key) == nil { order.append(key) }
                if case .number(let value, _) = id, value.isFinite, value < 1e15 {
                    highestNumber = max(highestNumber, Int(value))
                }
            }

            mutating func remove(_ key: String) -> SchemaValue? {
                guard let removed = items.removeValue(forKey: key) else { return nil }
                order.removeAll { $0 == key }
                return removed
            }
        }

        var shelves: [String: Shelf] = [:]
        /// Values drawn so far (ids made, each a new seed).
        var draws: UInt64 = 0
        /// The stubber's `stateResets` this store was made at.
        var resets: UInt64 = 0
    }

    let contract: OpenAPIContract
    let collections: [ResourceCollection]
    let answering: OpenAPIAnswering
    let seedsFromExamples: Bool
    /// The collection and role of each operation that has one.
    private let roles: [Int: (collection: Int, role: ResourceCollection.Role)]
    private let store: Locked<Store>
    /// The stubber's count of `resetState()` calls.
    private let resets: @Sendable () -> UInt64

    init(
        contract: OpenAPIContract, answering: OpenAPIAnswering, seedsFromExamples: Bool,
        resets: @escaping @Sendable () -> UInt64
    ) {
        self.contract = contract
        self.answering = answering
        self.seedsFromExamples = seedsFromExamples
        self.resets = resets
        let collections = ResourceCollection.discover(in: contract)
        self.collections = collections
        var roles: [Int: (collection: Int, role: ResourceCollection.Role)] = [:]
        for (index, collection) in collections.enumerated() {
            for (operation, role) in collection.roles where roles[operation] == nil {
                roles[operation] = (index, role)
            }
        }
        self.roles = roles
        store = Locked(Store())
        let initial = freshStore(resets: resets())
        store.withLock { $0 = initial }
    }

    /// An empty store, or the document's examples when it seeds from them.
    private func freshStore(resets: UInt64) -> Store {
        var store = Store(resets: resets)
        if seedsFromExamples {
            for collection in collections where !collection.path.contains("{") {
                store.shelves[collection.path] = seedShelf(for: collection)
            }
        }
        return store
    }

    /// Starts over: empty, or as the examples have it.
    func reset() {
        let fresh = freshStore(resets: resets())
        store.withLock { $0 = fresh }
    }

    /// The resources kept at a concrete collection path (`/pets`), in the order they were made.
    func resources(at path: String) -> [SchemaValue] {
        let resets = resets()
        return store.withLock { store in
            if store.resets != resets { store = freshStore(resets: resets) }
            guard let shelf = store.shelves[path] else { return [] }
            return shelf.order.compactMap { shelf.items[$0] }
        }
    }

    /// The answer to a request for an operation on a collection or its items, or `nil` to answer it as a
    /// stateless mock does (an operation on no collection, a body that is no JSON object, a `Prefer` header
    /// asking for a response or an example).
    func answer(_ request: HTTPIncomingRequest, match: PathRouter.Match) -> HTTPStubResponse? {
        guard let (index, role) = roles[match.operation] else { return nil }
        let preferences = Preferences(request.headers)
        guard preferences.code == nil, preferences.example == nil else { return nil }
        let resets = resets()
        let collection = collections[index]
        let path = collection.concretePath(with: match.variables)
        let id = match.variables.last { $0.0 == collection.idVariable }.map {
            String($0.1).removingPercentEncoding ?? String($0.1)
        }
        var call = StatefulCall(
            mock: self, request: request, operation: match.operation, collection: collection, path: path)
        let response = store.withLock { store -> HTTPStubResponse? in
            if store.resets != resets { store = freshStore(resets: resets) }
            return call.perform(role, id: id, store: &store)
        }
        guard let response else { return nil }
        return call.checked(response)
    }
}

/// One request to a collection, worked out under the store's lock.
struct StatefulCall {
    let mock: StatefulMock
    let request: HTTPIncomingRequest
    let operation: Int
    let collection: ResourceCollection
    /// The concrete collection path.
    let path: String
    /// Whether the answer is a refusal (already naming what was wrong), not to be checked.
    var isRefusal = false

    var contract: OpenAPIContract { mock.contract }
}

extension StatefulCall {
    mutating func perform(_ role: ResourceCollection.Role, id: String?, store: inout StatefulMock.Store)
        -> HTTPStubResponse?
    {
        // Taken out of the store while it changes: a copy left behind would make every change copy the whole
        // collection (10,000 resources took 8 s to make).
        var shelf = store.shelves.removeValue(forKey: path) ?? StatefulMock.Store.Shelf()
        defer { store.shelves[path] = shelf }
        switch role {
        case .list:
            return answer(body: list(shelf))
        case .create:
            guard case .object? = jsonBody else { return nil }
            var resource = jsonBody ?? .null
            let id: SchemaValue
            if let member = collection.idProperty, let given = resource[member], Self.key(of: given) != nil {
                id = given
            } else {
                id = newID(shelf: shelf, draws: &store.draws)
                if let member = collection.idProperty { resource = resource.setting(member, to: id) }
            }
            guard let key = Self.key(of: id) else { return nil }
            guard shelf.items[key] == nil else {
                return refusal(
                    409, "\(path) has \(key) already: PUT or PATCH \(collection.itemLocation(in: path, id: key))")
            }
            resource = completed(resource)
            shelf.put(resource, key: key, id: id)
            // Where the client sent this: the request's own path (with the server's base path), then the id.
            let sentTo = OpenAPIContract.target(of: request).path
            let location = collection.itemLocation(
                in: sentTo.hasSuffix("/") ? String(sentTo.dropLast()) : String(sentTo), id: key)
            return answer(body: resource, headers: [(.location, location)])
        case .replaceNamedInBody:
            guard case .object? = jsonBody, let member = collection.idProperty, let given = jsonBody?[member],
                let key = Self.key(of: given)
            else { return nil }
            guard shelf.items[key] != nil else { return notFound(key) }
            let resource = completed(jsonBody ?? .null)
            shelf.put(resource, key: key, id: given)
            return answer(body: resource)
        case .read:
            guard let id, let resource = shelf.items[id] else { return notFound(id ?? "") }
            return answer(body: resource)
        case .replace:
            guard let id, case .object? = jsonBody else { return nil }
            let typed =
                shelf.items[id].flatMap { existing in collection.idProperty.flatMap { existing[$0] } }
                ?? idValue(id)
            var resource = jsonBody ?? .null
            if let member = collection.idProperty { resource = resource.setting(member, to: typed) }
            resource = completed(resource)
            if shelf.items[id] != nil {
                shelf.put(resource, key: id, id: typed)
                return answer(body: resource)
            }
            // Creating with PUT, where the document says it can (a 201 among the answers).
            guard contract.operations[operation].responses.contains(where: { $0.code == "201" }) else {
                return notFound(id)
            }
            shelf.put(resource, key: id, id: typed)
            return answer(body: resource, code: 201)
        case .update:
            guard let id, let existing = shelf.items[id] else { return notFound(id ?? "") }
            guard let patch = jsonBody else { return nil }
            var patched: SchemaValue
            let contentType = request.headers[.contentType]?.lowercased() ?? ""
            if contentType.contains("json-patch") {
                do {
                    patched = try existing.jsonPatched(with: patch)
                } catch {
                    return refusal(
                        error.status, "the JSON Patch cannot be applied: \(error.message)", rule: "json-patch")
                }
            } else {
                patched = existing.mergePatched(with: patch)
            }
            if let member = collection.idProperty, let kept = existing[member] {
                patched = patched.setting(member, to: kept)
            }
            if let schema = collection.resourceSchema {
                let broken = SchemaValidator(table: contract.schemas, direction: .response)
                    .validate(patched, against: schema, at: "resource")
                if !broken.isEmpty {
                    return refusal(
                        422,
                        "the patched resource would break the document: "
                            + broken.map(\.description).joined(separator: "; "))
                }
            }
            shelf.put(patched, key: id, id: existing[collection.idProperty ?? ""] ?? idValue(id))
            return answer(body: patched)
        case .remove:
            guard let id, let removed = shelf.remove(id) else { return notFound(id ?? "") }
            return answer(body: removed)
        }
    }

    /// The request's body as JSON, when it is JSON.
    var jsonBody: SchemaValue? {
        guard let body = request.body, !body.isEmpty else { return nil }
        return try? SchemaValue.parse(body)
    }

    /// An id as the store keys it: a string as it is, a number as JSON writes it.
    static func key(of id: SchemaValue) -> String? {
        switch id {
        case .string(let text): text
        case .number(let value, _): value.isFinite ? JSONText.format(value) : nil
        default: nil
        }
    }

    /// An id from a path, as the id's schema types it (`7` is a number where ids are integers).
    func idValue(_ text: String) -> SchemaValue {
        if let schema = collection.idSchema, let types = contract.schemas.types(of: schema), !types.contains(.string),
            !types.isDisjoint(with: [.integer, .number]), let number = Double(text)
        {
            return .number(number)
        }
        return .string(text)
    }

    /// A new id: the next number where ids are numbers, else a value made from the id's schema that no resource
    /// has yet.
    func newID(shelf: StatefulMock.Store.Shelf, draws: inout UInt64) -> SchemaValue {
        let types = collection.idSchema.flatMap { contract.schemas.types(of: $0) }
        guard let schema = collection.idSchema, let types,
            types.contains(.string) || types.isDisjoint(with: [.integer, .number])
        else {
            return .number(Double(shelf.highestNumber + 1))
        }
        for _ in 0..<64 {
            draws &+= 1
            var generator = SchemaGenerator(
                table: contract.schemas, direction: .response,
                seed: mock.answering.seed &+ draws &* 0x9E37_79B9_7F4A_7C15, isDynamic: true)
            let made = generator.value(for: schema)
            if let key = Self.key(of: made), !key.isEmpty, shelf.items[key] == nil { return made }
        }
        // A schema with few values (an enum, a pattern of two letters) is used up: a number says so plainly.
        return .string("\(shelf.order.count + 1)")
    }

    /// `404`, as the document answers it (its `404` response, else a problem document).
    mutating func notFound(_ id: String) -> HTTPStubResponse {
        refusal(404, "\(path) has no \(id.isEmpty ? "such resource" : id): none was made, or it was deleted")
    }

    /// A refusal with a status, in the document's own error response for it where it has one.
    mutating func refusal(_ status: Int, _ message: String, rule: String = "state") -> HTTPStubResponse {
        isRefusal = true
        return contract.problemResponse(
            status: status, operation: operation,
            violations: [
                OpenAPIViolation(
                    rule: rule, location: status == 404 ? "path.\(collection.idVariable)" : "body", message: message,
                    documentLocation: contract.operations[operation].location)
            ], allowed: [])
    }

    /// Checks an answer against the document: what it breaks is named in `StuntDouble-Violations`.
    func checked(_ response: HTTPStubResponse) -> HTTPStubResponse {
        guard !isRefusal else { return response }
        var sent = response.headers
        if let type = response.contentType { sent[.contentType] = type.rawValue }
        let violations = contract.violations(
            ofResponse: response.statusCode.rawValue, headers: sent, body: response.body ?? Data(), to: request)
        guard !violations.isEmpty else { return response }
        var headers = response.headers
        headers[OpenAPIContract.violationsHeader] = OpenAPIContract.headerSummary(of: violations)
        response.headers = headers
        return response
    }
}
