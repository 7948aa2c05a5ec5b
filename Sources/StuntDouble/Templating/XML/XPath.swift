/// Why a text is not an XPath 1.0 expression StuntDouble evaluates.
struct XPathSyntaxError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, and where (a character position in the expression).
    let message: String

    var description: String { message }
}

/// What an XPath expression evaluates to.
enum XPathValue: Sendable, Equatable {
    /// Nodes in document order, without duplicates.
    case nodes([XMLNodeID])
    case string(String)
    case number(Double)
    case boolean(Bool)
}

/// An XPath 1.0 expression, parsed once and evaluated on any number of documents, as Java's JAXP evaluates one
/// on a DOM parsed without namespace processing.
///
/// All of XPath 1.0 but variables: location paths with the 13 axes and their abbreviations, predicates, unions,
/// filter expressions, the operators, and the core function library. Names are matched without namespaces: a name
/// test without a prefix (`Envelope`) matches an element or attribute whose local part (after the colon) is that
/// name, so `/Envelope/Body` finds `soap:Envelope/soap:Body`; a name test with a prefix (`m:StockName`, `m:*`)
/// matches nothing, as no prefix is bound; `xmlns` attributes are not attributes to XPath (`@*` leaves them out).
/// As in JAXP on such a DOM, the namespace axis and `id()` select nothing, `namespace-uri()` is always empty and
/// `lang()` always false, and `string-length()` and `substring()` count UTF-16 code units. As in Xalan, a number
/// predicate is truncated to an integer (`[1.5]` is `[1]`), and `substring(s, NaN)` is all of `s`.
///
/// Types are checked when the expression is parsed (an operand of `|`, what a predicate or a path follows, and
/// `count`'s or `sum`'s argument must be node-sets), so evaluation cannot fail. Evaluation never recurses over a
/// document's depth, and each step's nodes are deduplicated, so `//*//*` costs what its result does.
struct XPathExpression: Sendable, CustomStringConvertible {
    /// The expression as written.
    let text: String
    let syntax: XPathSyntax

    /// The deepest nesting of parentheses, predicates and function calls accepted (which bounds recursion).
    static let maximumNesting = 32

    var description: String { text }

    /// Parses an expression.
    /// - Throws: What is wrong and where: bad syntax, an unknown function, a wrong number of arguments, or a value
    ///   that is not a node-set where one must be.
    init(_ text: String) throws(XPathSyntaxError) {
        self.text = text
        var lexer = XPathLexer(text)
        var parser = XPathParser(tokens: try lexer.tokenize())
        syntax = try parser.parseExpression()
    }

    /// Evaluates the expression with the document node as the context node.
    func evaluate(in tree: XMLTree) -> XPathValue {
        evaluate(in: tree, context: tree.root)
    }

    /// Evaluates the expression with a node of the document as the context node.
    ///
    /// Outside predicates, `position()` is -1 and `last()` is 0, as JAXP gives them (it has no context position
    /// there).
    func evaluate(in tree: XMLTree, context: XMLNodeID) -> XPathValue {
        XPathEvaluator(tree: tree).evaluate(syntax, XPathContext(node: Int32(context.index), position: -1, size: 0))
    }
}

// MARK: - Syntax

/// The type of an expression's value, known when it is parsed (XPath 1.0 has no variables here).
enum XPathType: Sendable {
    case nodes, string, number, boolean
}

/// A parsed expression (or part of one), with its type.
struct XPathSyntax: Sendable {
    indirect enum Kind: Sendable {
        case string(String)
        case number(Double)
        case or([XPathSyntax])
        case and([XPathSyntax])
        /// `first op operand op operand ...`, applied from the left.
        case comparison(XPathSyntax, [(XPathComparison, XPathSyntax)])
        case arithmetic(XPathSyntax, [(XPathArithmetic, XPathSyntax)])
        /// A number negated as many times as it has minus signs.
        case negation(XPathSyntax, count: Int)
        case union([XPathSyntax])
        /// A location path from the document node, the context node, or a node-set (`(expr)/step`).
        case path(XPathPathStart, [XPathStep])
        /// A node-set filtered by predicates (`(expr)[1]`), positions in document order.
        case filter(XPathSyntax, [XPathSyntax])
        case function(XPathFunction, [XPathSyntax])
    }

    let kind: Kind
    let type: XPathType
}

