/// A URI template (RFC 6570, levels 1 to 4) that can be expanded into a URI and matched against one.
///
/// ```swift
/// let template = try URITemplate("https://api.example.com/users/{id}{?fields*}")
/// template.expand(["id": "42"])                     // "https://api.example.com/users/42"
/// template.match("https://api.example.com/users/42") // ["id": "42"]
/// ```
///
/// Matching reverses expansion: it returns variables that expand back into the matched string. Where a string
/// could come from more than one set of variables, matching prefers the first (leftmost) variables taking as
/// much as they can. Two rules make templates useful as request patterns:
/// - a `{name}` or `{+name}` expression matches at least one character (so `/users/{id}` does not match
///   `/users/`); expressions with an operator (`{/name}`, `{?name}` ...) may match nothing, as when their
///   variables are undefined;
/// - matched values are percent-decoded.
public struct URITemplate: Hashable, Sendable, CustomStringConvertible {
    /// The template as written.
    public let template: String
    let parts: [Part]

    /// Parses a template.
    /// - Parameter template: The template, such as `"/repos/{owner}/{repo}"`.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/invalidURITemplate`` naming the problem
    ///   and its offset.
    public init(_ template: String) throws(HTTPStubberError) {
        self.template = template
        self.parts = try Parser(template).parse()
    }

    /// The template as written.
    public var description: String { template }

    /// The names of the template's variables, in order of first appearance.
    public var variableNames: [String] {
        var seen: Set<String> = []
        var names: [String] = []
        for case .expression(let expression) in parts {
            for variable in expression.variables where seen.insert(variable.name).inserted {
                names.append(variable.name)
            }
        }
        return names
    }

    /// Compares templates by their text.
    /// - Parameters:
    ///   - lhs: A template.
    ///   - rhs: Another template.
    /// - Returns: Whether the texts are equal.
    public static func == (lhs: URITemplate, rhs: URITemplate) -> Bool {
        lhs.template == rhs.template
    }

    /// Hashes the template's text.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(template)
    }
}

extension URITemplate {
    /// The value of a template variable: a string, a list, or an associative array of key-value pairs.
    public enum Value: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
        CustomStringConvertible
    {
        /// A string.
        case string(String)
        /// A list of strings.
        case list([String])
        /// Key-value pairs, in order.
        case associative([KeyValue])

        /// Creates a string value.
        /// - Parameter value: The string.
        public init(stringLiteral value: String) {
            self = .string(value)
        }

        /// Creates a list value.
        /// - Parameter elements: The list's strings.
        public init(arrayLiteral elements: String...) {
            self = .list(elements)
        }

        /// The value as one string: a string as is, a list's items joined with commas, pairs as
        /// `key,value,key,value` (the unexploded expansion without encoding).
        public var description: String {
            switch self {
            case .string(let string): string
            case .list(let items): items.joined(separator: ",")
            case .associative(let pairs): pairs.flatMap { [$0.key, $0.value] }.joined(separator: ",")
            }
        }

        /// The string, or `nil` when the value is a list or pairs.
        public var string: String? {
            if case .string(let string) = self { string } else { nil }
        }

        /// The items: a list's items, or a string as a one-item list; `nil` for pairs.
        public var list: [String]? {
            switch self {
            case .string(let string): [string]
            case .list(let items): items
            case .associative: nil
            }
        }
    }

    /// One key-value pair of an associative value.
    public struct KeyValue: Hashable, Sendable {
        /// The key.
        public var key: String
        /// The value.
        public var value: String

        /// Creates a pair.
        /// - Parameters:
        ///   - key: The key.
        ///   - value: The value.
        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }
}

// MARK: - Model

extension URITemplate {
    enum Part: Hashable, Sendable {
        case literal(String)
        case expression(Expression)
    }

    struct Expression: Hashable, Sendable {
        var op: Operator
        var variables: [Variable]
    }

    struct Variable: Hashable, Sendable {
        var name: String
        var explode: Bool
        var prefix: Int?
    }

    /// The operators of RFC 6570, with the expansion table of its appendix A.
    enum Operator: String, Hashable, Sendable {
        case simple = ""
        case reserved = "+"
        case fragment = "#"
        case label = "."
        case pathSegment = "/"
        case pathParameter = ";"
        case query = "?"
        case queryContinuation = "&"

        /// The operator a character opens an expression with (`{+var}`), or `nil` for none.
        init?(_ character: Character) {
            self.init(rawValue: String(character))
        }

        /// What the expansion starts with: the operator itself, except for `+`.
        var first: String {
            self == .reserved ? "" : rawValue
        }

        var separator: String {
            switch self {
            case .simple, .reserved, .fragment: ","
            case .label: "."
            case .pathSegment: "/"
            case .pathParameter: ";"
            case .query, .queryContinuation: "&"
            }
        }

        var isNamed: Bool {
            switch self {
            case .pathParameter, .query, .queryContinuation: true
            default: false
            }
        }

        var ifEmpty: String {
            switch self {
            case .query, .queryContinuation: "="
            default: ""
            }
        }

        var allowsReserved: Bool {
            self == .reserved || self == .fragment
        }

