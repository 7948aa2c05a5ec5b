import Foundation
import StuntDouble

/// The bodies of stateful answers: a resource as the response's schema takes it, a page of a list, a new
/// resource completed, and the examples a store starts from.
extension StatefulCall {
    /// The operation's answer (its preferred response, or `code`'s) with a kept value as the body when the
    /// response takes JSON (as its schema takes it, else as it is: the check names what it breaks); else as a
    /// stateless mock answers (its status, the document's example), with `headers` added.
    func answer(
        body value: SchemaValue?, code: Int? = nil, headers extra: [(HTTPHeaders.Name, String)] = []
    ) -> HTTPStubResponse {
        let operation = contract.operations[operation]
        let response = code.flatMap { operation.response(for: $0) } ?? operation.preferredResponse
        let status = code ?? response.map { $0.code == "default" ? 200 : $0.statusCode } ?? 200
        var headers: HTTPHeaders = [:]
        for (name, value) in extra { headers[name] = value }
        guard let response, !response.contents.isEmpty, status != 204, status != 304 else {
            return HTTPStubResponse(statusCode: HTTPStatusCode(rawValue: status), headers: headers)
        }
        if let value, let media = OpenAPIContract.negotiate(request.headers[.accept], response.contents),
            MediaTypes.isJSON(media.name) || media.name.contains("*")
        {
            // A resource the schema cannot take (a document whose own examples break it, so that the members
            // made for it do too) is answered all the same: the client sees what it made.
            let body = fitted(value, to: media.schema) ?? withoutWriteOnly(value)
            return HTTPStubResponse(
                statusCode: HTTPStatusCode(rawValue: status),
                contentType: HTTPContentType(rawValue: media.name.contains("*") ? "application/json" : media.name),
                body: Data(body.jsonText.utf8), headers: headers)
        }
        let stateless = contract.answer(request, operation: self.operation, settings: mock.answering, draw: 0)
        var merged = stateless.headers
        for (name, value) in extra { merged[name] = value }
        stateless.headers = merged
        return stateless
    }

    /// A value as a schema takes it: itself (without write-only members), or wrapped in the member of an
    /// object that holds one (`{"data": pet}`); `nil` when neither fits.
    func fitted(_ value: SchemaValue, to schema: Int?) -> SchemaValue? {
        let visible = withoutWriteOnly(value)
        guard let schema else { return visible }
        let validator = SchemaValidator(table: contract.schemas, direction: .response)
        if validator.validate(visible, against: schema, at: "body").isEmpty { return visible }
        for (name, member) in contract.schemas.allProperties(of: schema)
        where validator.validate(visible, against: member, at: "body").isEmpty {
            var generator = SchemaGenerator(
                table: contract.schemas, direction: .response, seed: mock.answering.seed, isDynamic: false)
            let wrapper = generator.value(for: schema).setting(name, to: visible)
            if validator.validate(wrapper, against: schema, at: "body").isEmpty { return wrapper }
        }
        return nil
    }

    /// A resource without the members its schema marks `writeOnly` (a password is taken, never answered).
    func withoutWriteOnly(_ value: SchemaValue) -> SchemaValue {
        guard case .object(let members) = value, let schema = collection.resourceSchema else { return value }
        let hidden = Set(
            contract.schemas.allProperties(of: schema).filter { contract.schemas.isWriteOnly($0.schema) }.map(\.name))
        guard !hidden.isEmpty else { return value }
        return .object(members.filter { !hidden.contains($0.0) })
    }

    /// A new resource with the members its schema requires and the request left out (those the server makes:
    /// `createdAt`, a `status`), made from their schemas.
    func completed(_ resource: SchemaValue) -> SchemaValue {
        guard case .object(let members) = resource, let schema = collection.resourceSchema else { return resource }
        var completed = resource
        for name in contract.schemas.requiredNames(of: schema) where !members.contains(where: { $0.0 == name }) {
            guard let member = contract.schemas.propertySchema(name, of: schema) else { continue }
            // A list the request left out is empty (no tags), where the schema allows that.
            if contract.schemas.types(of: member) == .array, (contract.schemas[member].minItems ?? 0) == 0 {
                completed = completed.setting(name, to: .array([]))
                continue
            }
            var generator = SchemaGenerator(
                table: contract.schemas, direction: .response, seed: mock.answering.seed, isDynamic: false)
            completed = completed.setting(name, to: generator.value(for: member))
        }
        return completed
    }

