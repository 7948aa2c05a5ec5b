import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleWireMock

/// `JSONPath` alone, table-driven: what each form of the syntax WireMock's stub files use selects in one
/// document, whether the result is one value (Jayway's "definite" paths) or a list, and the errors of
/// expressions that do not parse.
@Suite struct JSONPathTests {
    static let document = #"""
        {"shop": {"name": "Corner", "open": true, "threshold": 10,
                  "items": [{"id": 1, "name": "pen", "price": 2, "tags": ["office"]},
                            {"id": 2, "name": "Pencil", "price": 1},
                            {"id": 3, "name": "lamp", "price": 25, "tags": ["home", "light"]},
                            {"id": 4, "name": "desk", "price": 120, "owner": {"name": "Ada"}}]},
         "a b": {"c.d": "quoted"}, "empty": [], "nothing": null}
        """#

    struct Case: Sendable, CustomTestStringConvertible {
        let path: String
        /// The expected result as JSON: one value for a definite path, an array for a list; `nil` for nothing
        /// found by a definite path.
        let expected: String?
        let isList: Bool
        var testDescription: String { path }
    }

    static func value(_ path: String, _ expected: String?) -> Case {
        Case(path: path, expected: expected, isList: false)
    }
    static func list(_ path: String, _ expected: String) -> Case { Case(path: path, expected: expected, isList: true) }

    static let cases: [Case] = [
        // Children, by dot and by bracket, and what a definite path does not find.
        value("$.shop.name", #""Corner""#), value("$['shop']['name']", #""Corner""#),
        value("$.['shop'].open", "true"), value(#"$["a b"]["c.d"]"#, #""quoted""#),
        value("$.shop.items[0].name", #""pen""#), value("$.shop.items[-1].name", #""desk""#),
        value("$.shop.missing", nil), value("$.shop.items[9]", nil), value("$.nothing", "null"),
        value("$.shop.items[3].owner.name", #""Ada""#),
        // Several names or indexes, slices and wildcards are lists.
        list("$.shop.items[0,2].name", #"["pen", "lamp"]"#), list("$.shop.items[1:3].id", "[2, 3]"),
        list("$.shop.items[:2].id", "[1, 2]"), list("$.shop.items[-2:].id", "[3, 4]"),
        list("$.shop.items[*].price", "[2, 1, 25, 120]"), list("$.empty[*]", "[]"),
        list("$.shop.items[*].tags[*]", #"["office", "home", "light"]"#),
        list("$['shop']['name','open']", #"["Corner", true]"#),
        // Deep scans, in document order.
        list("$..price", "[2, 1, 25, 120]"), list("$.shop.items..name", #"["pen", "Pencil", "lamp", "desk", "Ada"]"#),
        list("$..tags[0]", #"["office", "home"]"#),
        // Filters: comparisons, existence, regular expressions, the document's root, and/or/not.
        list("$.shop.items[?(@.price < 10)].name", #"["pen", "Pencil"]"#),
        list("$.shop.items[?(@.price >= 25)].id", "[3, 4]"),
        list("$.shop.items[?(@.name == 'lamp')].price", "[25]"),
        list("$.shop.items[?(@.name != 'lamp')].id", "[1, 2, 4]"),
        list("$.shop.items[?(@.tags)].id", "[1, 3]"), list("$.shop.items[?(!@.tags)].id", "[2, 4]"),
        list("$.shop.items[?(@.name =~ /p.*/i)].id", "[1, 2]"),
        list("$.shop.items[?(@.name =~ /p.*/)].id", "[1]"),
        list("$.shop.items[?(@.price > $.shop.threshold)].name", #"["lamp", "desk"]"#),
        list("$.shop.items[?(@.price > 1 && @.price < 100)].id", "[1, 3]"),
        list("$.shop.items[?(@.id == 1 || @.id == 4)].name", #"["pen", "desk"]"#),
        list("$.shop.items[?(@.owner.name == 'Ada')].id", "[4]"),
        list("$.shop.items[?(@.price == 'x')].id", "[]"),
        // length() and size() count an array's items or an object's members; a string has none, as in Jayway
        // (WireMock 2.35.1 renders `{{jsonPath body '$.name.length()'}}` as nothing).
        value("$.shop.items.length()", "4"), value("$.shop.items.size()", "4"),
        value("$.shop.items[0].tags.length()", "1"), value("$.shop.items[3].owner.length()", "1"),
        value("$.shop.name.length()", nil), value("$.shop.threshold.size()", nil),
    ]

    @Test(arguments: cases)
    func selects(_ item: Case) throws {
        let document = try JSONValue.parse(Data(Self.document.utf8))
        let result = try JSONPath(item.path).evaluate(document)
        switch result {
        case .value(let value):
            #expect(!item.isList, "a definite path for \(item.path)")
            #expect(value == (try item.expected.map { try JSONValue.parse(Data($0.utf8)) }))
        case .list(let values):
            #expect(item.isList, "a list for \(item.path)")
            #expect(.array(values) == (try item.expected.map { try JSONValue.parse(Data($0.utf8)) }))
        case .notFound:
            #expect(item.expected == nil, "nothing found by \(item.path)")
        }
    }

    /// Templates select in JSON as written (members in order); matchers in values. Both say the same.
    @Test(arguments: cases)
    func selectsTheSameInJSONAsWritten(_ item: Case) throws {
        let node = try JSONNode.parse(Array(Self.document.utf8))
        let path = try JSONPath(item.path)
        let expected = try item.expected.map { try JSONValue.parse(Data($0.utf8)) }
        switch path.evaluate(node) {
        case .value(let value):
            #expect(!item.isList)
            #expect(JSONValue(value) == expected)
        case .list(let values):
            #expect(item.isList)
            #expect(.array(values.map(JSONValue.init)) == expected)
        case .notFound:
            #expect(item.expected == nil)
        }
    }

    @Test(arguments: ["", "$.", "$[", "$.shop[", "$.shop[1:x]", "$[?(@.a <)]", "$.shop['name", "$[?(@.a =~ /x)]"])
    func anExpressionThatDoesNotParseSaysWhy(_ expression: String) {
        #expect(throws: JSONPathError.self) { try JSONPath(expression) }
        do {
            _ = try JSONPath(expression)
        } catch {
            #expect(!error.description.isEmpty)
        }
    }
}
