import Foundation
import StuntDouble

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