    // MARK: - Lists

    /// The names of query parameters that paginate (compared in lowercase).
    static let limitNames: Set<String> = [
        "limit", "per_page", "perpage", "page_size", "pagesize", "size", "max_results", "maxresults", "top", "$top",
        "first", "count", "maxitems",
    ]
    static let offsetNames: Set<String> = ["offset", "skip", "$skip", "start", "from", "startindex", "start_index"]
    static let pageNames: Set<String> = ["page", "page_number", "pagenumber", "pageindex", "page_index"]
    /// Members of a list's envelope that count every match (`{"total": 42, "items": [...]}`).
    static let totalNames: Set<String> = [
        "total", "total_count", "totalcount", "totalitems", "total_items", "totalresults", "total_results",
        "totalelements", "total_elements",
    ]
    /// Members that hold a page's items, in the order they are preferred.
    static let itemNames = ["data", "items", "results", "content", "records", "values", "entries", "elements", "list"]

    /// The list's body: the resources that match the request's filters (query parameters named as members of
    /// a resource), the page its pagination parameters ask for, as an array or in the document's envelope.
    func list(_ shelf: StatefulMock.Store.Shelf) -> SchemaValue? {
        let operation = contract.operations[operation]
        var query: [String: [String]] = [:]
        for item in URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            query[item.name, default: []].append(item.value ?? "")
        }
        var items = shelf.order.compactMap { shelf.items[$0] }
        var limit: Int?
        var offset: Int?
        var page: (number: Int, first: Int)?
        for parameter in operation.parameters where parameter.place == .query {
            let name = parameter.name.lowercased()
            let values = query[parameter.name] ?? []
            let given = values.first.flatMap { Int($0) } ?? parameter.schema.flatMap { defaultInteger(of: $0) }
            if Self.limitNames.contains(name) {
                limit = given
            } else if Self.offsetNames.contains(name) {
                offset = given
            } else if Self.pageNames.contains(name) {
                let first = parameter.schema.flatMap { contract.schemas[$0].minimum } == 0 ? 0 : 1
                if let given { page = (given, first) }
            } else if !values.isEmpty, let schema = collection.resourceSchema,
                contract.schemas.propertySchema(parameter.name, of: schema) != nil
            {
                // `status=sold`, `status=a&status=b` or `status=a,b`: any of them.
                let wanted = Set(values.flatMap { $0.split(separator: ",").map(String.init) })
                items = items.filter { resource in
                    guard let member = resource[parameter.name] else { return false }
                    if case .array(let elements) = member {
                        return elements.contains { wanted.contains(Self.text($0)) }
                    }
                    return wanted.contains(Self.text(member))
                }
            }
        }
        let total = items.count
        if offset == nil, let page, let limit { offset = max(0, page.number - page.first) * limit }
        if let offset { items = Array(items.dropFirst(max(0, offset))) }
        if let limit { items = Array(items.prefix(max(0, limit))) }
        let visible = items.map(withoutWriteOnly)
        guard let response = operation.preferredResponse,
            let media = OpenAPIContract.negotiate(request.headers[.accept], response.contents),
            let schema = media.schema, let types = contract.schemas.types(of: schema), !types.contains(.array)
        else { return .array(visible) }
        guard types.contains(.object) else { return nil }
        let members = contract.schemas.allProperties(of: schema)
        let arrays = members.filter { contract.schemas.types(of: $0.schema)?.contains(.array) == true }
        guard
            let holder = Self.itemNames.lazy.compactMap({ name in arrays.first { $0.name.lowercased() == name } })
                .first ?? arrays.first
        else { return nil }
        var generator = SchemaGenerator(
            table: contract.schemas, direction: .response, seed: mock.answering.seed, isDynamic: false)
        var envelope = generator.value(for: schema).setting(holder.name, to: .array(visible))
        for member in members where Self.totalNames.contains(member.name.lowercased()) {
            if contract.schemas.types(of: member.schema)?.isDisjoint(with: [.integer, .number]) == false {
                envelope = envelope.setting(member.name, to: .number(Double(total)))
            }
        }
        return envelope
    }

    private func defaultInteger(of schema: Int) -> Int? {
        if case .number(let value, _)? = contract.schemas[schema].defaultValue, value.isFinite, abs(value) < 1e9 {
            return Int(value)
        }
        return nil
    }

    /// A member's value as a query parameter writes it.
    static func text(_ value: SchemaValue) -> String {
        switch value {
        case .string(let text): text
        case .number(let number, _): JSONText.format(number)
        case .bool(let flag): flag ? "true" : "false"
        default: value.jsonText
        }
    }
}

