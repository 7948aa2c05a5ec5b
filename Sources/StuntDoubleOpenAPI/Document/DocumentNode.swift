import Foundation
import StuntDouble

/// One node of a parsed document (YAML or JSON), with where it was written: what the contract is compiled
/// from, so that every rule it checks can name its line.
struct DocumentNode: Sendable {
    enum Kind: Sendable {
        /// A scalar as written, and what YAML resolves it to.
        case scalar(String, ScalarType)
        case mapping([(key: String, value: DocumentNode)])
        case sequence([DocumentNode])
    }

    enum ScalarType: Sendable {
        case string
        case integer
        case number
        case bool
        case null
    }

    let kind: Kind
    /// The file's number in the document set.
    let file: Int
    let line: Int
    let column: Int

    subscript(key: String) -> DocumentNode? {
        guard case .mapping(let members) = kind else { return nil }
        return members.first { $0.key == key }?.value
    }

    var members: [(key: String, value: DocumentNode)] {
        if case .mapping(let members) = kind { members } else { [] }
    }

    var items: [DocumentNode] {
        if case .sequence(let items) = kind { items } else { [] }
    }

    var isMapping: Bool {
        if case .mapping = kind { true } else { false }
    }

    /// The text of a scalar (any type), or `nil`.
    var text: String? {
        if case .scalar(let text, _) = kind { text } else { nil }
    }

    /// The text of a string scalar, or `nil`.
    var string: String? {
        if case .scalar(let text, let type) = kind, type == .string { text } else { nil }
    }

    var bool: Bool? {
        guard case .scalar(let text, .bool) = kind else { return nil }
        return text.lowercased() == "true"
    }

    var number: Double? {
        guard case .scalar(let text, let type) = kind, type == .integer || type == .number else { return nil }
        return Double(text.replacingOccurrences(of: "_", with: ""))
    }

    /// A number that is finite (`1e999` reads as infinity: no bound at all).
    var finiteNumber: Double? {
        number.flatMap { $0.isFinite ? $0 : nil }
    }

    var integer: Int? {
        guard let number, number.isFinite, number.rounded() == number, abs(number) < 9e18 else { return nil }
        return Int(number)
    }

    /// The node as JSON text, members in the order written.
    var jsonText: String { value.jsonText }

    /// A YAML number as JSON writes it (`0x1F` is 31), with its value read from that.
    private static func number(fromYAML text: String) -> SchemaValue {
        let json = JSONText.number(text)
        return .number(Double(json) ?? .nan, text: json)
    }

    /// The node as a value to validate (examples, defaults).
    var value: SchemaValue {
        switch kind {
        case .scalar(let text, let type):
            switch type {
            case .string: .string(text)
            case .integer, .number: Self.number(fromYAML: text)
            case .bool: .bool(text.lowercased() == "true")
            case .null: .null
            }
        case .mapping(let members): .object(members.map { ($0.key, $0.value.value) })
        case .sequence(let items): .array(items.map(\.value))
        }
    }
}

/// Writing JSON text.
enum JSONText {
    static func appendString(_ string: String, to output: inout String) {
        JSONWriter.appendQuoted(string, to: &output)
    }

    /// A YAML number written as JSON (`+1` -> `1`, `0x1F` -> `31`, `.5` -> `0.5`).
    static func number(_ text: String) -> String {
        let cleaned = text.replacingOccurrences(of: "_", with: "")
        if cleaned.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) }), !cleaned.isEmpty {
            // YAML's `090` is the integer 90; JSON has no leading zeros.
            let negative = cleaned.hasPrefix("-")
            let digits = cleaned.drop { $0 == "-" }.drop { $0 == "0" }
            return digits.isEmpty ? "0" : (negative ? "-" : "") + digits
        }
        if let value = Double(cleaned) ?? Self.radixInteger(cleaned).map(Double.init), value.isFinite {
            return format(value)
        }
        return "null"
    }

    /// A number as JSON text: a whole number with no fraction or exponent at any magnitude (`type: integer`
    /// admits `9007199254740991`, and a reader's integer parser may refuse `9.007199254740991e15`), any other
    /// as Swift writes it shortest.
    static func format(_ value: Double) -> String {
        guard value.isFinite, value.rounded() == value else { return "\(value)" }
        if abs(value) < 0x1p63 { return String(Int64(value)) }
        // Exact: a double this large is a whole number whose digits `%.0f` writes in full.
        return String(format: "%.0f", value)
    }

    private static func radixInteger(_ text: String) -> Int? {
        if text.hasPrefix("0x") { return Int(text.dropFirst(2), radix: 16) }
        if text.hasPrefix("0o") { return Int(text.dropFirst(2), radix: 8) }
        return nil
    }
}
