import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

/// `ParameterDecoder` alone: every style of OpenAPI's table of parameter serializations (`simple`, `label`,
/// `matrix`, `form`, `spaceDelimited`, `pipeDelimited`, `deepObject`, exploded or not), for a primitive (`5`), an
/// array (`[3, 4, 5]`) and an object (`{"role": "admin", "firstName": "Alex"}`), read back into the value.
@Suite struct ParameterDecoderTests {
    enum Shape: String, Sendable {
        case primitive, array, object

        var schema: String {
            switch self {
            case .primitive: #"{"type": "integer"}"#
            case .array: #"{"type": "array", "items": {"type": "integer"}}"#
            case .object:
                #"{"type": "object", "properties": {"role": {"type": "string"}, "firstName": {"type": "string"}}}"#
            }
        }

        /// The value every serialization below stands for, as JSON.
        var value: String {
            switch self {
            case .primitive: "5"
            case .array: "[3,4,5]"
            case .object: #"{"role":"admin","firstName":"Alex"}"#
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let place: String
        let style: String
        let explode: Bool
        let shape: Shape
        /// As sent: a path segment, or a query string.
        let sent: String
        var testDescription: String { "\(place) \(style)\(explode ? " exploded" : "") \(shape.rawValue): \(sent)" }
    }

    /// OpenAPI 3.1's table of style examples, row by row.
    static let styleTable: [Case] = [
        Case(place: "path", style: "simple", explode: false, shape: .primitive, sent: "5"),
        Case(place: "path", style: "simple", explode: false, shape: .array, sent: "3,4,5"),
        Case(place: "path", style: "simple", explode: false, shape: .object, sent: "role,admin,firstName,Alex"),
        Case(place: "path", style: "simple", explode: true, shape: .array, sent: "3,4,5"),
        Case(place: "path", style: "simple", explode: true, shape: .object, sent: "role=admin,firstName=Alex"),
        Case(place: "path", style: "label", explode: false, shape: .primitive, sent: ".5"),
        Case(place: "path", style: "label", explode: false, shape: .array, sent: ".3,4,5"),
        Case(place: "path", style: "label", explode: false, shape: .object, sent: ".role,admin,firstName,Alex"),
        Case(place: "path", style: "label", explode: true, shape: .array, sent: ".3.4.5"),
        Case(place: "path", style: "label", explode: true, shape: .object, sent: ".role=admin.firstName=Alex"),
        Case(place: "path", style: "matrix", explode: false, shape: .primitive, sent: ";id=5"),
        Case(place: "path", style: "matrix", explode: false, shape: .array, sent: ";id=3,4,5"),
        Case(place: "path", style: "matrix", explode: false, shape: .object, sent: ";id=role,admin,firstName,Alex"),
        Case(place: "path", style: "matrix", explode: true, shape: .array, sent: ";id=3;id=4;id=5"),
        Case(place: "path", style: "matrix", explode: true, shape: .object, sent: ";role=admin;firstName=Alex"),
        Case(place: "query", style: "form", explode: false, shape: .primitive, sent: "id=5"),
        Case(place: "query", style: "form", explode: false, shape: .array, sent: "id=3,4,5"),
        Case(place: "query", style: "form", explode: false, shape: .object, sent: "id=role,admin,firstName,Alex"),
        Case(place: "query", style: "form", explode: true, shape: .array, sent: "id=3&id=4&id=5"),
        Case(place: "query", style: "form", explode: true, shape: .object, sent: "role=admin&firstName=Alex"),
        Case(place: "query", style: "spaceDelimited", explode: false, shape: .array, sent: "id=3%204%205"),
        Case(place: "query", style: "pipeDelimited", explode: false, shape: .array, sent: "id=3|4|5"),
        Case(
            place: "query", style: "deepObject", explode: true, shape: .object,
            sent: "id[role]=admin&id[firstName]=Alex"),
    ]

    /// The operation's one parameter, `id`, and the decoder of its document.
    static func parameter(_ item: Case) throws -> (ContractOperation.Parameter, ParameterDecoder) {
        let path = item.place == "path" ? "/things/{id}" : "/things"
        let document = #"""
            {"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
             "paths": {"\#(path)": {"get": {
               "parameters": [{"name": "id", "in": "\#(item.place)", "required": true, "style": "\#(item.style)",
                               "explode": \#(item.explode), "schema": \#(item.shape.schema)}],
               "responses": {"204": {"description": "ok"}}}}}}
            """#
        let contract = try OpenAPIContract(text: document)
        let parameter = try #require(contract.operations.first?.parameters.first)
        return (parameter, ParameterDecoder(table: contract.schemas))
    }

    @Test(arguments: styleTable)
    func everyStyleReadsBackItsValue(_ item: Case) throws {
        let (parameter, decoder) = try Self.parameter(item)
        let value: SchemaValue? =
            item.place == "path"
            ? decoder.pathValue(item.sent[...], parameter)
            : decoder.queryValue(PercentEncoding.queryPairs(item.sent), parameter)
        #expect(value?.jsonText == item.shape.value)
    }

    @Test func whatIsNotSentIsNoValue() throws {
        let (parameter, decoder) = try Self.parameter(
            Case(place: "query", style: "form", explode: false, shape: .primitive, sent: ""))
        #expect(decoder.queryValue(PercentEncoding.queryPairs("other=1"), parameter) == nil)
        #expect(decoder.queryValue([], parameter) == nil)
    }

    @Test(arguments: [
        // The schema's type decides what text becomes: numbers only as JSON writes them.
        (#"{"type": "integer"}"#, "42", "42"), (#"{"type": "integer"}"#, "+42", #""+42""#),
        (#"{"type": "number"}"#, ".5", #"".5""#), (#"{"type": "number"}"#, "1e3", "1e3"),
        (#"{"type": "integer"}"#, "inf", #""inf""#), (#"{"type": "boolean"}"#, "true", "true"),
        (#"{"type": "boolean"}"#, "TRUE", #""TRUE""#), (#"{"type": ["null", "integer"]}"#, "", "null"),
        (#"{"type": ["null", "string"]}"#, "", #""""#), (#"{"type": "string"}"#, "7", #""7""#),
        (#"{"type": "object"}"#, #"{"a":1}"#, #"{"a":1}"#), (#"{}"#, "7", #""7""#),
    ])
    func textBecomesWhatTheSchemaAsksFor(schema: String, text: String, expected: String) throws {
        let document = #"""
            {"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
             "paths": {"/t": {"get": {"parameters": [{"name": "p", "in": "query", "schema": \#(schema)}],
                                      "responses": {"204": {"description": "ok"}}}}}}
            """#
        let contract = try OpenAPIContract(text: document)
        let parameter = try #require(contract.operations.first?.parameters.first)
        let decoder = ParameterDecoder(table: contract.schemas)
        #expect(decoder.scalar(text, parameter.schema).jsonText == expected)
    }

    @Test(arguments: [
        // OpenAPI's defaults: simple in a path or a header, form in a query or a cookie; form explodes.
        ("path", "", "simple", false), ("header", "", "simple", false), ("query", "", "form", true),
        ("cookie", "", "form", true), ("query", #""explode": false,"#, "form", false),
        ("path", #""style": "label", "explode": true,"#, "label", true),
        ("query", #""style": "pipeDelimited","#, "pipeDelimited", false),
    ])
    func aParameterWithoutAStyleHasItsPlacesDefault(place: String, written: String, style: String, explode: Bool)
        throws
    {
        let path = place == "path" ? "/t/{p}" : "/t"
        let document = #"""
            {"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
             "paths": {"\#(path)": {"get": {"parameters": [{"name": "p", "in": "\#(place)", "required": true,
                                                       \#(written) "schema": {"type": "string"}}],
                                        "responses": {"204": {"description": "ok"}}}}}}
            """#
        let contract = try OpenAPIContract(text: document)
        let parameter = try #require(contract.operations.first?.parameters.first)
        #expect(parameter.serialization.style == style)
        #expect(parameter.serialization.explode == explode)
    }
}
