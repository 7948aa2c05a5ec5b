import Foundation
import StuntDouble

// MARK: - Parser

/// Reads tokens into ``XPathSyntax`` by XPath 1.0's grammar, checking types as it goes.
struct XPathParser {
    let tokens: [XPathToken]
    var index = 0
    var nesting = 0

    init(tokens: [XPathToken]) {
        self.tokens = tokens
    }

    var current: XPathToken { tokens[index] }

    mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    func error(_ message: String) -> XPathSyntaxError {
        XPathSyntaxError(message: "\(message) at position \(current.position)")
    }

    /// What a diagnostic calls the current token.
    var currentDescription: String {
        switch current.kind {
        case .end: "the end of the expression"
        case .nameTest(let name), .functionName(let name), .axisName(let name), .nodeType(let name): "'\(name)'"
        case .literal(let text): "the string '\(text)'"
        case .number(let value): "the number \(XPathValue.format(value))"
        case .variable(let name): "$\(name)"
        default: "'\(Self.spelling(of: current.kind))'"
        }
    }

    static func spelling(of kind: XPathToken.Kind) -> String {
        switch kind {
        case .slash: "/"
        case .doubleSlash: "//"
        case .leftParenthesis: "("
        case .rightParenthesis: ")"
        case .leftBracket: "["
        case .rightBracket: "]"
        case .dot: "."
        case .doubleDot: ".."
        case .at: "@"
        case .comma: ","
        case .doubleColon: "::"
        case .pipe: "|"
        case .plus: "+"
        case .minus: "-"
        case .equal: "="
        case .notEqual: "!="
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        case .multiply: "*"
        case .and: "and"
        case .or: "or"
        case .div: "div"
        case .mod: "mod"
        default: "?"
        }
    }

    mutating func expect(_ kind: XPathToken.Kind, _ what: String) throws(XPathSyntaxError) {
        guard current.kind == kind else { throw error("expected \(what), found \(currentDescription)") }
        advance()
    }

    /// The whole expression: one expression and nothing after it.
    mutating func parseExpression() throws(XPathSyntaxError) -> XPathSyntax {
        guard current.kind != .end else { throw error("the expression is empty") }
        let syntax = try parseOr()
        guard current.kind == .end else { throw error("unexpected \(currentDescription)") }
        return syntax
    }

    /// An expression nested in parentheses, a predicate or an argument list.
    mutating func parseNested() throws(XPathSyntaxError) -> XPathSyntax {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= XPathExpression.maximumNesting else {
            throw error("the expression nests more than \(XPathExpression.maximumNesting) levels deep")
        }
        return try parseOr()
    }

