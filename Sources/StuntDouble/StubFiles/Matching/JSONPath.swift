import Foundation

/// A JSONPath expression, the subset that WireMock stub files use (Jayway JsonPath's syntax and results):
/// `$.a.b`, `$['a']`, `$.items[0]`, `$.items[-1]`, `$.items[0,2]`, `$.items[1:3]`, `$.items[*]`, `$.*`,
/// `$..name`, filters such as `$.items[?(@.price < 10 && @.name =~ /pen.*/i)]` and `[?(@.id)]`, and
/// `length()` / `size()` at the end.
struct JSONPath: Sendable, CustomStringConvertible {
    /// The expression as written.
    let expression: String
    private let steps: [Step]
    /// Whether the path ends with `length()` (or `size()`): the result is the selection's size.
    private let endsWithLength: Bool

    fileprivate indirect enum Step: Sendable {
        case child([String])
        case wildcard
        case indexes([Int])
        case slice(start: Int?, end: Int?)
        case filter(FilterExpression)
        case deepScan(Step)
    }

    /// Whether the expression selects one value (Jayway's "definite" path) rather than a list.
    var isDefinite: Bool {
        steps.allSatisfy { step in
            switch step {
            case .child(let names): names.count == 1
            case .indexes(let indexes): indexes.count == 1
            default: false
            }
        }
    }

    var description: String { expression }

    /// What an expression selects in a document.
    enum Result: Sendable {
        /// A definite path found this value.
        case value(JSONValue)
        /// An indefinite path selected these values (possibly none).
        case list([JSONValue])
        /// A definite path found nothing.
        case notFound
    }

    /// Parses an expression.
    /// - Throws: A message naming what is wrong and where.
    init(_ expression: String) throws(JSONPathError) {
        self.expression = expression
        var parser = JSONPathParser(Array(expression.utf8))
        (steps, endsWithLength) = try parser.parsePath()
    }

    fileprivate init(expression: String, steps: [Step], endsWithLength: Bool) {
        self.expression = expression
        self.steps = steps
        self.endsWithLength = endsWithLength
    }

    /// Evaluates the expression on a document.
    func evaluate(_ document: JSONValue) -> Result {
        var current = [document]
        for step in steps {
            current = current.flatMap { Self.apply(step, to: $0) }
        }
        if endsWithLength {
            guard let value = isDefinite ? current.first : .array(current) else { return .notFound }
            switch value {
            case .array(let items): return .value(.number(JSONNumber(text: String(items.count))))
            case .object(let members): return .value(.number(JSONNumber(text: String(members.count))))
            case .string(let string): return .value(.number(JSONNumber(text: String(string.count))))
            default: return .notFound
            }
        }
        if isDefinite {
            return current.first.map(Result.value) ?? .notFound
        }
        return .list(current)
    }

    private static func apply(_ step: Step, to value: JSONValue) -> [JSONValue] {
        switch step {
        case .child(let names):
            guard case .object(let members) = value else { return [] }
            return names.compactMap { members[$0] }
        case .wildcard:
            switch value {
            case .array(let items): return items
            case .object(let members): return members.keys.sorted().compactMap { members[$0] }
            default: return []
            }
        case .indexes(let indexes):
            guard case .array(let items) = value else { return [] }
            return indexes.compactMap { index in
                let resolved = index < 0 ? items.count + index : index
                return items.indices.contains(resolved) ? items[resolved] : nil
            }
        case .slice(let start, let end):
            guard case .array(let items) = value else { return [] }
            func resolve(_ bound: Int?, _ fallback: Int) -> Int {
                guard let bound else { return fallback }
                return min(max(bound < 0 ? items.count + bound : bound, 0), items.count)
            }
            let lower = resolve(start, 0)
            let upper = resolve(end, items.count)
            return lower < upper ? Array(items[lower..<upper]) : []
        case .filter(let filter):
            switch value {
            case .array(let items): return items.filter { filter.accepts($0) }
            // Jayway applies a filter on an object to the object itself.
            case .object: return filter.accepts(value) ? [value] : []
            default: return []
            }
        case .deepScan(let inner):
            var found: [JSONValue] = []
            deepScan(value, inner, into: &found)
            return found
        }
    }

    private static func deepScan(_ value: JSONValue, _ step: Step, into found: inout [JSONValue]) {
        found += apply(step, to: value)
        switch value {
        case .array(let items):
            for item in items { deepScan(item, step, into: &found) }
        case .object(let members):
            for key in members.keys.sorted() {
                if let member = members[key] { deepScan(member, step, into: &found) }
            }
        default:
            break
        }
    }
}

