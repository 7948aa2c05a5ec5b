import StuntDouble

/// XPath 1.0's core function library.
enum XPathFunction: String, Sendable {
    case last, position, count, id
    case localName = "local-name"
    case namespaceURI = "namespace-uri"
    case name, string, concat
    case startsWith = "starts-with"
    case contains
    case substringBefore = "substring-before"
    case substringAfter = "substring-after"
    case substring
    case stringLength = "string-length"
    case normalizeSpace = "normalize-space"
    case translate, boolean, not, `true`, `false`, lang, number, sum, floor, ceiling, round

    /// How many arguments the function takes.
    var arity: ClosedRange<Int> {
        switch self {
        case .last, .position, .true, .false: 0...0
        case .count, .id, .not, .boolean, .lang, .sum, .floor, .ceiling, .round: 1...1
        case .localName, .namespaceURI, .name, .string, .stringLength, .normalizeSpace, .number: 0...1
        case .concat: 2...Int.max
        case .startsWith, .contains, .substringBefore, .substringAfter: 2...2
        case .substring: 2...3
        case .translate: 3...3
        }
    }

    /// Whether the (first) argument must be a node-set.
    var takesNodeSet: Bool {
        switch self {
        case .count, .sum, .localName, .namespaceURI, .name: true
        default: false
        }
    }

    /// The type of what the function returns.
    var resultType: XPathType {
        switch self {
        case .last, .position, .count, .stringLength, .number, .sum, .floor, .ceiling, .round: .number
        case .id: .nodes
        case .boolean, .not, .true, .false, .lang, .startsWith, .contains: .boolean
        default: .string
        }
    }
}

extension XPathEvaluator {
    /// Calls a function of the core library (its arguments' number and types were checked when parsing).
    func call(_ function: XPathFunction, _ arguments: [XPathSyntax], _ context: XPathContext) -> Value {
        /// The argument at an index, evaluated.
        func argument(_ index: Int) -> Value { value(of: arguments[index], context) }
        func stringArgument(_ index: Int) -> String { string(argument(index)) }
        /// The first argument as a string, or the context node's string-value without one.
        func stringOrContext() -> String {
            arguments.isEmpty ? tree.textContent(of: XMLNodeID(index: Int(context.node))) : stringArgument(0)
        }
        /// The first node of the argument, or the context node without one.
        func nodeOrContext() -> Int? {
            arguments.isEmpty ? Int(context.node) : nodes(argument(0)).first.map(Int.init)
        }

        switch function {
        case .last: return .number(Double(context.size))
        case .position: return .number(Double(context.position))
        case .count: return .number(Double(nodes(argument(0)).count))
        case .id: return .nodes([])
        case .localName:
            guard let node = nodeOrContext(), tree.nameIDs[node] >= 0 else { return .string("") }
            return .string(tree.localName(of: XMLNodeID(index: node)))
        case .name:
            guard let node = nodeOrContext(), tree.nameIDs[node] >= 0 else { return .string("") }
            return .string(tree.name(of: XMLNodeID(index: node)))
        case .namespaceURI:
            // JAXP on a DOM parsed without namespace processing sees no namespaces.
            return .string("")
        case .string: return .string(stringOrContext())
        case .concat: return .string(arguments.indices.map(stringArgument).joined())
        case .startsWith: return .boolean(stringArgument(0).utf8.starts(with: stringArgument(1).utf8))
        case .contains:
            let needle = stringArgument(1)
            return .boolean(Self.firstOccurrence(of: needle, in: stringArgument(0)) != nil)
        case .substringBefore:
            let text = stringArgument(0)
            guard let range = Self.firstOccurrence(of: stringArgument(1), in: text) else { return .string("") }
            return .string(String(text[..<range.lowerBound]))
        case .substringAfter:
            let text = stringArgument(0)
            guard let range = Self.firstOccurrence(of: stringArgument(1), in: text) else { return .string("") }
            return .string(String(text[range.upperBound...]))
        case .substring:
            let text = stringArgument(0)
            let start = number(argument(1))
            let length = arguments.count > 2 ? number(argument(2)) : nil
            return .string(Self.substring(text, start: start, length: length))
        case .stringLength: return .number(Double(stringOrContext().utf16.count))
        case .normalizeSpace:
            let words = stringOrContext().unicodeScalars.split { XPathLexer.isWhitespace($0) }
            return .string(words.map { String(String.UnicodeScalarView($0)) }.joined(separator: " "))
        case .translate:
            return .string(Self.translate(stringArgument(0), from: stringArgument(1), to: stringArgument(2)))
        case .boolean: return .boolean(boolean(argument(0)))
        case .not: return .boolean(!boolean(argument(0)))
        case .true: return .boolean(true)
        case .false: return .boolean(false)
        case .lang:
            // JAXP on a DOM parsed without namespace processing does not see `xml:lang` as the XML namespace's.
            _ = stringArgument(0)
            return .boolean(false)
        case .number:
            return .number(arguments.isEmpty ? XPathValue.number(from: stringOrContext()) : number(argument(0)))
        case .sum:
            return .number(
                nodes(argument(0)).reduce(0) {
                    $0 + XPathValue.number(from: tree.textContent(of: XMLNodeID(index: Int($1))))
                })
        case .floor: return .number(number(argument(0)).rounded(.down))
        case .ceiling: return .number(number(argument(0)).rounded(.up))
        case .round: return .number(Self.round(number(argument(0))))
        }
    }