/// A comparison operator.
enum XPathComparison: Sendable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual

    /// The operator with its operands swapped: `a < b` is `b > a`.
    var swapped: XPathComparison {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }
}

/// An arithmetic operator.
enum XPathArithmetic: Sendable {
    case plus, minus, times, divide, modulo
}

/// Where a location path starts.
indirect enum XPathPathStart: Sendable {
    /// `/...`: the document node.
    case root
    /// A relative path: the context node.
    case context
    /// `(expr)/...`: the nodes a node-set expression selects.
    case expression(XPathSyntax)
}

/// The 13 axes, named as written before `::`.
enum XPathAxis: String, Sendable, CaseIterable {
    case ancestor
    case ancestorOrSelf = "ancestor-or-self"
    case attribute
    case child
    case descendant
    case descendantOrSelf = "descendant-or-self"
    case following
    case followingSibling = "following-sibling"
    case namespace
    case parent
    case preceding
    case precedingSibling = "preceding-sibling"
    case selfAxis = "self"

    /// Whether positions on the axis count backwards from the context node (in reverse document order).
    var isReverse: Bool {
        switch self {
        case .ancestor, .ancestorOrSelf, .preceding, .precedingSibling: true
        default: false
        }
    }
}

/// What a step's nodes must be.
enum XPathNodeTest: Sendable {
    /// `*`: any node of the axis's principal type (attributes on the attribute axis, elements elsewhere).
    case anyName
    /// A name without a prefix: the principal type with that local name.
    case localName(String)
    /// A name with a prefix (`m:x`, `m:*`): nothing, since no prefix is bound.
    case prefixed
    case node
    case text
    case comment
    /// `processing-instruction()`, or `processing-instruction('target')`.
    case processingInstruction(String?)
}

/// A location step: an axis, a node test, and predicates.
struct XPathStep: Sendable {
    let axis: XPathAxis
    let test: XPathNodeTest
    let predicates: [XPathSyntax]
}

// MARK: - Lexer

/// A token of an expression, with where it starts (a character position).
struct XPathToken: Sendable {
    enum Kind: Sendable, Equatable {
        case slash, doubleSlash, leftParenthesis, rightParenthesis, leftBracket, rightBracket, dot, doubleDot, at
        case comma, doubleColon, pipe, plus, minus, equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
        case multiply, and, or, div, mod
        /// A name test: `*`, `prefix:*`, `name` or `prefix:name`.
        case nameTest(String)
        /// `comment`, `text`, `processing-instruction` or `node` before `(`.
        case nodeType(String)
        case functionName(String)
        case axisName(String)
        case literal(String)
        case number(Double)
        case variable(String)
        case end
    }

    let kind: Kind
    let position: Int
}