/// Why a JSONPath expression does not parse.
struct JSONPathError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A filter's condition, `?(...)`.
indirect enum FilterExpression: Sendable {
    case exists(JSONPath)
    case not(FilterExpression)
    case and(FilterExpression, FilterExpression)
    case or(FilterExpression, FilterExpression)
    case compare(Operand, String, Operand)
    case regex(Operand, NSRegularExpressionBox)

    enum Operand: Sendable {
        case path(JSONPath)
        case literal(JSONValue)

        func resolve(_ item: JSONValue) -> JSONValue? {
            switch self {
            case .literal(let value):
                return value
            case .path(let path):
                switch path.evaluate(item) {
                case .value(let value): return value
                case .list(let values): return values.count == 1 ? values[0] : .array(values)
                case .notFound: return nil
                }
            }
        }
    }

    func accepts(_ item: JSONValue) -> Bool {
        switch self {
        case .exists(let path):
            switch path.evaluate(item) {
            case .value: return true
            case .list(let values): return !values.isEmpty
            case .notFound: return false
            }
        case .not(let inner):
            return !inner.accepts(item)
        case .and(let left, let right):
            return left.accepts(item) && right.accepts(item)
        case .or(let left, let right):
            return left.accepts(item) || right.accepts(item)
        case .regex(let operand, let regex):
            guard case .string(let text)? = operand.resolve(item) else { return false }
            return regex.matchesWhole(text)
        case .compare(let left, let operation, let right):
            guard let lhs = left.resolve(item), let rhs = right.resolve(item) else {
                return operation == "!="
            }
            return Self.compare(lhs, operation, rhs)
        }
    }

    private static func compare(_ lhs: JSONValue, _ operation: String, _ rhs: JSONValue) -> Bool {
        switch operation {
        case "==": return lhs == rhs
        case "!=": return lhs != rhs
        case "in", "nin":
            guard case .array(let items) = rhs else { return false }
            return items.contains(lhs) == (operation == "in")
        default:
            break
        }
        let ordering: Int?
        switch (lhs, rhs) {
        case (.number(let a), .number(let b)):
            let (x, y) = (Double(a.text) ?? .nan, Double(b.text) ?? .nan)
            ordering = x < y ? -1 : (x > y ? 1 : (x == y ? 0 : nil))
        case (.string(let a), .string(let b)):
            ordering = a < b ? -1 : (a > b ? 1 : 0)
        default:
            ordering = nil
        }
        guard let ordering else { return false }
        switch operation {
        case "<": return ordering < 0
        case "<=": return ordering <= 0
        case ">": return ordering > 0
        case ">=": return ordering >= 0
        default: return false
        }
    }
}

/// A compiled regular expression that must match a whole string, shareable between threads
/// (`NSRegularExpression` is immutable).
struct NSRegularExpressionBox: @unchecked Sendable {
    let expression: NSRegularExpression
    /// The pattern as written.
    let pattern: String

    /// Compiles `pattern` so that it must match all of a text (as Java's `Pattern.matches` does).
    init(wholeMatch pattern: String, options: NSRegularExpression.Options = []) throws {
        expression = try NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: options)
        self.pattern = pattern
    }

    /// Whether the expression matches all of `text`, within the work budget (see `RegexBudget`).
    func matchesWhole(_ text: String) -> Bool {
        RegexBudget.firstMatch(expression, in: text, pattern: pattern)
    }
}

