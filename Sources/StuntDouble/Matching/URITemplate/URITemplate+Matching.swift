extension URITemplate {
    /// Matches a whole string against the template.
    ///
    /// - Parameter string: A URI (or any string) to match, percent-encoded as in a URL.
    /// - Returns: The variables that expand back into `string`, or `nil` when the string does not match.
    public func match(_ string: String) -> [String: Value]? {
        var matcher = PartMatcher(CompiledParts(parts), lenientQuery: nil)
        return Array(string.utf8).withUnsafeBufferPointer { matcher.match($0) }
    }
}

/// Template parts with their literals as bytes, prepared once per template: all literals in one buffer (one
/// cache line to fetch rather than one per literal, when thousands of templates are stubbed).
struct CompiledParts: Sendable {
    let parts: [URITemplate.Part]
    /// Every literal's bytes, one after another.
    let bytes: [UInt8]
    /// For each part, its literal's range in `bytes`, or `nil` for an expression.
    let literals: [Range<Int>?]
    /// For each part that is a plain `{name}` (one variable, no operator or modifier), that variable.
    let plainVariables: [URITemplate.Variable?]
    /// Whether no variable appears twice: then whether the parts from one on match the input from a position
    /// on does not depend on what earlier parts bound, and a failure there can be remembered.
    let variablesAreDistinct: Bool

    init(_ parts: [URITemplate.Part]) {
        var bytes: [UInt8] = []
        var literals: [Range<Int>?] = []
        for part in parts {
            if case .literal(let text) = part {
                let start = bytes.count
                bytes.append(contentsOf: text.utf8)
                literals.append(start..<bytes.count)
            } else {
                literals.append(nil)
            }
        }
        self.parts = parts
        self.bytes = bytes
        self.literals = literals
        self.plainVariables = parts.map { part in
            guard case .expression(let expression) = part, expression.op == .simple,
                expression.variables.count == 1, let variable = expression.variables.first, !variable.explode,
                variable.prefix == nil
            else { return nil }
            return variable
        }
        var names = Set<String>()
        var distinct = true
        for case .expression(let expression) in parts {
            for variable in expression.variables where !names.insert(variable.name).inserted {
                distinct = false
            }
        }
        variablesAreDistinct = distinct
    }
}

/// Backtracking matcher over template parts.
///
/// Each expression tries its longest possible span first, then shorter ones, only where the following
/// literal can start. Two things bound pathological templates (many adjacent `{+x}` expressions against a
/// long string): when no variable repeats, a position where the remaining parts failed is never tried again
/// (so the work grows with the parts times the positions times the spans, not exponentially), and a work
/// budget (bytes of candidate spans examined) ends the search with "no match" beyond it.
struct PartMatcher {
    private let parts: [URITemplate.Part]
    private let bytes: [UInt8]
    private let literals: [Range<Int>?]
    private let plainVariables: [URITemplate.Variable?]
    private let memoizes: Bool
    /// Part index and input position pairs where the remaining parts are known not to match.
    private var failed: Set<Int> = []

    /// Query expressions matched by name against the query string, in any order (see
    /// `URITemplateRoute`), or `nil` when the template has none.
    private let lenientQuery: [URITemplate.Expression]?
    /// The most work a match may do: about a millisecond, far beyond any real URL's needs.
    static let workBudget = 400_000
    /// The bytes of candidate spans examined so far: the work a match did.
    private(set) var work = 0

    init(_ compiled: CompiledParts, lenientQuery: [URITemplate.Expression]?) {
        self.parts = compiled.parts
        self.bytes = compiled.bytes
        self.literals = compiled.literals
        self.plainVariables = compiled.plainVariables
        self.memoizes = compiled.variablesAreDistinct
        self.lenientQuery = lenientQuery
    }

    /// Matches `input` against the parts, and `query` (when the matcher has lenient query expressions).
    mutating func match(_ input: UnsafeBufferPointer<UInt8>, query: Substring? = nil) -> [String: URITemplate.Value]? {
        var bound = Bound()
        guard step(0, 0, input, &bound) else { return nil }
        if let lenientQuery {
            let combined = lenientQuery.flatMap(\.variables)
            let items = (query ?? "").splitting(at: UInt8(ascii: "&")).filter { !$0.isEmpty }
            guard let bindings = Self.bindNamed(combined, items, lenient: true),
                Self.merge(bindings, into: &bound.variables, prefixed: &bound.prefixed)
            else { return nil }
        }
        return bound.variables
    }

    /// The variables found so far, and those bound only through a prefix modifier.
    private struct Bound {
        var variables: [String: URITemplate.Value] = [:]
        var prefixed: [String: Int] = [:]
    }

