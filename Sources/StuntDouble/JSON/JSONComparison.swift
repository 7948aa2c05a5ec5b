import Foundation

/// WireMock's `equalToJson`: JSON compared by value (`1` equals `1.0`), strict about array order and extra
/// fields unless told otherwise, with JsonUnit's placeholders in the expected JSON (`"${json-unit.any-string}"`).
package enum JSONComparison {
    /// The comparison's options.
    package struct Options: Hashable, Sendable {
        /// Arrays match in any order.
        package var ignoreArrayOrder = false
        /// Fields the expected JSON does not name, and array items beyond its own, are ignored.
        package var ignoreExtraElements = false

        package init(ignoreArrayOrder: Bool = false, ignoreExtraElements: Bool = false) {
            self.ignoreArrayOrder = ignoreArrayOrder
            self.ignoreExtraElements = ignoreExtraElements
        }
    }

    /// The placeholders WireMock's JsonUnit understands in an expected string value.
    package static let placeholders = [
        "${json-unit.ignore}", "${json-unit.ignore-element}", "${json-unit.any-string}", "${json-unit.any-number}",
        "${json-unit.any-boolean}",
    ]
    /// The prefix of a placeholder whose rest is a regular expression the actual string must match.
    package static let regexPlaceholder = "${json-unit.regex}"

    /// Parses text the way WireMock reads request bodies (comments and single quotes allowed), or `nil`.
    package static func parse(_ text: String) -> JSONValue? {
        let parser = JSONParser(bytes: Array(text.utf8), options: .wireMock)
        guard let (node, trailing) = try? parser.parseDocument(), trailing == nil else { return nil }
        return JSONValue(node)
    }

    /// The first placeholder in an expected value that WireMock would not understand, for diagnostics.
    package static func unknownPlaceholder(in value: JSONValue) -> String? {
        switch value {
        case .string(let text) where text.hasPrefix("${json-unit."):
            if placeholders.contains(text) || text.hasPrefix(regexPlaceholder) { return nil }
            return text
        case .array(let items):
            return items.lazy.compactMap(unknownPlaceholder).first
        case .object(let members):
            return members.keys.sorted().lazy.compactMap { members[$0].flatMap(unknownPlaceholder) }.first
        default:
            return nil
        }
    }

    /// Whether `actual` equals `expected` under the options and placeholders.
    package static func matches(expected: JSONValue, actual: JSONValue, options: Options) -> Bool {
        if case .string(let text) = expected, text.hasPrefix("${json-unit.") {
            return placeholder(text, accepts: actual)
        }
        switch (expected, actual) {
        case (.object(let wanted), .object(let got)):
            for (key, value) in wanted {
                guard let found = got[key] else {
                    if case .string("${json-unit.ignore-element}") = value { continue }
                    return false
                }
                if !matches(expected: value, actual: found, options: options) { return false }
            }
            return options.ignoreExtraElements || got.keys.allSatisfy { wanted[$0] != nil }
        case (.array(let wanted), .array(let got)):
            if options.ignoreArrayOrder {
                return matchesUnordered(wanted, got, options: options)
            }
            guard wanted.count == got.count || (options.ignoreExtraElements && got.count >= wanted.count) else {
                return false
            }
            return zip(wanted, got).allSatisfy { matches(expected: $0, actual: $1, options: options) }
        default:
            return expected == actual
        }
    }

    private static func placeholder(_ text: String, accepts actual: JSONValue) -> Bool {
        switch text {
        case "${json-unit.ignore}", "${json-unit.ignore-element}": return true
        case "${json-unit.any-string}": if case .string = actual { return true } else { return false }
        case "${json-unit.any-number}": if case .number = actual { return true } else { return false }
        case "${json-unit.any-boolean}": if case .bool = actual { return true } else { return false }
        default:
            guard text.hasPrefix(regexPlaceholder), case .string(let value) = actual else { return false }
            let pattern = String(text.dropFirst(regexPlaceholder.count))
            return (try? NSRegularExpressionBox(wholeMatch: pattern))?.matchesWhole(value) ?? false
        }
    }

    /// Every expected item matches a distinct actual item (and, unless extra elements are ignored, no actual
    /// item is left over): a matching found by augmenting paths, so the order of trial never matters.
    private static func matchesUnordered(_ wanted: [JSONValue], _ got: [JSONValue], options: Options) -> Bool {
        guard wanted.count == got.count || (options.ignoreExtraElements && got.count >= wanted.count) else {
            return false
        }
        var owner = [Int?](repeating: nil, count: got.count)
        func assign(_ item: Int, _ seen: inout [Bool]) -> Bool {
            for candidate in got.indices where !seen[candidate] {
                guard matches(expected: wanted[item], actual: got[candidate], options: options) else { continue }
                seen[candidate] = true
                if owner[candidate] == nil || assign(owner[candidate]!, &seen) {
                    owner[candidate] = item
                    return true
                }
            }
            return false
        }
        for item in wanted.indices {
            var seen = [Bool](repeating: false, count: got.count)
            if !assign(item, &seen) { return false }
        }
        return true
    }

    /// A selected JSON value as WireMock's JSONPath matching turns it into text (Java's `toString`): strings
    /// as they are, numbers as Java prints them, JSON for objects and arrays; `nil` for null.
    package static func javaText(_ value: JSONValue) -> String? {
        switch value {
        case .null: return nil
        case .bool(let flag): return flag ? "true" : "false"
        case .string(let text): return text
        case .number(let number): return javaNumber(number.text)
        case .array, .object: return value.description
        }
    }

    /// A JSON number as Java prints the value its JSON reader makes: integers as written (without a leading
    /// minus zero), other numbers as Java's `Double.toString` (`100.0`, `1.0E10`).
    package static func javaNumber(_ text: String) -> String {
        if let integer = Int64(text) { return String(integer) }
        guard let double = Double(text), double.isFinite else { return text }
        let magnitude = abs(double)
        if magnitude == 0 || (magnitude >= 1e-3 && magnitude < 1e7) {
            let plain = "\(double)"
            return plain.contains(".") || plain.contains("e") ? plain : plain + ".0"
        }
        // Swift writes 1e+16; Java writes 1.0E16.
        let parts = "\(double)".split(separator: "e")
        guard parts.count == 2 else { return "\(double)" }
        var mantissa = String(parts[0])
        if !mantissa.contains(".") { mantissa += ".0" }
        var exponent = String(parts[1])
        if exponent.hasPrefix("+") { exponent.removeFirst() }
        return mantissa + "E" + exponent
    }
}
