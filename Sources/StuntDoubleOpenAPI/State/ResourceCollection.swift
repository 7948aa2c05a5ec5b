import Foundation
import StuntDouble

/// A collection of resources the stateful mock keeps, found from the document's paths: `/pets` and
/// `/pets/{petId}`, with the operations on each.
struct ResourceCollection: Sendable {
    /// What an operation does to its collection.
    enum Role: Sendable, Hashable {
        /// `GET /pets` (or an operation marked `x-stuntdouble-collection: /pets`).
        case list
        /// `POST /pets`.
        case create
        /// `PUT /pets` with the resource's id in the body (as Swagger's petstore updates a pet).
        case replaceNamedInBody
        /// `GET /pets/{petId}`.
        case read
        /// `PUT /pets/{petId}`.
        case replace
        /// `PATCH /pets/{petId}`.
        case update
        /// `DELETE /pets/{petId}`.
        case remove
    }

    /// `/owners/{ownerId}/pets`.
    let path: String
    /// `/owners/{ownerId}/pets/{petId}`.
    let itemPath: String
    /// `petId`: the item path's last variable.
    let idVariable: String
    /// The resource's member holding its id (`id`), or `nil` when resources have none of their own.
    let idProperty: String?
    /// The schema of a resource, when the document gives one.
    let resourceSchema: Int?
    /// The schema new ids are made to: the id member's, else the path parameter's.
    let idSchema: Int?
    /// The operations on the collection and its items, by operation index.
    var roles: [Int: Role] = [:]

    /// The collections of a contract: every path whose last segment is one variable (`/pets/{petId}`) and has
    /// an operation, with the path before it as its collection, unless `x-stuntdouble-collection` says otherwise
    /// (`false`: no collection; a path: that collection). A `GET` elsewhere marked with a collection's path
    /// lists it too.
    static func discover(in contract: OpenAPIContract) -> [ResourceCollection] {
        var byPath: [String: [HTTPMethod: Int]] = [:]
        var order: [String] = []
        for (index, operation) in contract.operations.enumerated() {
            if byPath[operation.path] == nil { order.append(operation.path) }
            byPath[operation.path, default: [:]][operation.method] = index
        }
        var collections: [ResourceCollection] = []
        for itemPath in order {
            guard let methods = byPath[itemPath], let variable = lastVariable(of: itemPath) else { continue }
            let itemRoles: [(HTTPMethod, Role)] = [
                (.get, .read), (.put, .replace), (.patch, .update), (.delete, .remove),
            ]
            let present = itemRoles.compactMap { method, role in methods[method].map { ($0, role) } }
            guard !present.isEmpty else { continue }
            let hint = present.lazy.compactMap { contract.operations[$0.0].extensions["x-stuntdouble-collection"] }
                .first
            if case .bool(false)? = hint { continue }
            let path: String
            if case .string(let named)? = hint {
                path = named
            } else {
                path = String(itemPath.dropLast(variable.count + 3))
                guard !path.isEmpty else { continue }
            }
            let parent = byPath[path] ?? [:]
            let operations = contract.operations
            // The resource as the document answers it: a read's answer, else what creating one answers or takes.
            let answered =
                methods[.get].flatMap { jsonSchema(ofAnswerTo: operations[$0]) }
                ?? parent[.post].flatMap { jsonSchema(ofAnswerTo: operations[$0]) }
                ?? parent[.post].flatMap { jsonSchema(ofBodyOf: operations[$0]) }
                ?? methods[.put].flatMap { jsonSchema(ofBodyOf: operations[$0]) }
            let resourceSchema = answered.map { unwrapped($0, idNames: [variable, "id"], in: contract.schemas) }
            let named = present.lazy.compactMap { contract.operations[$0.0].extensions["x-stuntdouble-id"] }.first
            let idProperty: String?
            if case .string(let name)? = named {
                idProperty = name
            } else if let resourceSchema {
                idProperty = [variable, "id"].first { contract.schemas.propertySchema($0, of: resourceSchema) != nil }
            } else {
                idProperty = nil
            }
            let parameterSchema = present.lazy.compactMap { index, _ in
                operations[index].parameters.first { $0.place == .path && $0.name == variable }?.schema
            }.first
            var idSchema = parameterSchema
            if let idProperty, let resourceSchema,
                let member = contract.schemas.propertySchema(idProperty, of: resourceSchema)
            {
                idSchema = member
            }
            var collection = ResourceCollection(
                path: path, itemPath: itemPath, idVariable: variable, idProperty: idProperty,
                resourceSchema: resourceSchema, idSchema: idSchema)
            for (index, role) in present { collection.roles[index] = role }
            if let list = parent[.get] { collection.roles[list] = .list }
            if let create = parent[.post] { collection.roles[create] = .create }
            if let replace = parent[.put], idProperty != nil { collection.roles[replace] = .replaceNamedInBody }
            collections.append(collection)
        }
        // Other operations marked as listing a collection (`GET /pet/findByStatus`).
        for (index, operation) in contract.operations.enumerated() where operation.method == .get {
            guard case .string(let path)? = operation.extensions["x-stuntdouble-collection"],
                let found = collections.firstIndex(where: { $0.path == path }),
                collections[found].roles[index] == nil
            else { continue }
            collections[found].roles[index] = .list
        }
        return collections
    }

    /// The resource in an answer's schema: the schema itself, or, when it has no id member but one of its
    /// members does (`{"visit": {"visitId": ...}}`), that member's.
    private static func unwrapped(_ schema: Int, idNames: [String], in table: SchemaTable) -> Int {
        guard !idNames.contains(where: { table.propertySchema($0, of: schema) != nil }) else { return schema }
        for (_, member) in table.allProperties(of: schema)
        where table.types(of: member)?.contains(.object) == true
            && idNames.contains(where: { table.propertySchema($0, of: member) != nil })
        {
            return member
        }
        return schema
    }

    /// The variable a path ends with, when its last segment is that variable alone (`/pets/{petId}`).
    private static func lastVariable(of path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let segment = path[path.index(after: slash)...]
        guard segment.count > 2, segment.first == "{", segment.last == "}" else { return nil }
        let name = segment.dropFirst().dropLast()
        guard !name.contains("{"), !name.contains("}") else { return nil }
        return String(name)
    }

    /// The JSON schema of an operation's preferred answer.
    static func jsonSchema(ofAnswerTo operation: ContractOperation) -> Int? {
        guard let response = operation.preferredResponse, (200..<300).contains(response.statusCode) else {
            return nil
        }
        return response.contents.first { MediaTypes.isJSON($0.name) }?.schema
    }

    /// The JSON schema of an operation's request body.
    static func jsonSchema(ofBodyOf operation: ContractOperation) -> Int? {
        operation.body?.contents.first { MediaTypes.isJSON($0.name) }?.schema
    }

    /// The collection's path with a request's path variables in place (`/owners/7/pets`): where its resources
    /// are kept. A variable the request does not give stays as written.
    func concretePath(with variables: [(String, Substring)]) -> String {
        var path = self.path
        for (name, value) in variables {
            path = path.replacingOccurrences(of: "{\(name)}", with: String(value))
        }
        return path
    }

    /// The item path of a resource in a concrete collection path.
    func itemLocation(in concretePath: String, id: String) -> String {
        concretePath + "/" + (id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? id)
    }

    /// `/pets (id: id)`, for the command's summary.
    var summary: String {
        "\(path) and \(itemPath)" + (idProperty.map { " (id: \($0))" } ?? "")
    }
}
