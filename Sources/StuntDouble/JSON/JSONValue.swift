import Foundation

/// A parsed JSON value, compared semantically: object key order, whitespace and number spelling
/// (`1`, `1.0`, `1e0`) do not matter.
package indirect enum JSONValue: Hashable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses JSON text (RFC 8259), or throws with the byte offset of the problem.
    package static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        let parser = JSONParser(bytes: Array(data), options: .strict)
        return JSONValue(try parser.parseDocument().value)
    }

    /// The value of a parsed node; of members with the same key, the last wins.
    package init(_ node: JSONNode) {
        switch node.kind {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let number): self = .number(number)
        case .string(let string): self = .string(string)
        case .array(let items): self = .array(items.map(JSONValue.init))
        case .object(let members):
            var object: [String: JSONValue] = [:]
            for member in members {
                object[member.key] = JSONValue(member.value)
            }
            self = .object(object)
        }
    }

    /// Compact JSON text with sorted keys.
    package var description: String {
        JSONWriter.text(of: self, sortedKeys: true)
    }

    /// The differences between an expected value and an actual one, as `path: expected …, found …` lines.
    package static func differences(expected: JSONValue, actual: JSONValue, path: String = "$", limit: Int = 5)
        -> [String]
    {
        var found: [String] = []
        collectDifferences(expected, actual, path, limit, &found)
        return found
    }

    private static func collectDifferences(
        _ expected: JSONValue, _ actual: JSONValue, _ path: String, _ limit: Int, _ found: inout [String]
    ) {
        guard found.count < limit, expected != actual else { return }
        switch (expected, actual) {
        case (.object(let wanted), .object(let got)):
            for key in wanted.keys.sorted() {
                guard found.count < limit else { return }
                if let value = got[key] {
                    collectDifferences(wanted[key] ?? .null, value, "\(path).\(key)", limit, &found)
                } else {
                    found.append("\(path).\(key): missing (expected \(excerpt(wanted[key] ?? .null)))")
                }
            }
            for key in got.keys.sorted() where wanted[key] == nil && found.count < limit {
                found.append("\(path).\(key): unexpected (found \(excerpt(got[key] ?? .null)))")
            }
        case (.array(let wanted), .array(let got)) where wanted.count == got.count:
            for (index, pair) in zip(wanted, got).enumerated() {
                collectDifferences(pair.0, pair.1, "\(path)[\(index)]", limit, &found)
            }
        case (.array(let wanted), .array(let got)):
            found.append("\(path): expected \(wanted.count) elements, found \(got.count)")
        default:
            found.append("\(path): expected \(excerpt(expected)), found \(excerpt(actual))")
        }
    }

    private static func excerpt(_ value: JSONValue) -> String {
        Similarity.excerpt(value.description, limit: 60)
    }
}

/// A JSON number, kept as written and compared by value.
package struct JSONNumber: Hashable, Sendable {
    package let text: String

    package init(text: String) {
        self.text = text
    }

    private var integer: Int64? { Int64(text) }
    private var double: Double { Double(text) ?? .nan }

    package static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        if let left = lhs.integer, let right = rhs.integer { return left == right }
        return lhs.double == rhs.double
    }

    package func hash(into hasher: inout Hasher) {
        if let integer {
            hasher.combine(Double(integer))
        } else {
            hasher.combine(double)
        }
    }
}

extension JSONValue: JSONWritable {
    package var jsonShape: JSONShape<JSONValue> {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .number(let number): .number(number.text)
        case .string(let string): .string(string)
        case .array(let items): .array(items)
        case .object(let members): .object(members.map { ($0.key, $0.value) })
        }
    }
}
