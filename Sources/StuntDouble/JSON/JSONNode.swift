import Foundation

/// A JSON value as written: each value and key with its byte offset in the text, object members in the
/// order written, a key written twice kept twice. What stub files are read into, so that every diagnostic can
/// name its line and column, and what ``JSONValue`` is made from.
package struct JSONNode: Sendable {
    /// What the node holds.
    package enum Kind: Sendable {
        case null
        case bool(Bool)
        case number(JSONNumber)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    /// An object member.
    package struct Member: Sendable {
        package let key: String
        /// Where the key starts in the text (its opening quote).
        package let keyOffset: Int
        package let value: JSONNode

        package init(key: String, keyOffset: Int = 0, value: JSONNode) {
            self.key = key
            self.keyOffset = keyOffset
            self.value = value
        }
    }

    package let kind: Kind
    /// Where the value starts in the text.
    package let offset: Int

    package init(kind: Kind, offset: Int = 0) {
        self.kind = kind
        self.offset = offset
    }

    /// Parses JSON text (RFC 8259), or throws with the byte offset of the problem.
    package static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONNode {
        try JSONParser(bytes: bytes, options: .strict).parseDocument().value
    }

    /// The members of an object, or `nil`.
    package var members: [Member]? {
        if case .object(let members) = kind { members } else { nil }
    }

    /// The members of an object as a reader that lets the last duplicate win sees them (Jackson, WireMock):
    /// one per key, where the key was first written, with its last value; `nil` for other values.
    package var distinctMembers: [(key: String, value: JSONNode)]? {
        guard case .object(let members) = kind else { return nil }
        var order: [String] = []
        var last: [String: JSONNode] = [:]
        for member in members {
            if last.updateValue(member.value, forKey: member.key) == nil { order.append(member.key) }
        }
        return order.map { ($0, last[$0] ?? .null) }
    }

    /// The items of an array, or `nil`.
    package var items: [JSONNode]? {
        if case .array(let items) = kind { items } else { nil }
    }

    /// The string, or `nil`.
    package var string: String? {
        if case .string(let string) = kind { string } else { nil }
    }

    /// The value, when the node is `true` or `false`.
    package var bool: Bool? {
        if case .bool(let flag) = kind { flag } else { nil }
    }

    /// The last member with a key (as JSON readers that let the last duplicate win do), or `nil`.
    package subscript(key: String) -> JSONNode? {
        members?.last { $0.key == key }?.value
    }

    /// The kind of value, as a diagnostic names it: `a string`, `an object`.
    package var kindName: String {
        switch kind {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Why JSON text did not parse.
package struct JSONParseError: Error, CustomStringConvertible {
    package let offset: Int
    package let reason: String

    package var description: String { "\(reason) at byte \(offset)" }
}

/// Where a byte offset lies in a text, as editors count: lines and columns from 1, columns in UTF-8 bytes
/// (as compilers report them).
package struct TextPosition: Hashable, Sendable, Comparable, CustomStringConvertible {
    package let line: Int
    package let column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    package var description: String { "\(line):\(column)" }

    package static func < (lhs: TextPosition, rhs: TextPosition) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// The offsets at which a text's lines start, to turn byte offsets into positions.
package struct LineTable: Sendable {
    private let starts: [Int]

    package init(_ bytes: [UInt8]) {
        var starts = [0]
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            starts.append(index + 1)
        }
        self.starts = starts
    }

    /// The position of a byte offset.
    package func position(of offset: Int) -> TextPosition {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset {
                low = middle
            } else {
                high = middle - 1
            }
        }
        return TextPosition(line: low + 1, column: max(offset, 0) - starts[low] + 1)
    }
}

// MARK: - Writing

extension JSONNode {
    /// A string value.
    package static func string(_ text: String) -> JSONNode { JSONNode(kind: .string(text)) }
    /// A whole-number value.
    package static func number(_ value: Int) -> JSONNode { JSONNode(kind: .number(JSONNumber(text: String(value)))) }
    /// A number value, as written.
    package static func number(text: String) -> JSONNode { JSONNode(kind: .number(JSONNumber(text: text))) }
    /// A boolean value.
    package static func bool(_ value: Bool) -> JSONNode { JSONNode(kind: .bool(value)) }
    /// `null`.
    package static let null = JSONNode(kind: .null)
    /// An array.
    package static func array(_ items: [JSONNode]) -> JSONNode { JSONNode(kind: .array(items)) }
    /// An object, members in order.
    package static func object(_ members: [(String, JSONNode)]) -> JSONNode {
        JSONNode(kind: .object(members.map { Member(key: $0.0, value: $0.1) }))
    }
    /// A string as JSON text, quoted and escaped.
    package static func quoted(_ text: String) -> String {
        var output = ""
        JSONWriter.appendQuoted(text, to: &output)
        return output
    }
    /// A string, or `null` for `nil`.
    package static func string(orNull text: String?) -> JSONNode { text.map(string) ?? .null }

    /// The object with a member set: replaced where it is, or added at the front (or the end).
    package func setting(_ key: String, to value: JSONNode, atFront: Bool = true) -> JSONNode {
        guard let members else { return self }
        if members.contains(where: { $0.key == key }) {
            return JSONNode(
                kind: .object(members.map { $0.key == key ? Member(key: key, value: value) : $0 }), offset: offset)
        }
        let member = Member(key: key, value: value)
        return JSONNode(kind: .object(atFront ? [member] + members : members + [member]), offset: offset)
    }

    /// The object without a member.
    package func removing(_ key: String) -> JSONNode {
        guard let members else { return self }
        return JSONNode(kind: .object(members.filter { $0.key != key }), offset: offset)
    }

    /// The value as JSON text (`JSONWriter`): compact, or pretty (two spaces, as WireMock writes files); object
    /// members in their order, or sorted by key; numbers as written, or as Java prints them. Of members written
    /// twice, the last is written, where the first was.
    package func rendered(pretty: Bool = false, sortedKeys: Bool = false, numbers: JSONWriter.Numbers = .asWritten)
        -> String
    {
        JSONWriter.text(of: self, pretty: pretty, sortedKeys: sortedKeys, numbers: numbers)
    }

    /// Parses JSON as WireMock reads it (comments, single quotes), or `nil`.
    package static func parse(lenient data: Data) -> JSONNode? {
        let parser = JSONParser(bytes: Array(data), options: .wireMock)
        guard let (node, trailing) = try? parser.parseDocument(), trailing == nil else { return nil }
        return node
    }
}

extension JSONNode: JSONWritable {
    /// Of members written twice, the last, where the first was.
    package var jsonShape: JSONShape<JSONNode> {
        switch kind {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let number): return .number(number.text)
        case .string(let text): return .string(text)
        case .array(let items): return .array(items)
        case .object: return .object((distinctMembers ?? []).map { ($0.key, $0.value) })
        }
    }
}
