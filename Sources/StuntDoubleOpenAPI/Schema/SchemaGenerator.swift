import Foundation
import StuntDouble
import StuntDoubleWireMock

/// Makes a value that a schema admits, from the schema's own `example`, `default`, `enum` and `const` first,
/// then from its type and constraints: deterministic for a seed.
struct SchemaGenerator {
    let table: SchemaTable
    let direction: ValueDirection
    /// Draw enum members and `oneOf` branches at random (Prism's dynamic mode) rather than the first.
    let isDynamic: Bool
    var random: SeededGenerator
    /// Values left to make for one answer: nested arrays of a thousand items each would be a billion.
    private var remaining = 100_000
    /// String bytes left to make for one answer (a thousand strings of `minLength: 1000000` would be a
    /// gigabyte).
    private var remainingBytes = 16 << 20

    init(table: SchemaTable, direction: ValueDirection, seed: UInt64, isDynamic: Bool) {
        self.table = table
        self.direction = direction
        self.isDynamic = isDynamic
        random = SeededGenerator(seed: seed)
    }

    /// A value for the schema at `index`, checked against it: when the first one made breaks it (branches of a
    /// `oneOf` that overlap, parts of an `allOf` that pull apart, items that must differ), other draws are made,
    /// and the first that keeps to the schema is the answer. (Only a schema no value meets, or one beyond the
    /// tries, gets the first value made.)
    mutating func value(for index: Int) -> SchemaValue {
        let first = generate(index, depth: 0)
        // A value cut short by the budgets (a schema asking for a billion items) breaks its schema however it is
        // drawn: no tries, and no check of its megabytes.
        guard !isOverBudget else { return first }
        let validator = SchemaValidator(table: table, direction: direction)
        var broken = Set(validator.validate(first, against: index, at: "").map { "\($0.rule) \($0.location)" })
        guard !broken.isEmpty else { return first }
        for _ in 0..<Self.tries {
            var other = drawing()
            let value = other.generate(index, depth: 0)
            spend(other)
            if isOverBudget { break }
            let found = Set(validator.validate(value, against: index, at: "").map { "\($0.rule) \($0.location)" })
            if found.isEmpty { return value }
            // A draw that breaks the same rules in the same places (a bound no value meets, a pattern the sampler
            // cannot meet) is not mended by drawing again: the tries end there.
            if found == broken { break }
            broken = found
        }
        return first
    }

    /// How many other draws a value that breaks its schema gets.
    static let tries = 24

    /// Whether the answer's budgets of values or bytes are spent.
    private var isOverBudget: Bool { remaining <= 0 || remainingBytes <= 0 }

    /// A generator that draws at random, from what is left of this one's budgets: tries share one answer's
    /// bounds.
    private mutating func drawing() -> SchemaGenerator {
        var other = SchemaGenerator(table: table, direction: direction, seed: random.next(), isDynamic: true)
        other.remaining = remaining
        other.remainingBytes = remainingBytes
        return other
    }

    /// Takes what a generator from ``drawing()`` spent off this one's budgets.
    private mutating func spend(_ other: SchemaGenerator) {
        remaining = other.remaining
        remainingBytes = other.remainingBytes
    }

