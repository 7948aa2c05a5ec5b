/// A JSON value one level at a time, as `JSONWriter` walks it: the package's trees of JSON (``JSONNode``,
/// ``JSONValue``, OpenAPI's schema values) each say what they are, and the writer writes them all alike.
package enum JSONShape<Tree> {
    case null
    case bool(Bool)
    /// A number, as JSON text.
    case number(String)
    case string(String)
    case array([Tree])
    /// Members in the order to write them (each key once).
    case object([(String, Tree)])
}

/// A tree of JSON that `JSONWriter` writes.
package protocol JSONWritable {
    /// What the value is, one level down.
    var jsonShape: JSONShape<Self> { get }
}

/// Writes JSON text: the one writer behind every JSON the package writes (stub files and recordings, the admin
/// API's answers, `jsonBody`s as WireMock writes them, values generated from OpenAPI schemas). It decides the
/// text: escaping, separators, the order of members, how numbers are spelled, and the layout of pretty text (two
/// spaces, as WireMock writes files).
package struct JSONWriter {
    /// How numbers are written.
    package enum Numbers: Sendable {
        /// As they were written (`2.50` stays `2.50`).
        case asWritten
        /// As Java prints them, as WireMock writes a `jsonBody` (`2.50` is `2.5`, `1e2` is `100.0`).
        case java
    }

    /// The text written so far.
    package private(set) var text = ""
    private let pretty: Bool
    private let sortsKeys: Bool
    private let numbers: Numbers
    private var depth = 0
    /// Whether the container being written has no value yet.
    private var isEmpty = true
    /// Whether a member's key has been written and its value is next.
    private var afterKey = false

    /// - Parameters:
    ///   - pretty: Whether to write a value a line, indented two spaces a level; compact otherwise.
    ///   - sortedKeys: Whether `write(_:)` writes an object's members sorted by key, or in their order.
    ///   - numbers: How numbers are written.
    package init(pretty: Bool = false, sortedKeys: Bool = false, numbers: Numbers = .asWritten) {
        self.pretty = pretty
        sortsKeys = sortedKeys
        self.numbers = numbers
    }

    /// The text of a whole value.
    package static func text<Tree: JSONWritable>(
        of tree: Tree, pretty: Bool = false, sortedKeys: Bool = false, numbers: Numbers = .asWritten
    ) -> String {
        var writer = JSONWriter(pretty: pretty, sortedKeys: sortedKeys, numbers: numbers)
        writer.write(tree)
        return writer.text
    }

    /// Writes a value and everything in it.
    package mutating func write<Tree: JSONWritable>(_ tree: Tree) {
        switch tree.jsonShape {
        case .null: null()
        case .bool(let value): bool(value)
        case .number(let text): number(text)
        case .string(let value): string(value)
        case .array(let items):
            beginArray()
            for item in items { write(item) }
            endArray()
        case .object(let members):
            beginObject()
            for (name, value) in sortsKeys ? members.sorted(by: { $0.0 < $1.0 }) : members {
                key(name)
                write(value)
            }
            endObject()
        }
    }

    package mutating func null() {
        separate()
        text += "null"
    }

    package mutating func bool(_ value: Bool) {
        separate()
        text += value ? "true" : "false"
    }

    /// A number, from its JSON text.
    package mutating func number(_ numberText: String) {
        separate()
        switch numbers {
        case .asWritten: text += numberText
        case .java: text += JSONComparison.javaNumber(numberText)
        }
    }

    package mutating func string(_ value: String) {
        separate()
        Self.appendQuoted(value, to: &text)
    }

    package mutating func beginArray() {
        open("[")
    }

    package mutating func endArray() {
        close("]")
    }

    package mutating func beginObject() {
        open("{")
    }

    /// A member's key; its value is what is written next.
    package mutating func key(_ name: String) {
        separate()
        Self.appendQuoted(name, to: &text)
        text += pretty ? ": " : ":"
        afterKey = true
    }

    package mutating func endObject() {
        close("}")
    }

    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard depth > 0 else { return }
        if !isEmpty { text += "," }
        isEmpty = false
        if pretty { newline() }
    }

    private mutating func open(_ bracket: String) {
        separate()
        text += bracket
        depth += 1
        isEmpty = true
    }

    private mutating func close(_ bracket: String) {
        depth -= 1
        if !isEmpty, pretty { newline() }
        text += bracket
        isEmpty = false
    }

    private mutating func newline() {
        text += "\n"
        text += String(repeating: "  ", count: depth)
    }

    /// A string as JSON text, quoted: `"` and `\` escaped, control characters as `\n`, `\r`, `\t` or `\u00XX`,
    /// everything else as it is (UTF-8, not `\u` escapes).
    package static func appendQuoted(_ string: String, to output: inout String) {
        output += "\""
        var needsEscapes = false
        for byte in string.utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            needsEscapes = true
            break
        }
        guard needsEscapes else {
            output += string
            output += "\""
            return
        }
        let hex: [Character] = Array("0123456789abcdef")
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                output += "\\u00"
                output.append(hex[Int(scalar.value >> 4)])
                output.append(hex[Int(scalar.value & 0xF)])
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