    private mutating func step(
        _ index: Int, _ position: Int, _ input: UnsafeBufferPointer<UInt8>, _ bound: inout Bound
    ) -> Bool {
        guard index < parts.count else { return position == input.count }
        guard work <= Self.workBudget else { return false }
        if memoizes, !failed.isEmpty, failed.contains(index &* (input.count &+ 1) &+ position) { return false }
        if expressionStep(index, position, input, &bound) { return true }
        if memoizes { failed.insert(index &* (input.count &+ 1) &+ position) }
        return false
    }

    private mutating func expressionStep(
        _ index: Int, _ position: Int, _ input: UnsafeBufferPointer<UInt8>, _ bound: inout Bound
    ) -> Bool {
        if let literal = literals[index] {
            guard input.count - position >= literal.count,
                input[position..<(position + literal.count)].elementsEqual(bytes[literal])
            else { return false }
            return step(index + 1, position + literal.count, input, &bound)
        }
        guard case .expression(let expression) = parts[index] else { return false }
        var end = position
        while end < input.count, !Self.stops(expression.op, input[end]) {
            end += 1
        }
        let next: UInt8?? = index + 1 < parts.count ? literals[index + 1].map { bytes[$0.lowerBound] } : .some(nil)
        var candidate = end
        while candidate >= position {
            defer { candidate -= 1 }
            switch next {
            case .some(.none):
                // The expression is last: it must reach the end of the input.
                if candidate != input.count { continue }
            case .some(.some(let first)):
                if candidate == input.count || input[candidate] != first { continue }
            case .none:
                break
            }
            work += 1 + candidate - position
            var trial = bound
            if let variable = plainVariables[index],
                !input[position..<candidate].contains(UInt8(ascii: ","))
            {
                // A plain `{name}`: the span is the value. No bindings to build and no items to split.
                guard candidate > position else { continue }
                let value = URITemplate.Value.string(PercentEncoding.decode(input[position..<candidate]))
                guard Self.merge(CollectionOfOne((variable, value)), into: &trial.variables, prefixed: &trial.prefixed)
                else { continue }
            } else {
                let span = Substring(decoding: input[position..<candidate], as: UTF8.self)
                guard let bindings = Self.bind(expression, span),
                    Self.merge(bindings, into: &trial.variables, prefixed: &trial.prefixed)
                else { continue }
            }
            guard step(index + 1, candidate, input, &trial) else { continue }
            bound = trial
            return true
        }
        return false
    }

    /// Bytes an expression's span cannot contain.
    private static func stops(_ op: URITemplate.Operator, _ byte: UInt8) -> Bool {
        switch op {
        case .simple, .label, .pathParameter:
            byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
        case .pathSegment:
            byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
        case .reserved, .query, .queryContinuation:
            byte == UInt8(ascii: "#")
        case .fragment:
            false
        }
    }

    typealias Binding = (variable: URITemplate.Variable, value: URITemplate.Value)

    static func bind(_ expression: URITemplate.Expression, _ span: Substring) -> [Binding]? {
        let op = expression.op
        if span.isEmpty {
            // Operator expressions vanish when their variables are undefined; plain ones must match something.
            return op == .simple || op == .reserved ? nil : []
        }
        var rest = span
        if !op.first.isEmpty {
            guard rest.hasPrefix(op.first) else { return nil }
            rest = rest.dropFirst(op.first.count)
        }
        let items = rest.splitting(at: op.separator.utf8.first ?? UInt8(ascii: ","))
        if op.isNamed {
            return bindNamed(expression.variables, items, lenient: false)
        }
        return bindPositional(expression.variables, items, op)
    }

    private static func bindPositional(
        _ variables: [URITemplate.Variable], _ items: [Substring], _ op: URITemplate.Operator
    ) -> [Binding]? {
        var bindings: [Binding] = []
        if let explodeIndex = variables.firstIndex(where: \.explode) {
            let after = variables.count - explodeIndex - 1
            var cursor = 0
            for variable in variables[..<explodeIndex] where cursor < items.count {
                guard let value = single(items[cursor], op) else { return nil }
                bindings.append((variable, value))
                cursor += 1
            }
            let taken = items[cursor..<max(cursor, items.count - after)]
            if !taken.isEmpty {
                bindings.append((variables[explodeIndex], exploded(Array(taken))))
            }
            cursor += taken.count
            for variable in variables[(explodeIndex + 1)...] where cursor < items.count {
                guard let value = single(items[cursor], op) else { return nil }
                bindings.append((variable, value))
                cursor += 1
            }
            return check(bindings)
        }
        for (offset, variable) in variables.enumerated() where offset < items.count {
            let isLast = offset == variables.count - 1
            if isLast, items.count > variables.count {
                // The last variable takes the remaining items.
                let remaining = items[offset...]
                switch op {
                case .simple, .reserved, .fragment:
                    bindings.append((variable, .list(remaining.map { PercentEncoding.decode($0) })))
                case .label:
                    guard let value = single(Substring(remaining.joined(separator: ".")), op) else { return nil }
                    bindings.append((variable, value))
                default:
                    return nil
                }
            } else {
                guard let value = single(items[offset], op) else { return nil }
                bindings.append((variable, value))
            }
        }
        return check(bindings)
    }