    /// Where a string first occurs in another, compared by code points (an empty string occurs at the start).
    static func firstOccurrence(of needle: String, in text: String) -> Range<String.Index>? {
        let needleBytes = Array(needle.utf8)
        guard let first = needleBytes.first else { return text.startIndex..<text.startIndex }
        let bytes = text.utf8
        var start = bytes.startIndex
        while let candidate = bytes[start...].firstIndex(of: first) {
            if bytes[candidate...].starts(with: needleBytes) {
                return candidate..<bytes.index(candidate, offsetBy: needleBytes.count)
            }
            start = bytes.index(after: candidate)
        }
        return nil
    }

    /// XPath's `substring()` as Xalan computes it: the characters at positions from `round(start)` for
    /// `round(length)` (to the end without one), positions counting UTF-16 code units from 1 as Java counts them
    /// (half a surrogate pair becomes U+FFFD). As in XPath, but for one case: a NaN start without a length gives
    /// the whole string (XPath says none of it). Where Xalan fails (an end before the start), nothing.
    static func substring(_ text: String, start: Double, length: Double?) -> String {
        let units = Array(text.utf16)
        guard !units.isEmpty else { return "" }
        var start = start
        var startIndex: Int
        if start.isNaN {
            start = -1_000_000
            startIndex = 0
        } else {
            start = javaRound(start)
            startIndex = start > 0 ? javaInt(start) - 1 : 0
        }
        startIndex = min(startIndex, units.count)
        var endIndex = units.count
        if let length {
            endIndex = min(max(javaInt(javaRound(length) + start) - 1, 0), units.count)
        }
        guard startIndex < endIndex else { return "" }
        return String(decoding: units[startIndex..<endIndex], as: UTF16.self)
    }

    /// Java's `Math.round(double)` (as a double): halves up, NaN as 0, clamped to a `long`.
    static func javaRound(_ number: Double) -> Double {
        guard !number.isNaN else { return 0 }
        return min(max(round(number), Double(Int64.min)), Double(Int64.max))
    }

    /// Java's `(int)` of a double: towards zero, NaN as 0, clamped to an `int`.
    static func javaInt(_ number: Double) -> Int {
        guard !number.isNaN else { return 0 }
        return Int(min(max(number, Double(Int32.min)), Double(Int32.max)).rounded(.towardZero))
    }