    /// `OrExpr ::= AndExpr ('or' AndExpr)*`, and so on down XPath 1.0's precedence: a chain of operators of one
    /// level is one node, so that long chains do not nest.
    mutating func parseOr() throws(XPathSyntaxError) -> XPathSyntax {
        var operands = [try parseAnd()]
        while current.kind == .or {
            advance()
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : XPathSyntax(kind: .or(operands), type: .boolean)
    }

    mutating func parseAnd() throws(XPathSyntaxError) -> XPathSyntax {
        var operands = [try parseEquality()]
        while current.kind == .and {
            advance()
            operands.append(try parseEquality())
        }
        return operands.count == 1 ? operands[0] : XPathSyntax(kind: .and(operands), type: .boolean)
    }

    mutating func parseEquality() throws(XPathSyntaxError) -> XPathSyntax {
        let first = try parseRelational()
        var rest: [(XPathComparison, XPathSyntax)] = []
        while current.kind == .equal || current.kind == .notEqual {
            let comparison: XPathComparison = current.kind == .equal ? .equal : .notEqual
            advance()
            rest.append((comparison, try parseRelational()))
        }
        return rest.isEmpty ? first : XPathSyntax(kind: .comparison(first, rest), type: .boolean)
    }

    mutating func parseRelational() throws(XPathSyntaxError) -> XPathSyntax {
        let first = try parseAdditive()
        var rest: [(XPathComparison, XPathSyntax)] = []
        while true {
            let comparison: XPathComparison
            switch current.kind {
            case .less: comparison = .less
            case .lessOrEqual: comparison = .lessOrEqual
            case .greater: comparison = .greater
            case .greaterOrEqual: comparison = .greaterOrEqual
            default: return rest.isEmpty ? first : XPathSyntax(kind: .comparison(first, rest), type: .boolean)
            }
            advance()
            rest.append((comparison, try parseAdditive()))
        }
    }

    mutating func parseAdditive() throws(XPathSyntaxError) -> XPathSyntax {
        let first = try parseMultiplicative()
        var rest: [(XPathArithmetic, XPathSyntax)] = []
        while current.kind == .plus || current.kind == .minus {
            let operation: XPathArithmetic = current.kind == .plus ? .plus : .minus
            advance()
            rest.append((operation, try parseMultiplicative()))
        }
        return rest.isEmpty ? first : XPathSyntax(kind: .arithmetic(first, rest), type: .number)
    }

    mutating func parseMultiplicative() throws(XPathSyntaxError) -> XPathSyntax {
        let first = try parseUnary()
        var rest: [(XPathArithmetic, XPathSyntax)] = []
        while true {
            let operation: XPathArithmetic
            switch current.kind {
            case .multiply: operation = .times
            case .div: operation = .divide
            case .mod: operation = .modulo
            default: return rest.isEmpty ? first : XPathSyntax(kind: .arithmetic(first, rest), type: .number)
            }
            advance()
            rest.append((operation, try parseUnary()))
        }
    }

    /// `UnaryExpr ::= '-'* UnionExpr`.
    mutating func parseUnary() throws(XPathSyntaxError) -> XPathSyntax {
        var count = 0
        while current.kind == .minus {
            count += 1
            advance()
        }
        let operand = try parseUnion()
        return count == 0 ? operand : XPathSyntax(kind: .negation(operand, count: count), type: .number)
    }

    /// `UnionExpr ::= PathExpr ('|' PathExpr)*`, all node-sets.
    mutating func parseUnion() throws(XPathSyntaxError) -> XPathSyntax {
        let first = try parsePath()
        guard current.kind == .pipe else { return first }
        var operands = [first]
        while current.kind == .pipe {
            advance()
            operands.append(try parsePath())
        }
        guard operands.allSatisfy({ $0.type == .nodes }) else {
            throw error("the operands of '|' must be node-sets")
        }
        return XPathSyntax(kind: .union(operands), type: .nodes)
    }

    /// Whether the current token starts a step of a location path.
    var startsStep: Bool {
        switch current.kind {
        case .nameTest, .nodeType, .axisName, .at, .dot, .doubleDot: true
        default: false
        }
    }

    /// `PathExpr`: an absolute or relative location path, or a filter expression and the path after it.
    mutating func parsePath() throws(XPathSyntaxError) -> XPathSyntax {
        switch current.kind {
        case .slash:
            advance()
            let steps = startsStep ? try parseRelativePath() : []
            return XPathSyntax(kind: .path(.root, Self.optimized(steps)), type: .nodes)
        case .doubleSlash:
            advance()
            guard startsStep else { throw error("expected a step after '//', found \(currentDescription)") }
            let steps = [Self.descendantOrSelf] + (try parseRelativePath())
            return XPathSyntax(kind: .path(.root, Self.optimized(steps)), type: .nodes)
        case .literal, .number, .leftParenthesis, .functionName, .variable:
            return try parseFilterPath()
        default:
            guard startsStep else { throw error("expected an expression, found \(currentDescription)") }
            return XPathSyntax(kind: .path(.context, Self.optimized(try parseRelativePath())), type: .nodes)
        }
    }

    /// A filter expression (a primary expression and predicates), and a path after it.
    mutating func parseFilterPath() throws(XPathSyntaxError) -> XPathSyntax {
        var syntax = try parsePrimary()
        if current.kind == .leftBracket {
            guard syntax.type == .nodes else { throw error("a predicate can only follow a node-set") }
            syntax = XPathSyntax(kind: .filter(syntax, try parsePredicates()), type: .nodes)
        }
        guard current.kind == .slash || current.kind == .doubleSlash else { return syntax }
        guard syntax.type == .nodes else { throw error("a path can only follow a node-set") }
        let doubleSlash = current.kind == .doubleSlash
        advance()
        guard startsStep else { throw error("expected a step, found \(currentDescription)") }
        let steps = (doubleSlash ? [Self.descendantOrSelf] : []) + (try parseRelativePath())
        return XPathSyntax(kind: .path(.expression(syntax), Self.optimized(steps)), type: .nodes)
    }

    static let descendantOrSelf = XPathStep(axis: .descendantOrSelf, test: .node, predicates: [])

    /// `//name` as `/descendant::name` when no predicate counts positions among children (which it would change).
    static func optimized(_ steps: [XPathStep]) -> [XPathStep] {
        var result: [XPathStep] = []
        result.reserveCapacity(steps.count)
        for step in steps {
            if let previous = result.last, previous.axis == .descendantOrSelf, case .node = previous.test,
                previous.predicates.isEmpty, step.axis == .child, step.predicates.isEmpty
            {
                result[result.count - 1] = XPathStep(axis: .descendant, test: step.test, predicates: [])
            } else {
                result.append(step)
            }
        }
        return result
    }

    /// Steps separated by `/` and `//` (`//` as a `descendant-or-self::node()` step).
    mutating func parseRelativePath() throws(XPathSyntaxError) -> [XPathStep] {
        var steps = [try parseStep()]
        while current.kind == .slash || current.kind == .doubleSlash {
            if current.kind == .doubleSlash { steps.append(Self.descendantOrSelf) }
            advance()
            guard startsStep else { throw error("expected a step, found \(currentDescription)") }
            steps.append(try parseStep())
        }
        return steps
    }

    /// A step: `.`, `..`, or an axis (`name::` or `@`, `child` without one), a node test and predicates.
    mutating func parseStep() throws(XPathSyntaxError) -> XPathStep {
        switch current.kind {
        case .dot:
            advance()
            return XPathStep(axis: .selfAxis, test: .node, predicates: [])
        case .doubleDot:
            advance()
            return XPathStep(axis: .parent, test: .node, predicates: [])
        default:
            break
        }
        var axis = XPathAxis.child
        if current.kind == .at {
            axis = .attribute
            advance()
        } else if case .axisName(let name) = current.kind {
            guard let named = XPathAxis(rawValue: name) else { throw error("unknown axis '\(name)'") }
            axis = named
            advance()
            try expect(.doubleColon, "'::'")
        }
        let test = try parseNodeTest()
        let predicates = current.kind == .leftBracket ? try parsePredicates() : []
        return XPathStep(axis: axis, test: test, predicates: predicates)
    }

    /// A name test or a node type test (`text()`, `processing-instruction('target')`...).
    mutating func parseNodeTest() throws(XPathSyntaxError) -> XPathNodeTest {
        switch current.kind {
        case .nameTest(let name):
            advance()
            if name == "*" { return .anyName }
            return name.contains(":") ? .prefixed : .localName(name)
        case .nodeType(let type):
            advance()
            try expect(.leftParenthesis, "'('")
            var test: XPathNodeTest
            switch type {
            case "comment": test = .comment
            case "text": test = .text
            case "node": test = .node
            default: test = .processingInstruction(nil)
            }
            if type == "processing-instruction", case .literal(let target) = current.kind {
                test = .processingInstruction(target)
                advance()
            }
            try expect(.rightParenthesis, "')' after \(type)(")
            return test
        default:
            throw error("expected a node test, found \(currentDescription)")
        }
    }

    /// `[expr]`, as many as there are.
    mutating func parsePredicates() throws(XPathSyntaxError) -> [XPathSyntax] {
        var predicates: [XPathSyntax] = []
        while current.kind == .leftBracket {
            advance()
            guard current.kind != .rightBracket else { throw error("a predicate cannot be empty") }
            predicates.append(try parseNested())
            try expect(.rightBracket, "']'")
        }
        return predicates
    }

    /// A literal, a number, a parenthesized expression or a function call.
    mutating func parsePrimary() throws(XPathSyntaxError) -> XPathSyntax {
        switch current.kind {
        case .literal(let text):
            advance()
            return XPathSyntax(kind: .string(text), type: .string)
        case .number(let value):
            advance()
            return XPathSyntax(kind: .number(value), type: .number)
        case .leftParenthesis:
            advance()
            let syntax = try parseNested()
            try expect(.rightParenthesis, "')'")
            return syntax
        case .variable(let name):
            throw error("variables are not supported ($\(name))")
        case .functionName(let name):
            return try parseFunctionCall(name)
        default:
            throw error("expected an expression, found \(currentDescription)")
        }
    }

    /// A call of a core function, its arguments counted and typed.
    mutating func parseFunctionCall(_ name: String) throws(XPathSyntaxError) -> XPathSyntax {
        guard let function = XPathFunction(rawValue: name) else { throw error("unknown function \(name)()") }
        advance()
        try expect(.leftParenthesis, "'('")
        var arguments: [XPathSyntax] = []
        if current.kind != .rightParenthesis {
            arguments.append(try parseNested())
            while current.kind == .comma {
                advance()
                arguments.append(try parseNested())
            }
        }
        try expect(.rightParenthesis, "')' or ',' in the arguments of \(name)()")
        let arity = function.arity
        guard arguments.count >= arity.lowerBound, arguments.count <= arity.upperBound else {
            let expected =
                arity.lowerBound == arity.upperBound
                ? "\(arity.lowerBound)"
                : arity.upperBound == Int.max
                    ? "at least \(arity.lowerBound)" : "\(arity.lowerBound) to \(arity.upperBound)"
            throw XPathSyntaxError(
                message: "\(name)() takes \(expected) argument\(expected == "1" ? "" : "s"), not \(arguments.count)")
        }
        if function.takesNodeSet, let argument = arguments.first, argument.type != .nodes {
            throw XPathSyntaxError(message: "the argument of \(name)() must be a node-set")
        }
        return XPathSyntax(kind: .function(function, arguments), type: function.resultType)
    }
}