    private mutating func generate(_ index: Int, depth: Int) -> SchemaValue {
        // A schema that is its own item or reference, all the way down: stop somewhere.
        guard depth < 64, remaining > 0 else { return .null }
        remaining -= 1
        let schema = table[index]
        if !isDynamic, let example = schema.example { return example }
        if let constant = schema.constant { return constant }
        if !isDynamic, let value = schema.defaultValue { return value }
        if let values = schema.enumValues, !values.isEmpty {
            let choices = values.filter { $0 != .null }
            let pool = choices.isEmpty ? values : choices
            return isDynamic ? pool[Int(random.next() % UInt64(pool.count))] : pool[0]
        }
        if let reference = schema.reference, schema.types == nil, schema.allOf.isEmpty, schema.properties.isEmpty {
            return generate(reference, depth: depth + 1)
        }
        if !schema.allOf.isEmpty || (schema.reference != nil) {
            return merged(index, depth: depth)
        }
        if !schema.oneOf.isEmpty || !schema.anyOf.isEmpty {
            let branches = schema.oneOf.isEmpty ? schema.anyOf : schema.oneOf
            var branch = isDynamic ? branches[Int(random.next() % UInt64(branches.count))] : branches[0]
            var value = generate(branch, depth: depth + 1)
            if !schema.oneOf.isEmpty, branches.count > 1 {
                // Exactly one branch may admit it: where another does too, the next branch that alone admits
                // its own value.
                let validator = SchemaValidator(table: table, direction: direction)
                // A branch whose only complaint is a format admits the value too, for this count: JSON Schema's
                // validators take formats as notes unless told otherwise, so a value told apart by a format alone
                // (an int64 beyond 2^63 that a bound asks for) is not told apart to them.
                func admitted(_ value: SchemaValue) -> Int {
                    branches.count { validator.validate(value, against: $0, at: "").allSatisfy { $0.rule == "format" } }
                }
                if admitted(value) != 1 {
                    var found = false
                    for other in branches where other != branch {
                        let candidate = generate(other, depth: depth + 1)
                        if admitted(candidate) == 1 {
                            (branch, value, found) = (other, candidate, true)
                            break
                        }
                    }
                    // Then draws at random from each branch (their lengths and numbers vary).
                    var attempt = 0
                    while !found, !isOverBudget, attempt < 8 * branches.count {
                        let other = branches[attempt % branches.count]
                        attempt += 1
                        var draws = drawing()
                        let candidate = draws.generate(other, depth: depth + 1)
                        spend(draws)
                        if admitted(candidate) == 1 { (branch, value, found) = (other, candidate, true) }
                    }
                    // Then an object with one member more, for a branch that takes members it does not name: the
                    // branches that are closed refuse it (any object `{}` beside a closed object with only
                    // optional members, which openapi-python-client's fixtures write).
                    for other in branches where !found && !isOverBudget {
                        guard case .object(var members) = generate(other, depth: depth + 1),
                            let extra = extraMember(of: other, besides: members, depth: depth + 1)
                        else { continue }
                        members.append(extra)
                        if admitted(.object(members)) == 1 { (branch, value, found) = (other, .object(members), true) }
                    }
                }
            }
            if let (property, mapping) = schema.discriminator, case .object(var members) = value {
                let name =
                    mapping.first { $0.value == branch || $0.value == table[branch].reference }?.key
                    ?? table[branch].name
                    ?? table[branch].reference.flatMap { table[$0].name }
                if let name, value[property] != .string(name) {
                    members.removeAll { $0.0 == property }
                    members.insert((property, .string(name)), at: 0)
                    // The schema's name is the value only when the branch admits it: a branch that fixes its own
                    // (`type: {enum: [custom]}` beside a schema named `EvalCustomDataSourceConfig`, as OpenAI's
                    // document writes) keeps the value made from it.
                    let named = SchemaValue.object(members)
                    if SchemaValidator(table: table, direction: direction).validate(named, against: branch, at: "")
                        .isEmpty
                    {
                        value = named
                    }
                }
            }
            return value
        }
        return typed(schema, depth: depth)
    }

    /// `allOf` (and a `$ref` with siblings): the parts' objects merged, or the first part's value.
    private mutating func merged(_ index: Int, depth: Int) -> SchemaValue {
        let schema = table[index]
        var members: [(String, SchemaValue)] = []
        var other: SchemaValue?
        let parts = [schema.reference].compactMap { $0 } + schema.allOf
        for part in parts {
            switch generate(part, depth: depth + 1) {
            case .object(let partMembers):
                for member in partMembers where !members.contains(where: { $0.0 == member.0 }) {
                    members.append(member)
                }
            case let value:
                other = other ?? value
            }
        }
        // The schema's own members (`typed` reads neither its reference nor its allOf).
        if !schema.properties.isEmpty || schema.types == [.object] {
            if case .object(let ownMembers) = typed(schema, depth: depth) {
                for member in ownMembers where !members.contains(where: { $0.0 == member.0 }) {
                    members.append(member)
                }
            }
        }
        if members.isEmpty, let other { return other }
        // A part that is closed (`additionalProperties: false`) refuses the members the other parts name: they are
        // left out (each is checked against every part, as JSON Schema does).
        if let allowed = allowedNames(of: index, depth: 0) {
            members.removeAll { !allowed.contains($0.0) }
        }
        return .object(members)
    }

    /// The member names an object may have under a schema and all its parts (`$ref`, `allOf`), or nil when any
    /// name may be added: the intersection of what each closed part names.
    private func allowedNames(of index: Int, depth: Int) -> Set<String>? {
        guard depth < 16 else { return nil }
        let schema = table[index]
        var allowed: Set<String>?
        if case .forbidden = schema.additional, schema.patternProperties.isEmpty {
            allowed = Set(schema.properties.map(\.0))
        }
        for part in [schema.reference].compactMap({ $0 }) + schema.allOf {
            guard let names = allowedNames(of: part, depth: depth + 1) else { continue }
            allowed = allowed.map { $0.intersection(names) } ?? names
        }
        return allowed
    }