/// Reads JSONPath text.
private struct JSONPathParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func fail(_ reason: String) -> JSONPathError {
        JSONPathError(message: "\(reason) at character \(index + 1)")
    }

    private mutating func skipSpaces() {
        while current == UInt8(ascii: " ") { index += 1 }
    }

    mutating func parsePath() throws(JSONPathError) -> ([JSONPath.Step], Bool) {
        skipSpaces()
        guard current == UInt8(ascii: "$") else {
            throw fail("a JSONPath starts with '$'")
        }
        index += 1
        let (steps, endsWithLength) = try parseSteps(inFilter: false)
        skipSpaces()
        guard index == bytes.count else { throw fail("unexpected text") }
        return (steps, endsWithLength)
    }

    /// Steps after `$` or `@`, up to the end or (in a filter) an operator.
    mutating func parseSteps(inFilter: Bool) throws(JSONPathError) -> ([JSONPath.Step], Bool) {
        var steps: [JSONPath.Step] = []
        while let byte = current {
            if byte == UInt8(ascii: ".") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ".") {
                    index += 2
                    if current == UInt8(ascii: "[") {
                        steps.append(.deepScan(try parseBracket()))
                    } else if current == UInt8(ascii: "*") {
                        index += 1
                        steps.append(.deepScan(.wildcard))
                    } else {
                        steps.append(.deepScan(.child([try parseName()])))
                    }
                    continue
                }
                index += 1
                if current == UInt8(ascii: "*") {
                    index += 1
                    steps.append(.wildcard)
                    continue
                }
                let name = try parseName()
                if current == UInt8(ascii: "("), name == "length" || name == "size" {
                    index += 1
                    guard current == UInt8(ascii: ")") else { throw fail("expected ')' after \(name)(") }
                    index += 1
                    return (steps, true)
                }
                steps.append(.child([name]))
            } else if byte == UInt8(ascii: "[") {
                steps.append(try parseBracket())
            } else if inFilter {
                break
            } else {
                throw fail("expected '.' or '['")
            }
        }
        return (steps, false)
    }

    private mutating func parseName() throws(JSONPathError) -> String {
        let start = index
        while let byte = current, byte != UInt8(ascii: "."), byte != UInt8(ascii: "["), byte != UInt8(ascii: " "),
            byte != UInt8(ascii: ")"), byte != UInt8(ascii: "("), byte != UInt8(ascii: "="),
            byte != UInt8(ascii: "!"), byte != UInt8(ascii: "<"), byte != UInt8(ascii: ">"),
            byte != UInt8(ascii: "&"), byte != UInt8(ascii: "|"), byte != UInt8(ascii: ",")
        {
            index += 1
        }
        guard index > start else { throw fail("expected a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func parseBracket() throws(JSONPathError) -> JSONPath.Step {
        index += 1
        skipSpaces()
        guard let byte = current else { throw fail("'[' is never closed") }
        let step: JSONPath.Step
        if byte == UInt8(ascii: "*") {
            index += 1
            step = .wildcard
        } else if byte == UInt8(ascii: "?") {
            index += 1
            skipSpaces()
            guard current == UInt8(ascii: "(") else { throw fail("expected '(' after '?'") }
            index += 1
            let filter = try parseOr()
            skipSpaces()
            guard current == UInt8(ascii: ")") else { throw fail("expected ')' to close the filter") }
            index += 1
            step = .filter(filter)
        } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
            var names = [try parseQuoted()]
            skipSpaces()
            while current == UInt8(ascii: ",") {
                index += 1
                skipSpaces()
                names.append(try parseQuoted())
                skipSpaces()
            }
            step = .child(names)
        } else {
            let first = try parseOptionalInteger()
            skipSpaces()
            if current == UInt8(ascii: ":") {
                index += 1
                skipSpaces()
                let end = try parseOptionalInteger()
                step = .slice(start: first, end: end)
            } else {
                guard let first else { throw fail("expected an index, a name in quotes, '*' or '?(' after '['") }
                var indexes = [first]
                while current == UInt8(ascii: ",") {
                    index += 1
                    skipSpaces()
                    guard let next = try parseOptionalInteger() else { throw fail("expected an index") }
                    indexes.append(next)
                    skipSpaces()
                }
                step = .indexes(indexes)
            }
        }
        skipSpaces()
        guard current == UInt8(ascii: "]") else { throw fail("expected ']'") }
        index += 1
        return step
    }

    private mutating func parseOptionalInteger() throws(JSONPathError) -> Int? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        if index == start { return nil }
        guard let value = Int(String(decoding: bytes[start..<index], as: UTF8.self)) else {
            throw fail("expected an index")
        }
        return value
    }

    private mutating func parseQuoted() throws(JSONPathError) -> String {
        guard let quote = current, quote == UInt8(ascii: "'") || quote == UInt8(ascii: "\"") else {
            throw fail("expected a quoted name")
        }
        index += 1
        var text: [UInt8] = []
        while let byte = current, byte != quote {
            if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                index += 1
            }
            text.append(bytes[index])
            index += 1
        }
        guard current == quote else { throw fail("a quoted name is never closed") }
        index += 1
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: Filters

    private mutating func enter() throws(JSONPathError) {
        depth += 1
        if depth > 64 { throw fail("filter nested deeper than 64 levels") }
    }

    private mutating func parseOr() throws(JSONPathError) -> FilterExpression {
        try enter()
        defer { depth -= 1 }
        var left = try parseAnd()
        skipSpaces()
        while matchSymbol("||") {
            left = .or(left, try parseAnd())
            skipSpaces()
        }
        return left
    }

    private mutating func parseAnd() throws(JSONPathError) -> FilterExpression {
        var left = try parseUnary()
        skipSpaces()
        while matchSymbol("&&") {
            left = .and(left, try parseUnary())
            skipSpaces()
        }
        return left
    }

    private mutating func matchSymbol(_ symbol: String) -> Bool {
        let expected = Array(symbol.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<(index + expected.count)]) == expected else {
            return false
        }
        index += expected.count
        return true
    }

    private mutating func parseUnary() throws(JSONPathError) -> FilterExpression {
        try enter()
        defer { depth -= 1 }
        skipSpaces()
        if current == UInt8(ascii: "!"), index + 1 < bytes.count, bytes[index + 1] != UInt8(ascii: "=") {
            index += 1
            return .not(try parseUnary())
        }
        if current == UInt8(ascii: "(") {
            index += 1
            let inner = try parseOr()
            skipSpaces()
            guard current == UInt8(ascii: ")") else { throw fail("expected ')'") }
            index += 1
            return inner
        }
        let left = try parseOperand()
        skipSpaces()
        for operation in ["==", "!=", "<=", ">=", "=~", "<", ">", " in ", " nin "] where matchOperator(operation) {
            skipSpaces()
            if operation == "=~" {
                return .regex(left, try parseRegexLiteral())
            }
            let right = try parseOperand()
            return .compare(left, operation.trimmingCharacters(in: .whitespaces), right)
        }
        guard case .path(let path) = left else { throw fail("expected a comparison after a literal") }
        return .exists(path)
    }

    private mutating func matchOperator(_ operation: String) -> Bool {
        if operation.hasPrefix(" ") {
            let saved = index
            skipSpaces()
            let word = operation.trimmingCharacters(in: .whitespaces)
            if matchSymbol(word), current == UInt8(ascii: " ") {
                return true
            }
            index = saved
            return false
        }
        skipSpaces()
        return matchSymbol(operation)
    }

    private mutating func parseOperand() throws(JSONPathError) -> FilterExpression.Operand {
        skipSpaces()
        guard let byte = current else { throw fail("expected a value in the filter") }
        if byte == UInt8(ascii: "@") || byte == UInt8(ascii: "$") {
            index += 1
            let start = index - 1
            let (steps, endsWithLength) = try parseSteps(inFilter: true)
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            return .path(JSONPath(expression: text, steps: steps, endsWithLength: endsWithLength))
        }
        if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
            return .literal(.string(try parseQuoted()))
        }
        if byte == UInt8(ascii: "[") {
            index += 1
            var items: [JSONValue] = []
            skipSpaces()
            while current != UInt8(ascii: "]") {
                guard case .literal(let value) = try parseOperand() else { throw fail("expected a literal in a list") }
                items.append(value)
                skipSpaces()
                if current == UInt8(ascii: ",") { index += 1 }
                skipSpaces()
                guard current != nil else { throw fail("a list is never closed") }
            }
            index += 1
            return .literal(.array(items))
        }
        for (word, value) in [("true", JSONValue.bool(true)), ("false", .bool(false)), ("null", .null)]
        where matchSymbol(word) {
            return .literal(value)
        }
        let start = index
        while let next = current,
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) || next == UInt8(ascii: "-")
                || next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E")
                || next == UInt8(ascii: "+")
        {
            index += 1
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard !text.isEmpty, Double(text) != nil else {
            index = start
            throw fail("expected @, a string, a number, true, false or null")
        }
        return .literal(.number(JSONNumber(text: text)))
    }

    private mutating func parseRegexLiteral() throws(JSONPathError) -> NSRegularExpressionBox {
        guard current == UInt8(ascii: "/") else { throw fail("expected a regular expression in slashes after =~") }
        index += 1
        var pattern: [UInt8] = []
        while let byte = current, byte != UInt8(ascii: "/") {
            if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                pattern.append(byte)
                index += 1
            }
            pattern.append(bytes[index])
            index += 1
        }
        guard current == UInt8(ascii: "/") else { throw fail("a regular expression is never closed with '/'") }
        index += 1
        var options: NSRegularExpression.Options = [.dotMatchesLineSeparators]
        if current == UInt8(ascii: "i") {
            index += 1
            options.insert(.caseInsensitive)
        }
        do {
            return try NSRegularExpressionBox(wholeMatch: String(decoding: pattern, as: UTF8.self), options: options)
        } catch {
            throw fail("the regular expression does not compile")
        }
    }
}
