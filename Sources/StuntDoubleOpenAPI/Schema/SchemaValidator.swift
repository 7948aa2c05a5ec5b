import Foundation

/// Whether a value is read from a request or a response: `readOnly` properties may not be sent, `writeOnly`
/// ones may not come back.
enum ValueDirection: Sendable {
    case request
    case response
    /// A value checked on its own (a schema's `example` or `default`): read-only and write-only members are
    /// both allowed, and neither is required.
    case either
}

/// Checks values against compiled schemas.
struct SchemaValidator {
    let table: SchemaTable
    let direction: ValueDirection
    /// At most this many violations are reported for one value.
    var limit = 20
    /// The schema steps one value may take, shared by the tries of `oneOf` and `anyOf` (a recursive `oneOf`
    /// of `allOf`s tries both branches at every level: without a bound, 2^30 steps for a value 30 deep).
    private let steps = StepBudget(limit: SchemaValidator.stepLimit)
    /// The schema steps one value may take.
    static let stepLimit = 200_000

    /// The steps this validator (and its copies) have taken so far: what bounds its work, for tests.
    var stepsTaken: Int { Self.stepLimit - max(steps.remaining, 0) }

    /// Steps left, by reference: every copy of a validator (and every try) spends the same ones; and what each
    /// try found, by schema and place in the value, so that no part of a value is tried against a schema twice
    /// (a recursive `oneOf` of `allOf`s would otherwise try both branches at every level: 2^40 tries for a value
    /// 40 deep).
    private final class StepBudget {
        var remaining: Int
        var exhausted = false
        var tried: [String: Bool] = [:]

        init(limit: Int) {
            remaining = limit
        }
    }

    init(table: SchemaTable, direction: ValueDirection) {
        self.table = table
        self.direction = direction
    }

    func validate(_ value: SchemaValue, against index: Int, at location: String) -> [OpenAPIViolation] {
        var found: [OpenAPIViolation] = []
        check(value, index, location, &found, depth: 0)
        if steps.exhausted, found.isEmpty {
            found.append(
                OpenAPIViolation(
                    rule: "complexity", location: location,
                    message: "checking took more than 200,000 steps (a recursive oneOf or anyOf?); the value was "
                        + "not checked whole",
                    documentLocation: table[index].location))
        }
        return found
    }

    /// Whether a value passes a schema, without collecting why not.
    /// - Parameters:
    ///   - value: The value.
    ///   - index: The schema.
    ///   - location: Where the value is in the value first given (so that each part of it is tried against each
    ///     schema once).
    ///   - depth: How deep the check is.
    /// - Returns: Whether the value passes.
    func admits(_ value: SchemaValue, _ index: Int, at location: String, depth: Int) -> Bool {
        let key = "\(index) \(location)"
        if let known = steps.tried[key] { return known }
        var limited = self
        limited.limit = 1
        var found: [OpenAPIViolation] = []
        limited.check(value, index, location, &found, depth: depth)
        steps.tried[key] = found.isEmpty
        return found.isEmpty
    }

    private func report(
        _ found: inout [OpenAPIViolation], _ rule: String, _ location: String, _ message: String,
        _ schema: Schema
    ) {
        guard found.count < limit else { return }
        found.append(
            OpenAPIViolation(rule: rule, location: location, message: message, documentLocation: schema.location))
    }

    private func check(
        _ value: SchemaValue, _ index: Int, _ location: String, _ found: inout [OpenAPIViolation], depth: Int
    ) {
        guard found.count < limit, !steps.exhausted else { return }
        steps.remaining -= 1
        if steps.remaining < 0 {
            steps.exhausted = true
            return
        }
        guard depth < 128 else {
            report(&found, "depth", location, "nested deeper than 128 schemas; not checked further", table[index])
            return
        }
        let schema = table[index]
        if schema.isNullable, case .null = value { return }
        if let reference = schema.reference {
            check(value, reference, location, &found, depth: depth + 1)
        }
        if let types = schema.types, !types.admits(value) {
            report(
                &found, "type", location,
                "expected \(types.names.joined(separator: " or ")), found "
                    + (value == .null ? "null" : "\(value.typeName) \(value.excerpt)"), schema)
            return
        }
        if let values = schema.enumValues, !values.contains(value) {
            let allowed = values.prefix(8).map(\.jsonText).joined(separator: ", ")
            report(
                &found, "enum", location,
                "\(value.excerpt) is not one of \(allowed)\(values.count > 8 ? ", ..." : "")", schema)
        }
        if let constant = schema.constant, constant != value {
            report(&found, "const", location, "expected \(constant.excerpt), found \(value.excerpt)", schema)
        }
        switch value {
        case .number(let number, let text): checkNumber(number, text: text, schema, location, &found)
        case .string(let string): checkString(string, schema, location, &found)
        case .array(let items): checkArray(items, schema, location, &found, depth: depth)
        case .object(let members): checkObject(members, schema, location, &found, depth: depth)
        case .null, .bool: break
        }
        for part in schema.allOf {
            check(value, part, location, &found, depth: depth + 1)
        }
        if !schema.anyOf.isEmpty, !schema.anyOf.contains(where: { admits(value, $0, at: location, depth: depth + 1) }) {
            report(
                &found, "anyOf", location, "\(value.excerpt) matches none of the \(schema.anyOf.count) schemas", schema)
        }
        if !schema.oneOf.isEmpty {
            checkOneOf(value, schema, location, &found, depth: depth)
        }
        if let not = schema.not, admits(value, not, at: location, depth: depth + 1) {
            report(&found, "not", location, "\(value.excerpt) matches a schema it must not", schema)
        }
    }

