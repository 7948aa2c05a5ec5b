import Foundation
import StuntDouble

/// Reads parameters as OpenAPI's styles serialize them (`simple`, `label`, `matrix`, `form`,
/// `spaceDelimited`, `pipeDelimited`, `deepObject`, each exploded or not) into values their schemas check,
/// strings turned into the numbers and booleans the schema asks for.
struct ParameterDecoder {
    let table: SchemaTable

    /// The shape a parameter's schema asks for.
    private enum Shape {
        case primitive, array, object
    }

    private func shape(of schema: Int?) -> Shape {
        guard let schema, let types = table.types(of: schema) else { return .primitive }
        if types == [.array] || types == [.array, .null] { return .array }
        if types == [.object] || types == [.object, .null] { return .object }
        return .primitive
    }

    /// A path or header parameter's value (`simple`, `label`, `matrix`), already percent-decoded per piece.
    func pathValue(_ raw: Substring, _ parameter: ContractOperation.Parameter) -> SchemaValue {
        var text = raw
        var separator: Character = ","
        switch parameter.serialization.style {
        case "label":
            if text.hasPrefix(".") { text = text.dropFirst() }
            if parameter.serialization.explode { separator = "." }
        case "matrix":
            let prefix = ";\(parameter.name)="
            if parameter.serialization.explode, shape(of: parameter.schema) == .array {
                let values = text.components(separatedBy: ";").filter { !$0.isEmpty }.map {
                    $0.hasPrefix(parameter.name + "=") ? String($0.dropFirst(parameter.name.count + 1)) : $0
                }
                return array(values.map { PercentEncoding.decode($0[...]) }, parameter.schema)
            }
            if parameter.serialization.explode, shape(of: parameter.schema) == .object {
                text = text.hasPrefix(";") ? text.dropFirst() : text
                separator = ";"
            } else if text.hasPrefix(prefix) {
                text = text.dropFirst(prefix.count)
            } else if text.hasPrefix(";") {
                text = text.dropFirst()
            }
        default: break
        }
        let pieces = text.split(separator: separator, omittingEmptySubsequences: false).map {
            PercentEncoding.decode($0)
        }
        switch shape(of: parameter.schema) {
        case .primitive: return scalar(PercentEncoding.decode(text), parameter.schema)
        case .array: return array(pieces, parameter.schema)
        case .object: return object(pieces, exploded: parameter.serialization.explode, parameter.schema)
        }
    }

    /// A query or cookie parameter's value, or `nil` when it is not there.
    /// - Parameters:
    ///   - pairs: The query's (or cookies') pairs.
    ///   - parameter: The parameter.
    ///   - others: The names of the operation's other parameters in the same place, which an exploded object
    ///     does not take as its members.
    /// - Returns: The value, or `nil` when the request does not send the parameter.
    func queryValue(
        _ pairs: [(name: String, value: String)], _ parameter: ContractOperation.Parameter, others: Set<String> = []
    ) -> SchemaValue? {
        let shape = shape(of: parameter.schema)
        if parameter.serialization.style == "deepObject" {
            let prefix = parameter.name + "["
            let members = pairs.filter { $0.name.hasPrefix(prefix) && $0.name.hasSuffix("]") }
            guard !members.isEmpty else { return nil }
            return .object(
                members.map { pair in
                    let key = String(pair.name.dropFirst(prefix.count).dropLast())
                    return (key, scalar(pair.value, parameter.schema.flatMap { table.propertySchema(key, of: $0) }))
                })
        }
        if shape == .object, parameter.serialization.explode, parameter.serialization.style == "form",
            let schema = parameter.schema
        {
            // Each property is a parameter of its own: `?role=admin&firstName=Alex`.
            // Members: the schema's properties, or any other pair when it takes more (additionalProperties).
            let target = table[schema].reference ?? schema
            let takesOthers: Bool =
                if case .forbidden = table[target].additional { false } else { true }
            var members: [(String, SchemaValue)] = []
            for pair in pairs where !others.contains(pair.name) {
                if let property = table.propertySchema(pair.name, of: schema) {
                    members.append((pair.name, scalar(pair.value, property)))
                } else if takesOthers {
                    members.append((pair.name, .string(pair.value)))
                }
            }
            return members.isEmpty ? nil : .object(members)
        }
        let values = pairs.filter { $0.name == parameter.name }.map(\.value)
        guard !values.isEmpty else { return nil }
        if parameter.isJSON, let schema = parameter.schema {
            _ = schema
            return (try? SchemaValue.parse(Data(values[0].utf8))) ?? .string(values[0])
        }
        switch shape {
        case .primitive:
            return scalar(values[0], parameter.schema)
        case .array:
            // Exploded, every style repeats the name (`id=3&id=4`).
            if parameter.serialization.explode { return array(values, parameter.schema) }
            let separator: Character =
                switch parameter.serialization.style {
                case "spaceDelimited": " "
                case "pipeDelimited": "|"
                default: ","
                }
            // `name=` is an empty array (as OpenAPI's table of styles writes one).
            if values[0].isEmpty { return .array([]) }
            return array(
                values[0].split(separator: separator, omittingEmptySubsequences: false).map(String.init),
                parameter.schema)
        case .object:
            return object(
                values[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init), exploded: false,
                parameter.schema)
        }
    }