/// Splits an expression into tokens, telling `*` and names as operators from name tests as XPath 1.0 says
/// (section 3.7): after a token that ends an operand, `*` multiplies and a name is an operator.
struct XPathLexer {
    let scalars: [Unicode.Scalar]
    var index = 0
    var tokens: [XPathToken] = []

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || scalar.value >= 0x80
    }

    static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        isNameStart(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "."
    }

    func scalar(at offset: Int) -> Unicode.Scalar? { offset < scalars.count ? scalars[offset] : nil }

    /// Whether the previous token ends an operand, so that what follows must be an operator.
    var followsOperand: Bool {
        guard let previous = tokens.last else { return false }
        switch previous.kind {
        case .at, .doubleColon, .leftParenthesis, .leftBracket, .comma, .and, .or, .div, .mod, .multiply, .slash,
            .doubleSlash, .pipe, .plus, .minus, .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            return false
        default:
            return true
        }
    }

    /// The position of the next character that is not whitespace, from an offset.
    func skippingWhitespace(from offset: Int) -> Int {
        var offset = offset
        while let scalar = scalar(at: offset), Self.isWhitespace(scalar) { offset += 1 }
        return offset
    }

    mutating func scanNCName() -> String {
        let start = index
        while let scalar = scalar(at: index), Self.isNameCharacter(scalar) { index += 1 }
        var name = ""
        name.unicodeScalars.append(contentsOf: scalars[start..<index])
        return name
    }

    /// All the tokens, the last one ``XPathToken/Kind/end``.
    mutating func tokenize() throws(XPathSyntaxError) -> [XPathToken] {
        while true {
            index = skippingWhitespace(from: index)
            let start = index
            guard let scalar = scalar(at: index) else {
                tokens.append(XPathToken(kind: .end, position: start))
                return tokens
            }
            let kind = try scanToken(scalar)
            tokens.append(XPathToken(kind: kind, position: start))
        }
    }

    /// Reads the token that starts with a character.
    mutating func scanToken(_ scalar: Unicode.Scalar) throws(XPathSyntaxError) -> XPathToken.Kind {
        let start = index
        let next = self.scalar(at: index + 1)
        index += 1
        switch scalar {
        case "/":
            if next == "/" {
                index += 1
                return .doubleSlash
            }
            return .slash
        case "(": return .leftParenthesis
        case ")": return .rightParenthesis
        case "[": return .leftBracket
        case "]": return .rightBracket
        case "@": return .at
        case ",": return .comma
        case "|": return .pipe
        case "+": return .plus
        case "-": return .minus
        case "=": return .equal
        case "!":
            guard next == "=" else { throw XPathSyntaxError(message: "expected '=' after '!' at position \(start)") }
            index += 1
            return .notEqual
        case "<", ">":
            if next == "=" {
                index += 1
                return scalar == "<" ? .lessOrEqual : .greaterOrEqual
            }
            return scalar == "<" ? .less : .greater
        case ":":
            guard next == ":" else { throw XPathSyntaxError(message: "unexpected ':' at position \(start)") }
            index += 1
            return .doubleColon
        case "*":
            return followsOperand ? .multiply : .nameTest("*")
        case "\"", "'":
            while let character = self.scalar(at: index), character != scalar { index += 1 }
            guard index < scalars.count else {
                throw XPathSyntaxError(message: "the string literal at position \(start) is not closed")
            }
            var literal = ""
            literal.unicodeScalars.append(contentsOf: scalars[(start + 1)..<index])
            index += 1
            return .literal(literal)
        case "$":
            guard let first = self.scalar(at: index), Self.isNameStart(first) else {
                throw XPathSyntaxError(message: "expected a variable name after '$' at position \(start)")
            }
            return .variable(scanNCName())
        case ".":
            if next == "." {
                index += 1
                return .doubleDot
            }
            if let next, ("0"..."9").contains(next) {
                index = start
                return .number(scanNumber())
            }
            return .dot
        case "0"..."9":
            index = start
            return .number(scanNumber())
        default:
            guard Self.isNameStart(scalar) else {
                throw XPathSyntaxError(message: "unexpected character '\(scalar)' at position \(start)")
            }
            index = start
            return try scanName()
        }
    }

    /// Reads `digits`, `digits.digits`, `digits.` or `.digits`.
    mutating func scanNumber() -> Double {
        let start = index
        while let scalar = scalar(at: index), ("0"..."9").contains(scalar) { index += 1 }
        if scalar(at: index) == "." {
            index += 1
            while let scalar = scalar(at: index), ("0"..."9").contains(scalar) { index += 1 }
        }
        var text = "0"
        text.unicodeScalars.append(contentsOf: scalars[start..<index])
        if text.hasSuffix(".") { text += "0" }
        return Double(text) ?? .nan
    }

    /// Reads a name: an operator name, a function name, a node type, an axis name, or a name test.
    mutating func scanName() throws(XPathSyntaxError) -> XPathToken.Kind {
        let start = index
        let name = scanNCName()
        if followsOperand {
            switch name {
            case "and": return .and
            case "or": return .or
            case "div": return .div
            case "mod": return .mod
            default:
                throw XPathSyntaxError(message: "expected an operator at position \(start), found '\(name)'")
            }
        }
        var qualifiedName = name
        var prefixed = false
        if scalar(at: index) == ":" && scalar(at: index + 1) != ":" {
            if scalar(at: index + 1) == "*" {
                index += 2
                return .nameTest(name + ":*")
            }
            guard let first = scalar(at: index + 1), Self.isNameStart(first) else {
                throw XPathSyntaxError(message: "expected a name after '\(name):' at position \(index + 1)")
            }
            index += 1
            qualifiedName = name + ":" + scanNCName()
            prefixed = true
        }
        let following = skippingWhitespace(from: index)
        if scalar(at: following) == "(" {
            if !prefixed && ["comment", "text", "processing-instruction", "node"].contains(name) {
                return .nodeType(name)
            }
            return .functionName(qualifiedName)
        }
        if !prefixed && scalar(at: following) == ":" && scalar(at: following + 1) == ":" {
            return .axisName(name)
        }
        return .nameTest(qualifiedName)
    }
}

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
