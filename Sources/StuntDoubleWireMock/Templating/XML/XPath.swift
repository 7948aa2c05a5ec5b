import StuntDouble

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