    private func checkNumber(
        _ number: Double, text: String, _ schema: Schema, _ location: String, _ found: inout [OpenAPIViolation]
    ) {
        if let minimum = schema.minimum, number < minimum {
            report(
                &found, "minimum", location, "\(JSONText.format(number)) is less than \(JSONText.format(minimum))",
                schema)
        }
        if let maximum = schema.maximum, number > maximum {
            report(
                &found, "maximum", location, "\(JSONText.format(number)) is more than \(JSONText.format(maximum))",
                schema)
        }
        if let minimum = schema.exclusiveMinimum, number <= minimum {
            report(
                &found, "exclusiveMinimum", location,
                "\(JSONText.format(number)) is not more than \(JSONText.format(minimum))", schema)
        }
        if let maximum = schema.exclusiveMaximum, number >= maximum {
            report(
                &found, "exclusiveMaximum", location,
                "\(JSONText.format(number)) is not less than \(JSONText.format(maximum))", schema)
        }
        if let divisor = schema.multipleOf {
            let quotient = number / divisor
            if abs(quotient - quotient.rounded()) > 1e-9 * max(1, abs(quotient)) {
                report(
                    &found, "multipleOf", location,
                    "\(JSONText.format(number)) is not a multiple of \(JSONText.format(divisor))", schema)
            }
        }
        if let format = schema.format, schema.types?.contains(.number) != true {
            let fits: Bool =
                switch format {
                case "int32": (-2_147_483_648...2_147_483_647).contains(number)
                // A Double cannot tell 2^63 - 1 from 2^63: the text can.
                case "int64": Int64(text) != nil || (number.rounded() != number || abs(number) < 0x1p62)
                default: true
                }
            if !fits {
                report(&found, "format", location, "\(JSONText.format(number)) does not fit \(format)", schema)
            }
        }
    }

    private func checkString(_ string: String, _ schema: Schema, _ location: String, _ found: inout [OpenAPIViolation])
    {
        if schema.minLength != nil || schema.maxLength != nil {
            let length = string.unicodeScalars.count
            if let minimum = schema.minLength, length < minimum {
                report(&found, "minLength", location, "\(length) characters, fewer than \(minimum)", schema)
            }
            if let maximum = schema.maxLength, length > maximum {
                report(&found, "maxLength", location, "\(length) characters, more than \(maximum)", schema)
            }
        }
        if let pattern = schema.pattern, !pattern.matches(string) {
            report(
                &found, "pattern", location,
                "\(SchemaValue.string(string).excerpt) does not match \(pattern.source)", schema)
        }
        if let format = schema.format, !StringFormats.conforms(string, to: format) {
            report(&found, "format", location, "\(SchemaValue.string(string).excerpt) is not a valid \(format)", schema)
        }
    }

    private func checkArray(
        _ items: [SchemaValue], _ schema: Schema, _ location: String, _ found: inout [OpenAPIViolation], depth: Int
    ) {
        if let minimum = schema.minItems, items.count < minimum {
            report(&found, "minItems", location, "\(items.count) items, fewer than \(minimum)", schema)
        }
        if let maximum = schema.maxItems, items.count > maximum {
            report(&found, "maxItems", location, "\(items.count) items, more than \(maximum)", schema)
        }
        if schema.uniqueItems {
            // By canonical text (members sorted, numbers by value): linear, where comparing pairs was quadratic.
            var seen = Set<String>()
            for (index, item) in items.enumerated() where !seen.insert(item.canonicalText).inserted {
                report(&found, "uniqueItems", "\(location)[\(index)]", "\(item.excerpt) appears twice", schema)
                break
            }
        }
        for (index, item) in items.enumerated() {
            guard found.count < limit else { return }
            if index < schema.prefixItems.count {
                check(item, schema.prefixItems[index], "\(location)[\(index)]", &found, depth: depth + 1)
            } else if let itemSchema = schema.items {
                check(item, itemSchema, "\(location)[\(index)]", &found, depth: depth + 1)
            }
        }
    }

