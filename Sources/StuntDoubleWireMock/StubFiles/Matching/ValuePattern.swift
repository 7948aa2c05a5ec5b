import Foundation
import StuntDouble

/// A WireMock match operator on one value, as stub files write it (`{"equalTo": "x", "caseInsensitive": true}`),
/// with WireMock's semantics: regular expressions match the whole value with `.` matching newlines, JSON
/// compares by value with JsonUnit's placeholders, JSONPath follows Jayway's results.
indirect enum ValuePattern: Sendable, CustomStringConvertible {
    case equalTo(String, caseInsensitive: Bool)
    case contains(String)
    case doesNotContain(String)
    case matches(String, NSRegularExpressionBox)
    case doesNotMatch(String, NSRegularExpressionBox)
    case absent
    case equalToJSON(JSONValue, JSONComparison.Options)
    case matchesJSONPath(JSONPath, ValuePattern?)
    case binaryEqualTo(Data)
    case and([ValuePattern])
    case or([ValuePattern])
    case not(ValuePattern)

    /// Whether a value satisfies the pattern; `nil` is an absent value (only `absent` and negations accept it).
    func matches(_ value: String?) -> Bool {
        switch self {
        case .absent:
            return value == nil
        case .not(let inner):
            return !inner.matches(value)
        case .and(let patterns):
            return patterns.allSatisfy { $0.matches(value) }
        case .or(let patterns):
            return patterns.contains { $0.matches(value) }
        default:
            break
        }
        guard let value else { return false }
        switch self {
        case .equalTo(let expected, let caseInsensitive):
            return caseInsensitive
                ? expected.compare(value, options: .caseInsensitive) == .orderedSame : expected == value
        case .contains(let part):
            return value.contains(part)
        case .doesNotContain(let part):
            return !value.contains(part)
        case .matches(_, let regex):
            return regex.matchesWhole(value)
        case .doesNotMatch(_, let regex):
            return !regex.matchesWhole(value)
        case .equalToJSON(let expected, let options):
            guard let actual = JSONComparison.parse(value) else { return false }
            return JSONComparison.matches(expected: expected, actual: actual, options: options)
        case .matchesJSONPath(let path, let sub):
            return Self.matchesJSONPath(path, sub, in: value)
        case .binaryEqualTo(let bytes):
            return Data(value.utf8) == bytes
        case .absent, .and, .or, .not:
            return false
        }
    }

    /// Whether a body satisfies the pattern: bytes for `binaryEqualTo`, its text (UTF-8) for the others.
    func matches(body: Data?) -> Bool {
        switch self {
        case .binaryEqualTo(let bytes):
            return (body ?? Data()) == bytes
        case .and(let patterns):
            return patterns.allSatisfy { $0.matches(body: body) }
        case .or(let patterns):
            return patterns.contains { $0.matches(body: body) }
        case .not(let inner):
            return !inner.matches(body: body)
        case .absent:
            return body == nil || body?.isEmpty == true
        default:
            // WireMock matches a missing body as an empty text.
            return matches(String(decoding: body ?? Data(), as: UTF8.self))
        }
    }

    /// Whether a value that may occur several times (a header, a query parameter) satisfies the pattern: any
    /// occurrence does, or, for `absent`, there is none.
    func matches(anyOf values: [String]) -> Bool {
        if values.isEmpty { return matches(nil) }
        if case .absent = self { return false }
        return values.contains { matches($0) }
    }

    /// How close a value came, from 0 to 1, to rank near misses.
    func closeness(to value: String?) -> Double {
        guard let value else { return 0 }
        switch self {
        case .equalTo(let expected, _): return Similarity.of(expected, value)
        case .contains(let part): return Similarity.of(part, value) * 0.8
        default: return 0.3
        }
    }

    /// How a report shows the pattern: `equalTo "x"`, `matches "a.*"`.
    var description: String {
        switch self {
        case .equalTo(let value, let caseInsensitive):
            return "equalTo \(Self.quote(value))" + (caseInsensitive ? " (case-insensitive)" : "")
        case .contains(let value): return "contains \(Self.quote(value))"
        case .doesNotContain(let value): return "doesNotContain \(Self.quote(value))"
        case .matches(let pattern, _): return "matches \(Self.quote(pattern))"
        case .doesNotMatch(let pattern, _): return "doesNotMatch \(Self.quote(pattern))"
        case .absent: return "absent"
        case .equalToJSON(let value, let options):
            var text = "equalToJson \(Similarity.excerpt(value.description, limit: 80))"
            if options.ignoreArrayOrder { text += " (ignoring array order)" }
            if options.ignoreExtraElements { text += " (ignoring extra elements)" }
            return text
        case .matchesJSONPath(let path, let sub):
            return "matchesJsonPath \(Self.quote(path.expression))" + (sub.map { " and the value \($0)" } ?? "")
        case .binaryEqualTo(let data): return "binaryEqualTo \(data.count) bytes"
        case .and(let patterns): return "(" + patterns.map(\.description).joined(separator: " and ") + ")"
        case .or(let patterns): return "(" + patterns.map(\.description).joined(separator: " or ") + ")"
        case .not(let inner): return "not \(inner)"
        }
    }

    private static func quote(_ text: String) -> String {
        "\"" + Similarity.excerpt(text, limit: 80) + "\""
    }

    /// WireMock's `matchesJsonPath`: without a value pattern, the path must select something that is not
    /// null and not an empty array or object; with one, some selected value, as text, must satisfy it.
    private static func matchesJSONPath(_ path: JSONPath, _ sub: ValuePattern?, in text: String) -> Bool {
        guard let document = JSONComparison.parse(text) else { return false }
        let result = path.evaluate(document)
        guard let sub else {
            switch result {
            case .notFound: return false
            case .list(let values): return !values.isEmpty
            case .value(.null): return false
            case .value(.array(let items)): return !items.isEmpty
            case .value(.object(let members)): return !members.isEmpty
            case .value: return true
            }
        }
        let texts: [String]
        switch result {
        case .notFound:
            texts = []
        case .value(let value):
            if case .equalToJSON = sub {
                texts = [value.description]
            } else if case .array(let items) = value {
                texts = items.compactMap(JSONComparison.javaText)
            } else {
                texts = JSONComparison.javaText(value).map { [$0] } ?? []
            }
        case .list(let values):
            if case .equalToJSON = sub {
                texts = [JSONValue.array(values).description]
            } else {
                texts = values.compactMap(JSONComparison.javaText)
            }
        }
        if texts.isEmpty, case .absent = sub { return true }
        return texts.contains { sub.matches($0) }
    }
}