        var isQuery: Bool {
            self == .query || self == .queryContinuation
        }
    }
}

// MARK: - Parsing

extension URITemplate {
    private struct Parser {
        let text: String
        let characters: [Character]

        init(_ text: String) {
            self.text = text
            self.characters = Array(text)
        }

        func parse() throws(HTTPStubberError) -> [Part] {
            var parts: [Part] = []
            var literal = ""
            var index = 0
            while index < characters.count {
                let character = characters[index]
                switch character {
                case "{":
                    if !literal.isEmpty {
                        parts.append(.literal(literal))
                        literal = ""
                    }
                    guard let close = characters[index...].firstIndex(of: "}") else {
                        throw problem("the expression at offset \(index) is not closed; add a '}'")
                    }
                    if let nested = characters[(index + 1)..<close].firstIndex(of: "{") {
                        throw problem("'{' at offset \(nested) opens an expression inside another; close the first")
                    }
                    parts.append(.expression(try expression(from: index + 1, to: close)))
                    index = close + 1
                case "}":
                    throw problem("'}' at offset \(index) closes no expression; remove it or add a '{' before it")
                case "%":
                    guard index + 2 < characters.count, Self.isASCIIHex(characters[index + 1]),
                        Self.isASCIIHex(characters[index + 2])
                    else {
                        throw problem("'%' at offset \(index) must start a percent-encoded byte such as %20")
                    }
                    literal += String(characters[index...(index + 2)]).uppercased()
                    index += 3
                default:
                    if let reason = Self.invalidLiteral(character) {
                        throw problem("\(reason) at offset \(index) is not allowed in a URI; percent-encode it")
                    }
                    if character.isASCII {
                        literal.append(character)
                    } else {
                        literal += PercentEncoding.encode(String(character), allowReserved: false)
                    }
                    index += 1
                }
            }
            if !literal.isEmpty {
                parts.append(.literal(literal))
            }
            return parts
        }

        private func expression(from start: Int, to end: Int) throws(HTTPStubberError) -> Expression {
            guard start < end else {
                throw problem("the expression at offset \(start - 1) is empty; name a variable, as in {id}")
            }
            var index = start
            var op = Operator.simple
            if let found = Operator(characters[index]) {
                op = found
                index += 1
            } else if "=,!@|".contains(characters[index]) {
                throw problem(
                    "operator '\(characters[index])' at offset \(index) is reserved by RFC 6570 and has no meaning"
                )
            }
            var variables: [Variable] = []
            for spec in characters[index..<end].split(separator: ",", omittingEmptySubsequences: false) {
                variables.append(try variable(spec, offset: spec.startIndex))
            }
            return Expression(op: op, variables: variables)
        }

        private func variable(_ spec: ArraySlice<Character>, offset: Int) throws(HTTPStubberError) -> Variable {
            var name = spec[...]
            var explode = false
            var prefix: Int?
            if name.last == "*" {
                explode = true
                name = name.dropLast()
            } else if let colon = name.firstIndex(of: ":") {
                let digits = String(name[(colon + 1)...])
                guard let length = Int(digits), (1...9999).contains(length), !digits.hasPrefix("0") else {
                    throw problem("prefix ':\(digits)' at offset \(colon) must be a length from 1 to 9999")
                }
                prefix = length
                name = name[..<colon]
            }
            let text = String(name)
            guard Self.isValidName(name) else {
                let shown = text.isEmpty ? "an empty name" : "'\(text)'"
                throw problem(
                    "\(shown) at offset \(offset) is not a variable name; use letters, digits, '_' and inner '.'"
                )
            }
            return Variable(name: text, explode: explode, prefix: prefix)
        }

        private static func isValidName(_ name: ArraySlice<Character>) -> Bool {
            guard let first = name.first, let last = name.last, first != ".", last != "." else { return false }
            var previous: Character = " "
            var index = name.startIndex
            while index < name.endIndex {
                let character = name[index]
                if character == "%" {
                    guard index + 2 < name.endIndex, isASCIIHex(name[index + 1]), isASCIIHex(name[index + 2]) else {
                        return false
                    }
                    index += 3
                    previous = "%"
                    continue
                }
                let allowed = (character.isASCII && (character.isLetter || character.isNumber)) || character == "_"
                if !(allowed || (character == "." && previous != ".")) {
                    return false
                }
                previous = character
                index += 1
            }
            return true
        }

        private static func isASCIIHex(_ character: Character) -> Bool {
            character.isASCII && character.isHexDigit
        }

        private static func invalidLiteral(_ character: Character) -> String? {
            switch character {
            case " ": "a space"
            case "\"", "<", ">", "\\", "^", "`", "|": "'\(character)'"
            default:
                if let scalar = character.unicodeScalars.first, scalar.value < 0x20 || scalar.value == 0x7F {
                    "a control character"
                } else {
                    nil
                }
            }
        }

        private func problem(_ reason: String) -> HTTPStubberError {
            HTTPStubberError(code: .invalidURITemplate, message: "Invalid URI template \"\(text)\": \(reason).")
        }
    }
}