    private func checkObject(
        _ members: [(String, SchemaValue)], _ schema: Schema, _ location: String, _ found: inout [OpenAPIViolation],
        depth: Int
    ) {
        for name in schema.required where !members.contains(where: { $0.0 == name }) {
            // A readOnly property is not sent in requests, a writeOnly one not in responses (OpenAPI 3.0).
            if let property = schema.property(name), skips(property) { continue }
            report(&found, "required", Self.member(location, name), "missing", schema)
        }
        if let minimum = schema.minProperties, members.count < minimum {
            report(&found, "minProperties", location, "\(members.count) properties, fewer than \(minimum)", schema)
        }
        if let maximum = schema.maxProperties, members.count > maximum {
            report(&found, "maxProperties", location, "\(members.count) properties, more than \(maximum)", schema)
        }
        for (name, value) in members {
            guard found.count < limit else { return }
            let memberLocation = Self.member(location, name)
            if let property = schema.property(name) {
                let propertySchema = table[property]
                if direction == .request, isReadOnly(property) {
                    report(
                        &found, "readOnly", memberLocation, "is read-only: a request may not send it", propertySchema)
                } else if direction == .response, isWriteOnly(property) {
                    report(
                        &found, "writeOnly", memberLocation, "is write-only: a response may not hold it", propertySchema
                    )
                }
                check(value, property, memberLocation, &found, depth: depth + 1)
            } else if !schema.patternProperties.isEmpty,
                case let matching = schema.patternProperties.filter({ $0.pattern.matches(name) }), !matching.isEmpty
            {
                for pattern in matching {
                    check(value, pattern.schema, memberLocation, &found, depth: depth + 1)
                }
            } else {
                switch schema.additional {
                case .allowed: break
                case .forbidden:
                    report(
                        &found, "additionalProperties", memberLocation, "is not a property the schema allows", schema)
                case .schema(let additional): check(value, additional, memberLocation, &found, depth: depth + 1)
                }
            }
        }
    }

    private func checkOneOf(
        _ value: SchemaValue, _ schema: Schema, _ location: String, _ found: inout [OpenAPIViolation], depth: Int
    ) {
        // A discriminator names the branch: report that branch's own violations, which say more.
        if let (property, mapping) = schema.discriminator, case .string(let name)? = value[property] {
            let branch =
                mapping[name]
                ?? schema.oneOf.first {
                    table[$0].name == name || table[$0].reference.map { table[$0].name == name } == true
                }
            if let branch {
                check(value, branch, location, &found, depth: depth + 1)
                return
            }
            // Without a mapping, a value that names no schema may still be the one a branch fixes for itself
            // (`enum: [custom]`, as OpenAI's document writes): the branches decide, as JSON Schema's `oneOf` does.
            if !mapping.isEmpty {
                report(
                    &found, "discriminator", Self.member(location, property),
                    "\"\(name)\" names none of the schemas (\(mapping.keys.sorted().joined(separator: ", ")))", schema)
                return
            }
        }
        let matching = schema.oneOf.filter { admits(value, $0, at: location, depth: depth + 1) }.count
        if matching == 0 {
            // One branch only: its violations say more than "matches none".
            if schema.oneOf.count == 1 {
                check(value, schema.oneOf[0], location, &found, depth: depth + 1)
            } else {
                report(
                    &found, "oneOf", location, "\(value.excerpt) matches none of the \(schema.oneOf.count) schemas",
                    schema)
            }
        } else if matching > 1 {
            report(
                &found, "oneOf", location, "\(value.excerpt) matches \(matching) of the schemas; exactly one must",
                schema)
        }
    }

    private func skips(_ property: Int) -> Bool {
        switch direction {
        case .request: isReadOnly(property)
        case .response: isWriteOnly(property)
        case .either: isReadOnly(property) || isWriteOnly(property)
        }
    }

    private func isReadOnly(_ index: Int) -> Bool {
        table[index].readOnly || table[index].reference.map { table[$0].readOnly } == true
    }

    private func isWriteOnly(_ index: Int) -> Bool {
        table[index].writeOnly || table[index].reference.map { table[$0].writeOnly } == true
    }

    /// `body.name`, or `body["a b"]` for a name that is not an identifier.
    static func member(_ location: String, _ name: String) -> String {
        let plain =
            !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "$")
            }
        if plain { return location.isEmpty ? name : "\(location).\(name)" }
        var quoted = ""
        JSONText.appendString(name, to: &quoted)
        return "\(location)[\(quoted)]"
    }
}