    /// A member to add to an object made from `index` that the schema admits and does not name, or nil when it
    /// names every member it takes.
    private mutating func extraMember(of index: Int, besides members: [(String, SchemaValue)], depth: Int)
        -> (String, SchemaValue)?
    {
        var schema = table[index]
        for _ in 0..<16 {
            guard let reference = schema.reference, schema.properties.isEmpty, schema.allOf.isEmpty else { break }
            schema = table[reference]
        }
        guard allowedNames(of: index, depth: 0) == nil, schema.patternProperties.isEmpty else { return nil }
        let name = (1...).lazy.map { "extra\($0)" }.first { name in !members.contains { $0.0 == name } } ?? "extra"
        switch schema.additional {
        case .forbidden: return nil
        case .allowed: return (name, .string("value"))
        case .schema(let additional): return (name, generate(additional, depth: depth + 1))
        }
    }

    private mutating func typed(_ schema: Schema, depth: Int) -> SchemaValue {
        let types = schema.types ?? (schema.properties.isEmpty ? [.string] : [.object])
        if types.contains(.object) && (!schema.properties.isEmpty || types == [.object] || types == [.object, .null]) {
            return object(schema, depth: depth)
        }
        if types.contains(.array) { return array(schema, depth: depth) }
        if types.contains(.string) { return .string(string(schema)) }
        if types.contains(.integer) && !types.contains(.number) || schema.types == [.integer] {
            return .number(integer(schema))
        }
        if types.contains(.number) { return .number(number(schema)) }
        if types.contains(.boolean) { return .bool(isDynamic ? random.next() % 2 == 0 : true) }
        if types.contains(.object) { return object(schema, depth: depth) }
        return .null
    }

    private mutating func object(_ schema: Schema, depth: Int) -> SchemaValue {
        var members: [(String, SchemaValue)] = []
        for (name, property) in schema.properties {
            let propertySchema = table[property]
            let referred = propertySchema.reference.map { table[$0] }
            let readOnly = propertySchema.readOnly || referred?.readOnly == true
            let writeOnly = propertySchema.writeOnly || referred?.writeOnly == true
            if direction == .response && writeOnly || direction == .request && readOnly { continue }
            // Deep down (a recursive schema), only what is required: the value ends.
            if depth > 6, !schema.required.contains(name) { continue }
            if depth > 24 { continue }
            members.append((name, generate(property, depth: depth + 1)))
        }
        let minimum = min(schema.minProperties ?? 0, Self.maximumCount)
        if members.count < minimum, case .schema(let additional) = schema.additional {
            for number in members.count..<minimum {
                members.append(("property\(number + 1)", generate(additional, depth: depth + 1)))
            }
        }
        return .object(members)
    }

    private mutating func array(_ schema: Schema, depth: Int) -> SchemaValue {
        var count = max(schema.minItems ?? 1, schema.prefixItems.count)
        if let maximum = schema.maxItems { count = min(count, maximum) }
        if depth > 6 { count = schema.minItems ?? 0 }
        // A schema asking for a million items gets a thousand: an answer, not a hang.
        count = min(max(count, 0), Self.maximumCount, remaining)
        var items: [SchemaValue] = []
        for position in 0..<count {
            if position < schema.prefixItems.count {
                items.append(generate(schema.prefixItems[position], depth: depth + 1))
            } else if let itemSchema = schema.items {
                var item = generate(itemSchema, depth: depth + 1)
                if schema.uniqueItems, items.contains(item) {
                    var generator = drawing()
                    for _ in 0..<8 where items.contains(item) {
                        item = generator.generate(itemSchema, depth: depth + 1)
                    }
                    spend(generator)
                    if items.contains(item) { break }
                }
                items.append(item)
            } else {
                items.append(.string("item\(position + 1)"))
            }
        }
        return .array(items)
    }

    private mutating func string(_ schema: Schema) -> String {
        let draw = random.next()
        if let format = schema.format, let sample = StringFormats.sample(format, random: isDynamic ? draw : 42),
            fits(sample, schema), schema.pattern.map({ $0.matches(sample) }) ?? true
        {
            return sample
        }
        if let pattern = schema.pattern {
            var sampler = PatternSampler(pattern: pattern.source, random: SeededGenerator(seed: draw))
            for _ in 0..<4 {
                if let text = sampler.sample(), pattern.matches(text), fits(text, schema) { return text }
            }
        }
        let minimum = min(max(schema.minLength ?? 0, 0), Self.maximumLength)
        let maximum = max(schema.maxLength ?? max(minimum, 24), 0)
        var text = isDynamic ? Self.words[Int(draw % UInt64(Self.words.count))] : "string"
        // Dynamic strings vary in length too, within the bounds (so that a try can tell overlapping `oneOf`
        // branches apart).
        let length =
            isDynamic
            ? minimum + Int((draw >> 32) % UInt64(max(0, min(maximum, minimum + 24) - minimum) + 1)) : minimum
        if text.count < length {
            text += String(repeating: "x", count: max(0, min(length, remainingBytes) - text.count))
        } else if isDynamic, text.count > length, length >= minimum {
            text = String(text.prefix(max(length, 1)))
        }
        remainingBytes -= text.utf8.count
        if text.count > maximum { text = String(text.prefix(maximum)) }
        return text
    }

