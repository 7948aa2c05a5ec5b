import Foundation
import StuntDouble

/// Reads JSONPath text.
struct JSONPathParser {
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
                if current == UInt8(ascii: "[") {
                    // `$.[...]`, which Jayway reads as `$[...]`.
                    steps.append(try parseBracket())
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
