/// A JSON value as written: each value and key with its byte offset in the text, object members in the
/// order written, a key written twice kept twice. What stub files are read into, so that every diagnostic can
/// name its line and column, and what ``JSONValue`` is made from.
struct JSONNode: Sendable {
    /// What the node holds.
    indirect enum Kind: Sendable {
        case null
        case bool(Bool)
        case number(JSONNumber)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    /// An object member.
    struct Member: Sendable {
        let key: String
        /// Where the key starts in the text (its opening quote).
        let keyOffset: Int
        let value: JSONNode
    }

    let kind: Kind
    /// Where the value starts in the text.
    let offset: Int

    /// The members of an object, or `nil`.
    var members: [Member]? {
        if case .object(let members) = kind { members } else { nil }
    }

    /// The items of an array, or `nil`.
    var items: [JSONNode]? {
        if case .array(let items) = kind { items } else { nil }
    }

    /// The string, or `nil`.
    var string: String? {
        if case .string(let string) = kind { string } else { nil }
    }

    /// The last member with a key (as JSON readers that let the last duplicate win do), or `nil`.
    subscript(key: String) -> JSONNode? {
        members?.last { $0.key == key }?.value
    }

    /// The kind of value, as a diagnostic names it: `a string`, `an object`.
    var kindName: String {
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
struct JSONParseError: Error, CustomStringConvertible {
    let offset: Int
    let reason: String

    var description: String { "\(reason) at byte \(offset)" }
}

/// Where a byte offset lies in a text, as editors count: lines and columns from 1, columns in UTF-8 bytes
/// (as compilers report them).
struct TextPosition: Hashable, Sendable, Comparable, CustomStringConvertible {
    let line: Int
    let column: Int

    /// `line:column`.
    var description: String { "\(line):\(column)" }

    static func < (lhs: TextPosition, rhs: TextPosition) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// The offsets at which a text's lines start, to turn byte offsets into positions.
struct LineTable: Sendable {
    private let starts: [Int]

    init(_ bytes: [UInt8]) {
        var starts = [0]
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            starts.append(index + 1)
        }
        self.starts = starts
    }

    /// The position of a byte offset.
    func position(of offset: Int) -> TextPosition {
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