    private func fits(_ text: String, _ schema: Schema) -> Bool {
        let length = text.unicodeScalars.count
        return length >= (schema.minLength ?? 0) && length <= (schema.maxLength ?? .max)
    }

    /// The most items or members made for one array or object, and the longest string.
    static let maximumCount = 1_000
    static let maximumLength = 1 << 20

    private static let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"]

    /// The schema's bounds, within a format's `range` where some value is in both (else the bounds, which JSON
    /// Schema asserts, win over the format, which it only notes).
    private mutating func bounds(_ schema: Schema, step: Double, within range: ClosedRange<Double>? = nil)
        -> (Double, Double)
    {
        var low = schema.minimum ?? -.infinity
        var high = schema.maximum ?? .infinity
        if let exclusive = schema.exclusiveMinimum { low = max(low, exclusive + step) }
        if let exclusive = schema.exclusiveMaximum { high = min(high, exclusive - step) }
        if let range, max(low, range.lowerBound) <= min(high, range.upperBound) {
            // Only a bound given beyond the range moves: a missing one is made near the other, below.
            if low.isFinite, low < range.lowerBound { low = range.lowerBound }
            if high.isFinite, high > range.upperBound { high = range.upperBound }
        }
        if low == -.infinity && high == .infinity { return (0, 100) }
        // A hundred beyond the one bound given, or a few doubles where a hundred is less than one's spacing.
        if low == -.infinity { low = min(high, 0) - (high <= 0 ? max(100, 4 * high.ulp) : 0) }
        if high == .infinity { high = low + max(100, 4 * low.ulp) }
        return (low, max(low, high))
    }

    private mutating func integer(_ schema: Schema) -> Double {
        // The format's range bounds it too (a minimum of -8e19 beside int64 is -2^63 in effect).
        let range: ClosedRange<Double>? =
            switch schema.format {
            case "int32": -0x1p31...(0x1p31 - 1)
            case "int64": -0x1p63...0x1p63
            default: nil
            }
        let (low, high) = bounds(schema, step: 1, within: range)
        var first = low.rounded(.up)
        var last = high.rounded(.down)
        // Past 2^53 a bound is the double nearest to it, which may be beyond it (3011186802139305510 is read as
        // ...5472): the next double inward is within it, whatever it was.
        if abs(first) >= 0x1p53, first.nextUp <= last { first = first.nextUp }
        if abs(last) >= 0x1p53, last.nextDown >= first { last = last.nextDown }
        guard first <= last else { return first }
        var value = isDynamic ? first + Double(random.next() % UInt64(min(last - first + 1, 1e12))) : first
        if let divisor = schema.multipleOf, divisor >= 1 {
            value = (value / divisor).rounded(.up) * divisor
            if value > last { value = (first / divisor).rounded(.up) * divisor }
        }
        return value
    }

    private mutating func number(_ schema: Schema) -> Double {
        let (low, high) = bounds(schema, step: 0.001)
        var value = isDynamic ? low + (high - low) * Double(random.next() % 10_000) / 10_000 : low
        if let divisor = schema.multipleOf, divisor > 0 {
            // 0.01 * 2090 is 20.900000000000002: round to the divisor's decimals (0.25's are two).
            let written = "\(divisor)"
            let decimals = written.contains("e") ? 10 : written.split(separator: ".").dropFirst().first?.count ?? 0
            let scale = pow(10, Double(decimals))
            func multiple(_ count: Double) -> Double {
                let value = count * divisor
                return scale <= 1e9 ? (value * scale).rounded() / scale : value
            }
            var count = (value / divisor).rounded(.up)
            value = multiple(count)
            // A draw near the top may have no multiple above it within the bounds: the first from the bottom.
            if value > high {
                count = (low / divisor).rounded(.up)
                value = multiple(count)
            }
            // A multiple whose quotient is whole in floating point too, as validators that divide check it
            // (132020.8 / 0.1 is 1320207.9999999998): the next such one within the bounds, if any.
            for _ in 0..<64 where (value / divisor).rounded() != value / divisor {
                count += 1
                let next = multiple(count)
                if next > high { break }
                value = next
            }
        } else if isDynamic {
            value = (value * 100).rounded() / 100
        }
        return value
    }
}