extension StatefulMock {
    /// The resources the document's examples give a collection: its read's examples, and the items of its
    /// list's, each with an id (the first of an id wins).
    func seedShelf(for collection: ResourceCollection) -> Store.Shelf {
        var shelf = Store.Shelf()
        var found: [SchemaValue] = []
        if let schema = collection.resourceSchema, let example = contract.schemas.example(of: schema) {
            found.append(example)
        }
        for (index, role) in collection.roles.sorted(by: { $0.key < $1.key }) {
            guard let response = contract.operations[index].preferredResponse,
                let media = response.contents.first(where: { MediaTypes.isJSON($0.name) })
            else { continue }
            // A collection starts with resources its answers may show.
            let examples = media.shownExamples()
            switch role {
            case .read:
                found += examples
            case .list:
                for example in examples {
                    if case .array(let items) = example {
                        found += items
                    } else if case .object(let members) = example,
                        case .array(let items)? = members.first(where: {
                            if case .array = $0.1 { true } else { false }
                        })?.1
                    {
                        found += items
                    }
                }
            default:
                continue
            }
        }
        for resource in found {
            guard case .object = resource, let member = collection.idProperty, let id = resource[member],
                let key = StatefulCall.key(of: id), shelf.items[key] == nil
            else { continue }
            shelf.put(resource, key: key, id: id)
        }
        return shelf
    }
}

extension SchemaValue {
    /// The object with a member set (replaced where it is, else added at the end).
    func setting(_ name: String, to value: SchemaValue) -> SchemaValue {
        guard case .object(var members) = self else { return .object([(name, value)]) }
        if let index = members.lastIndex(where: { $0.0 == name }) {
            members[index].1 = value
        } else {
            members.append((name, value))
        }
        return .object(members)
    }
}

extension SchemaTable {
    /// An object schema's properties, through references and `allOf`.
    func allProperties(of index: Int, depth: Int = 0) -> [(name: String, schema: Int)] {
        let schema = schemas[index]
        var found = schema.properties
        guard depth < 32 else { return found }
        for next in [schema.reference].compactMap({ $0 }) + schema.allOf {
            for property in allProperties(of: next, depth: depth + 1)
            where !found.contains(where: { $0.name == property.name }) {
                found.append(property)
            }
        }
        return found
    }

    /// The names an object schema requires, through references and `allOf`.
    func requiredNames(of index: Int, depth: Int = 0) -> [String] {
        let schema = schemas[index]
        var names = schema.required
        guard depth < 32 else { return names }
        for next in [schema.reference].compactMap({ $0 }) + schema.allOf {
            names += requiredNames(of: next, depth: depth + 1).filter { !names.contains($0) }
        }
        return names
    }

    /// Whether a schema (or the one it refers to) is `writeOnly`.
    func isWriteOnly(_ index: Int) -> Bool {
        schemas[index].writeOnly || schemas[index].reference.map { schemas[$0].writeOnly } == true
    }

    /// A schema's example (or the one it refers to).
    func example(of index: Int) -> SchemaValue? {
        schemas[index].example ?? schemas[index].reference.flatMap { schemas[$0].example }
    }
}