    /// XPath's `translate()`: each character of `from` replaced by the one at its position in `to`, or removed.
    static func translate(_ text: String, from: String, to: String) -> String {
        var map: [Unicode.Scalar: Unicode.Scalar?] = [:]
        let replacements = Array(to.unicodeScalars)
        for (offset, scalar) in from.unicodeScalars.enumerated() where map[scalar] == nil {
            map[scalar] = offset < replacements.count ? .some(replacements[offset]) : .some(nil)
        }
        var result = ""
        for scalar in text.unicodeScalars {
            if let replacement = map[scalar] {
                if let replacement { result.unicodeScalars.append(replacement) }
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// XPath's `round()`: the nearest integer, halves rounded up (`-0.5` to `-0`).
    static func round(_ number: Double) -> Double {
        guard number.isFinite else { return number }
        let floor = number.rounded(.down)
        let rounded = number - floor >= 0.5 ? floor + 1 : floor
        return rounded == 0 && number < 0 ? -0.0 : rounded
    }

    // MARK: - Conversions

    /// XPath's `string()`.
    func string(_ value: Value) -> String {
        switch value {
        case .nodes(let nodes): nodes.first.map { tree.textContent(of: XMLNodeID(index: Int($0))) } ?? ""
        case .string(let text): text
        case .number(let number): XPathValue.format(number)
        case .boolean(let boolean): boolean ? "true" : "false"
        }
    }

    /// XPath's `number()`.
    func number(_ value: Value) -> Double {
        switch value {
        case .nodes: XPathValue.number(from: string(value))
        case .string(let text): XPathValue.number(from: text)
        case .number(let number): number
        case .boolean(let boolean): boolean ? 1 : 0
        }
    }

    /// XPath's `boolean()`.
    func boolean(_ value: Value) -> Bool {
        switch value {
        case .nodes(let nodes): !nodes.isEmpty
        case .string(let text): !text.isEmpty
        case .number(let number): number != 0 && !number.isNaN
        case .boolean(let boolean): boolean
        }
    }

    // MARK: - Comparisons

    /// XPath 1.0's comparison of two values (section 3.4): node-sets compare by any of their nodes'
    /// string-values (as numbers for `<`, `<=`, `>`, `>=`, or against a number), a node-set with a boolean as a
    /// boolean; otherwise `=` and `!=` compare as booleans if either is one, then as numbers, then as strings,
    /// and the others compare as numbers.
    func compare(_ left: Value, _ comparison: XPathComparison, _ right: Value) -> Bool {
        switch (left, right) {
        case (.nodes(let leftNodes), .nodes(let rightNodes)):
            return compare(leftNodes, comparison, rightNodes)
        case (.nodes(let nodes), _):
            return compare(nodes, comparison, right)
        case (_, .nodes(let nodes)):
            return compare(nodes, comparison.swapped, left)
        default:
            return compareAtomic(left, comparison, right)
        }
    }

    /// A node-set compared with a value that is not one: true if any node's string-value (or number, against a
    /// number) compares so, or, against a boolean, if the node-set as a boolean does.
    func compare(_ nodes: [Int32], _ comparison: XPathComparison, _ other: Value) -> Bool {
        if case .boolean = other { return compareAtomic(.boolean(!nodes.isEmpty), comparison, other) }
        return nodes.contains { node in
            let text = tree.textContent(of: XMLNodeID(index: Int(node)))
            if case .number = other { return compareAtomic(.number(XPathValue.number(from: text)), comparison, other) }
            return compareAtomic(.string(text), comparison, other)
        }
    }

    /// Two node-sets compared: true if a node of each compares so (by string-values for `=` and `!=`, by
    /// numbers otherwise), in time linear in their sizes.
    func compare(_ left: [Int32], _ comparison: XPathComparison, _ right: [Int32]) -> Bool {
        guard !left.isEmpty, !right.isEmpty else { return false }
        func strings(_ nodes: [Int32]) -> [String] { nodes.map { tree.textContent(of: XMLNodeID(index: Int($0))) } }
        switch comparison {
        case .equal:
            let rightStrings = Set(strings(right).map(ExactString.init))
            return strings(left).contains { rightStrings.contains(ExactString($0)) }
        case .notEqual:
            let leftStrings = Set(strings(left).map(ExactString.init))
            if leftStrings.count > 1 { return true }
            let only = leftStrings.first!
            return strings(right).contains { ExactString($0) != only }
        default:
            func numbers(_ nodes: [Int32]) -> [Double] {
                strings(nodes).map(XPathValue.number(from:)).filter { !$0.isNaN }
            }
            let leftNumbers = numbers(left)
            let rightNumbers = numbers(right)
            guard let leftMinimum = leftNumbers.min(), let leftMaximum = leftNumbers.max(),
                let rightMinimum = rightNumbers.min(), let rightMaximum = rightNumbers.max()
            else { return false }
            switch comparison {
            case .less: return leftMinimum < rightMaximum
            case .lessOrEqual: return leftMinimum <= rightMaximum
            case .greater: return leftMaximum > rightMinimum
            default: return leftMaximum >= rightMinimum
            }
        }
    }

    /// Two values that are not node-sets compared.
    func compareAtomic(_ left: Value, _ comparison: XPathComparison, _ right: Value) -> Bool {
        switch comparison {
        case .equal, .notEqual:
            let equal: Bool
            switch (left, right) {
            case (.boolean, _), (_, .boolean): equal = boolean(left) == boolean(right)
            case (.number, _), (_, .number): equal = number(left) == number(right)
            default: equal = string(left).utf8.elementsEqual(string(right).utf8)
            }
            if comparison == .equal { return equal }
            // NaN is unequal to everything, itself included.
            if case .boolean = left { return !equal }
            if case .boolean = right { return !equal }
            if case .number = left { return number(left) != number(right) }
            if case .number = right { return number(left) != number(right) }
            return !equal
        case .less: return number(left) < number(right)
        case .lessOrEqual: return number(left) <= number(right)
        case .greater: return number(left) > number(right)
        case .greaterOrEqual: return number(left) >= number(right)
        }
    }
}

/// A string compared and hashed by its code points (Swift's `String` compares canonically equivalent strings
/// as equal; XPath, as Java, does not).
struct ExactString: Hashable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (left: ExactString, right: ExactString) -> Bool { left.text.utf8.elementsEqual(right.text.utf8) }

    func hash(into hasher: inout Hasher) {
        hasher.combine(text.utf8.count)
        for byte in text.utf8 { hasher.combine(byte) }
    }
}

// MARK: - Values

extension XPathValue {
    /// The value as XPath's `string()` converts it: a node-set as its first node's string-value (see
    /// ``XMLTree/textContent(of:)``), a number as ``format(_:)`` writes it, a boolean as `true` or `false`.
    func string(in tree: XMLTree) -> String {
        switch self {
        case .nodes(let nodes): nodes.first.map(tree.textContent(of:)) ?? ""
        case .string(let text): text
        case .number(let number): Self.format(number)
        case .boolean(let boolean): boolean ? "true" : "false"
        }
    }

    /// The value as XPath's `number()` converts it.
    func number(in tree: XMLTree) -> Double {
        switch self {
        case .number(let number): number
        case .boolean(let boolean): boolean ? 1 : 0
        default: Self.number(from: string(in: tree))
        }
    }

    /// The value as XPath's `boolean()` converts it.
    var boolean: Bool {
        switch self {
        case .nodes(let nodes): !nodes.isEmpty
        case .string(let text): !text.isEmpty
        case .number(let number): number != 0 && !number.isNaN
        case .boolean(let boolean): boolean
        }
    }

    /// A number as XPath (and Java's XPath) writes it: an integer without a decimal point (`2`, `-0` as `0`),
    /// others in plain decimal notation with as few digits as tell it apart (`0.1`, `0.0000001`, never an
    /// exponent), `NaN`, `Infinity` and `-Infinity`.
    static func format(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        if number == 0 { return "0" }
        // The shortest digits that read back as the number, from Swift's description ("1.5e-07", "12.5").
        let description = "\(number.magnitude)"
        let parts = description.split(separator: "e", maxSplits: 1)
        let exponent = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        let mantissa = Array(parts[0].utf8)
        var digits = mantissa.filter { $0 != UInt8(ascii: ".") }
        // Where the decimal point goes: after this many digits.
        var point = (mantissa.firstIndex(of: UInt8(ascii: ".")) ?? mantissa.count) + exponent
        while digits.first == UInt8(ascii: "0") && digits.count > 1 {
            digits.removeFirst()
            point -= 1
        }
        while digits.last == UInt8(ascii: "0") && digits.count > 1 { digits.removeLast() }
        var result = number < 0 ? "-" : ""
        if point <= 0 {
            result += "0." + String(repeating: "0", count: -point) + String(decoding: digits, as: UTF8.self)
        } else if point >= digits.count {
            result += String(decoding: digits, as: UTF8.self) + String(repeating: "0", count: point - digits.count)
        } else {
            result +=
                String(decoding: digits[..<point], as: UTF8.self) + "."
                + String(decoding: digits[point...], as: UTF8.self)
        }
        return result
    }

    /// A string as XPath's `number()` reads it: optional whitespace, an optional minus, digits with an optional
    /// decimal point (`12`, `1.5`, `.5`, `5.`), optional whitespace; anything else (`+1`, `1e3`, `""`) is NaN.
    static func number(from text: String) -> Double {
        var bytes = text.utf8[...]
        let isWhitespace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        while let first = bytes.first, isWhitespace(first) { bytes = bytes.dropFirst() }
        while let last = bytes.last, isWhitespace(last) { bytes = bytes.dropLast() }
        var literal = ""
        if bytes.first == UInt8(ascii: "-") {
            literal = "-"
            bytes = bytes.dropFirst()
        }
        var digits = 0
        var points = 0
        for byte in bytes {
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                digits += 1
            } else if byte == UInt8(ascii: ".") {
                points += 1
            } else {
                return .nan
            }
        }
        guard digits > 0, points <= 1 else { return .nan }
        literal += "0" + String(decoding: bytes, as: UTF8.self)
        if literal.hasSuffix(".") { literal += "0" }
        return Double(literal) ?? .nan
    }
}
