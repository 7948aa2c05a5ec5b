import Foundation
import Testing

@testable import StuntDouble

@Suite struct JSONValueTests {
    func parse(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Data(text.utf8))
    }

    @Test func parsesEveryKindOfValue() throws {
        let value = try parse(#" {"a": [1, -2.5e3, true, false, null], "b": {"c": "d\"\\\/\n\u00e9\ud83d\ude00"}} "#)
        guard case .object(let members) = value, case .object(let inner) = members["b"] else {
            Issue.record("expected an object, got \(value)")
            return
        }
        #expect(inner["c"] == .string("d\"\\/\né😀"))
        #expect(
            members["a"]
                == .array([
                    .number(JSONNumber(text: "1")), .number(JSONNumber(text: "-2500")), .bool(true), .bool(false),
                    .null,
                ]))
    }

    @Test func numbersCompareByValue() throws {
        #expect(try parse("1") == parse("1.0"))
        #expect(try parse("100") == parse("1e2"))
        #expect(try parse("1") != parse("10"))
        #expect(try parse("9007199254740993") != parse("9007199254740992"), "large integers compare exactly")
        #expect(try parse("true") != parse("1"))
    }

    @Test(arguments: [
        ("", "expected a value but the text ended at byte 0"),
        ("{\"a\" 1}", "expected ':' at byte 5"),
        ("[1,]", "unexpected character ']' at byte 3"),
        ("01", "unexpected text after the JSON value at byte 1"),
        ("\"abc", "unterminated string at byte 4"),
        ("tru", "expected 'true' at byte 0"),
        ("1.", "expected a digit after '.' at byte 2"),
        (String(repeating: "[", count: 600), "nesting deeper than 512 levels at byte 512"),
    ])
    func reportsWhereParsingFailed(text: String, reason: String) {
        #expect {
            _ = try parse(text)
        } throws: { error in
            "\(error)" == reason
        }
    }

    @Test func describesDifferencesWithPaths() throws {
        let expected = try parse(#"{"user": {"name": "Mark", "tags": ["a", "b"]}, "id": 1}"#)
        let actual = try parse(#"{"user": {"name": "Marc", "tags": ["a"]}, "extra": null}"#)
        #expect(
            JSONValue.differences(expected: expected, actual: actual) == [
                "$.id: missing (expected 1)", #"$.user.name: expected "Mark", found "Marc""#,
                "$.user.tags: expected 2 elements, found 1", "$.extra: unexpected (found null)",
            ])
    }
}