    /// The value of one unexploded item: a list when it holds commas the operator does not use as separator.
    private static func single(_ item: Substring, _ op: URITemplate.Operator) -> URITemplate.Value? {
        if op.separator != ",", item.contains(",") {
            return .list(item.splitting(at: UInt8(ascii: ",")).map { PercentEncoding.decode($0) })
        }
        return .string(PercentEncoding.decode(item))
    }

    private static func exploded(_ items: [Substring]) -> URITemplate.Value {
        let pairs = items.compactMap { item -> URITemplate.KeyValue? in
            guard let equals = item.firstIndex(of: "=") else { return nil }
            return URITemplate.KeyValue(
                key: PercentEncoding.decode(item[..<equals]),
                value: PercentEncoding.decode(item[item.index(after: equals)...])
            )
        }
        return pairs.count == items.count ? .associative(pairs) : .list(items.map { PercentEncoding.decode($0) })
    }

    static func bindNamed(_ variables: [URITemplate.Variable], _ items: [Substring], lenient: Bool) -> [Binding]? {
        var bindings: [Binding] = []
        var exploded: [String: [String]] = [:]
        var pairs: [URITemplate.KeyValue] = []
        let explodeVariable = variables.first(where: \.explode)
        for item in items {
            let equals = item.firstIndex(of: "=")
            let name = PercentEncoding.decode(equals.map { item[..<$0] } ?? item)
            let rawValue = equals.map { item[item.index(after: $0)...] } ?? ""
            if let variable = variables.first(where: { $0.name == name }) {
                if variable.explode {
                    exploded[name, default: []].append(PercentEncoding.decode(rawValue))
                } else if bindings.contains(where: { $0.variable.name == name }) {
                    if !lenient { return nil }
                } else {
                    let value: URITemplate.Value =
                        rawValue.contains(",")
                        ? .list(rawValue.splitting(at: UInt8(ascii: ",")).map { PercentEncoding.decode($0) })
                        : .string(PercentEncoding.decode(rawValue))
                    bindings.append((variable, value))
                }
            } else if explodeVariable != nil, !name.isEmpty {
                pairs.append(URITemplate.KeyValue(key: name, value: PercentEncoding.decode(rawValue)))
            } else if !lenient {
                return nil
            }
        }
        if let explodeVariable {
            if let items = exploded[explodeVariable.name] {
                // Items named after the variable make it a list; other names are then not its pairs.
                if !pairs.isEmpty, !lenient { return nil }
                bindings.append((explodeVariable, .list(items)))
            } else if !pairs.isEmpty {
                bindings.append((explodeVariable, .associative(pairs)))
            }
        }
        return check(bindings)
    }

    /// Rejects values longer than their variable's prefix modifier allows.
    private static func check(_ bindings: [Binding]) -> [Binding]? {
        for binding in bindings {
            if let prefix = binding.variable.prefix, case .string(let text) = binding.value, text.count > prefix {
                return nil
            }
        }
        return bindings
    }

    /// Adds bindings to the variables. A variable bound twice must agree with itself: equal values, or a
    /// prefix variable (`{var:3}`) holding exactly the first characters of the full value (as in
    /// `{/var:1,var}`). `prefixed` records variables so far bound only through a prefix, and its length.
    static func merge(
        _ bindings: some Sequence<Binding>, into variables: inout [String: URITemplate.Value],
        prefixed: inout [String: Int]
    ) -> Bool {
        for (variable, value) in bindings {
            let name = variable.name
            guard let existing = variables[name] else {
                variables[name] = value
                if let prefix = variable.prefix { prefixed[name] = prefix }
                continue
            }
            if existing == value {
                if variable.prefix == nil { prefixed[name] = nil }
                continue
            }
            guard case .string(let old) = existing, case .string(let new) = value else { return false }
            if let prefix = variable.prefix, prefixed[name] == nil, String(old.prefix(prefix)) == new {
                continue
            }
            if variable.prefix == nil, let prefix = prefixed[name], String(new.prefix(prefix)) == old {
                variables[name] = value
                prefixed[name] = nil
                continue
            }
            return false
        }
        return true
    }
}