    /// A form body (`application/x-www-form-urlencoded`) as the object its schema describes: a property whose
    /// schema is an array takes every value of its name (`tag=a&tag=b`, or `tag=a,b`), any other its first.
    func formObject(_ pairs: [(name: String, value: String)], schema: Int) -> SchemaValue {
        // Grouped once, in the order first seen (looking back for each pair was quadratic in a body's pairs).
        var order: [String] = []
        var values: [String: [String]] = [:]
        for pair in pairs {
            if values[pair.name] == nil { order.append(pair.name) }
            values[pair.name, default: []].append(pair.value)
        }
        return .object(
            order.map { name in
                let property = table.propertySchema(name, of: schema)
                let all = values[name] ?? []
                if shape(of: property) == .array {
                    let items = all.count == 1 ? all[0].split(separator: ",").map(String.init) : all
                    return (name, array(items, property))
                }
                return (name, scalar(all.first ?? "", property))
            })
    }

    func scalar(_ text: String, _ schema: Int?) -> SchemaValue {
        guard let schema, let types = table.types(of: schema) else { return .string(text) }
        if types.contains(.integer) || types.contains(.number), let number = Double(text), number.isFinite,
            !text.isEmpty, text.first != "+", !text.hasPrefix(".")
        {
            return .number(number, text: text)
        }
        if types.contains(.boolean), text == "true" || text == "false" { return .bool(text == "true") }
        if types.contains(.null), text.isEmpty || text == "null", !types.contains(.string) { return .null }
        if types.isSubset(of: [.array, .object]) || types.isSubset(of: [.array, .object, .null]) {
            if let parsed = try? SchemaValue.parse(Data(text.utf8)) { return parsed }
        }
        return .string(text)
    }

    private func array(_ values: [String], _ schema: Int?) -> SchemaValue {
        let itemSchema = schema.flatMap { table.itemSchema(of: $0) }
        return .array(values.map { scalar($0, itemSchema) })
    }

    private func object(_ pieces: [String], exploded: Bool, _ schema: Int?) -> SchemaValue {
        var members: [(String, SchemaValue)] = []
        if exploded {
            for piece in pieces {
                let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = String(parts[0])
                members.append(
                    (
                        key,
                        scalar(
                            parts.count > 1 ? String(parts[1]) : "",
                            schema.flatMap { table.propertySchema(key, of: $0) })
                    ))
            }
        } else {
            var index = 0
            while index + 1 < pieces.count {
                let key = pieces[index]
                members.append((key, scalar(pieces[index + 1], schema.flatMap { table.propertySchema(key, of: $0) })))
                index += 2
            }
        }
        return .object(members)
    }
}
