import Foundation
import Testing

@testable import StuntDoubleOpenAPI

/// `SchemaValidator` alone: a schema, a value, and the rules the value breaks (none when it is valid). The cases
/// follow the JSON Schema Test Suite's groups (type, numbers, strings, arrays, objects, composition, references,
/// OpenAPI 3.0's `nullable` and 3.1's type lists), written for this validator.
@Suite struct SchemaValidatorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let schema: String
        let value: String
        /// The rules broken, in the order reported; empty when the value is valid.
        let broken: [String]
        var openAPI = "3.1.0"
        var testDescription: String { "\(value) against \(schema)" }
    }

    /// Compiles `schema` as the body of an operation of a one-operation document, and checks `value` (JSON)
    /// against it.
    static func check(_ item: Case) throws -> [OpenAPIViolation] {
        let document = ##"""
            {"openapi": "\##(item.openAPI)", "info": {"title": "T", "version": "1"},
             "paths": {"/v": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S"}}}},
                                       "responses": {"204": {"description": "ok"}}}}},
             "components": {"schemas": {"S": \##(item.schema),
                                        "Node": {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Node"}, "n": {"type": "integer"}}}}}}
            """##
        let contract = try OpenAPIContract(text: document)
        let schema = try #require(contract.operations.first?.body?.contents.first?.schema)
        let validator = SchemaValidator(table: contract.schemas, direction: .request)
        return validator.validate(try SchemaValue.parse(Data(item.value.utf8)), against: schema, at: "body")
    }

    static let types: [Case] = [
        Case(schema: #"{"type": "integer"}"#, value: "1", broken: []),
        Case(schema: #"{"type": "integer"}"#, value: "1.0", broken: []),  // a number with no fraction is an integer
        Case(schema: #"{"type": "integer"}"#, value: "1.5", broken: ["type"]),
        Case(schema: #"{"type": "integer"}"#, value: #""1""#, broken: ["type"]),
        Case(schema: #"{"type": "number"}"#, value: "-0.5e3", broken: []),
        Case(schema: #"{"type": "string"}"#, value: "null", broken: ["type"]),
        Case(schema: #"{"type": "boolean"}"#, value: "0", broken: ["type"]),
        Case(schema: #"{"type": "array"}"#, value: "{}", broken: ["type"]),
        Case(schema: #"{"type": "object"}"#, value: "[]", broken: ["type"]),
        Case(schema: #"{"type": "null"}"#, value: "null", broken: []),
        Case(schema: #"{"type": ["string", "null"]}"#, value: "null", broken: []),
        Case(schema: #"{"type": ["string", "null"]}"#, value: "3", broken: ["type"]),
        Case(schema: #"{"type": "string", "nullable": true}"#, value: "null", broken: [], openAPI: "3.0.3"),
        Case(schema: #"{"type": "string"}"#, value: "null", broken: ["type"], openAPI: "3.0.3"),
        Case(schema: "{}", value: #"[1, "a", null, {"b": false}]"#, broken: []),
    ]

    static let numbers: [Case] = [
        Case(schema: #"{"minimum": 1.1}"#, value: "1.1", broken: []),
        Case(schema: #"{"minimum": 1.1}"#, value: "0.6", broken: ["minimum"]),
        Case(schema: #"{"maximum": 3}"#, value: "3.0", broken: []),
        Case(schema: #"{"maximum": 3}"#, value: "3.5", broken: ["maximum"]),
        Case(schema: #"{"exclusiveMinimum": 1.1}"#, value: "1.1", broken: ["exclusiveMinimum"]),
        Case(schema: #"{"exclusiveMaximum": 3}"#, value: "2.9", broken: []),
        Case(schema: #"{"exclusiveMaximum": 3}"#, value: "3", broken: ["exclusiveMaximum"]),
        Case(schema: #"{"multipleOf": 2}"#, value: "10", broken: []),
        Case(schema: #"{"multipleOf": 2}"#, value: "7", broken: ["multipleOf"]),
        Case(schema: #"{"multipleOf": 0.0001}"#, value: "0.0075", broken: []),  // no float error
        Case(schema: #"{"multipleOf": 0.01}"#, value: "19.99", broken: []),
        Case(schema: #"{"minimum": 5}"#, value: #""3""#, broken: []),  // numeric keywords ignore strings
        Case(schema: #"{"type": "integer", "format": "int32"}"#, value: "2147483648", broken: ["format"]),
        Case(schema: #"{"type": "integer", "format": "int64"}"#, value: "9223372036854775807", broken: []),
    ]

    static let strings: [Case] = [
        Case(schema: #"{"format": "email"}"#, value: #""ana.b+tag@mail.example.com""#, broken: []),
        Case(schema: #"{"format": "email"}"#, value: #""ops@[192.0.2.1]""#, broken: []),
        Case(schema: #"{"format": "email"}"#, value: #""\"a b\"@example.com""#, broken: []),
        // RFC 5321: a local part of at most 64 bytes (Stoplight's export had a 70-byte one in an example).
        Case(
            schema: #"{"format": "email"}"#, value: "\"\(String(repeating: "a", count: 65))@example.com\"",
            broken: ["format"]),
        Case(schema: #"{"format": "email"}"#, value: #""a..b@example.com""#, broken: ["format"]),
        Case(schema: #"{"format": "email"}"#, value: #""a@-example.com""#, broken: ["format"]),
        Case(schema: #"{"format": "email"}"#, value: #""no-at.example.com""#, broken: ["format"]),
        Case(schema: #"{"minLength": 2}"#, value: #""ab""#, broken: []),
        Case(schema: #"{"minLength": 2}"#, value: #""a""#, broken: ["minLength"]),
        Case(schema: #"{"minLength": 2}"#, value: #""💩""#, broken: ["minLength"]),  // one code point
        Case(schema: #"{"maxLength": 2}"#, value: #""éé""#, broken: []),
        Case(schema: #"{"maxLength": 2}"#, value: #""abc""#, broken: ["maxLength"]),
        Case(schema: #"{"maxLength": 2}"#, value: "100", broken: []),  // string keywords ignore numbers
        Case(schema: #"{"pattern": "^a*$"}"#, value: #""aaa""#, broken: []),
        Case(schema: #"{"pattern": "^a*$"}"#, value: #""abc""#, broken: ["pattern"]),
        Case(schema: #"{"pattern": "b"}"#, value: #""abc""#, broken: []),  // not anchored
        Case(schema: #"{"enum": ["red", "green"]}"#, value: #""red""#, broken: []),
        Case(schema: #"{"enum": ["red", "green"]}"#, value: #""blue""#, broken: ["enum"]),
        Case(schema: #"{"enum": [1, null]}"#, value: "1.0", broken: []),
        Case(schema: #"{"const": {"a": [1]}}"#, value: #"{"a": [1.0]}"#, broken: []),
        Case(schema: #"{"const": {"a": [1]}}"#, value: #"{"a": [2]}"#, broken: ["const"]),
    ]

    static let arrays: [Case] = [
        Case(schema: #"{"items": {"type": "integer"}}"#, value: "[1, 2]", broken: []),
        Case(schema: #"{"items": {"type": "integer"}}"#, value: #"[1, "x", 3]"#, broken: ["type"]),
        Case(schema: #"{"minItems": 1}"#, value: "[]", broken: ["minItems"]),
        Case(schema: #"{"maxItems": 1}"#, value: "[1, 2]", broken: ["maxItems"]),
        Case(schema: #"{"uniqueItems": true}"#, value: #"[1, "1", {"a": 1}]"#, broken: []),
        Case(
            schema: #"{"uniqueItems": true}"#, value: #"[{"a": 1, "b": 2}, {"b": 2, "a": 1}]"#, broken: ["uniqueItems"]),
        Case(schema: #"{"uniqueItems": true}"#, value: "[1, 1.0]", broken: ["uniqueItems"]),
        Case(schema: #"{"uniqueItems": false}"#, value: "[1, 1]", broken: []),
    ]

    static let objects: [Case] = [
        Case(schema: #"{"required": ["a"]}"#, value: #"{"a": null}"#, broken: []),
        Case(schema: #"{"required": ["a", "b"]}"#, value: #"{"b": 1}"#, broken: ["required"]),
        Case(schema: #"{"required": ["a"]}"#, value: "[]", broken: []),  // object keywords ignore arrays
        Case(schema: #"{"properties": {"a": {"type": "string"}}}"#, value: #"{"a": 1}"#, broken: ["type"]),
        Case(schema: #"{"properties": {"a": {"type": "string"}}}"#, value: #"{"b": 1}"#, broken: []),
        Case(
            schema: #"{"properties": {"a": {}}, "additionalProperties": false}"#, value: #"{"a": 1, "b": 2}"#,
            broken: ["additionalProperties"]),
        Case(
            schema: #"{"additionalProperties": {"type": "boolean"}}"#, value: #"{"a": true, "b": 1}"#,
            broken: ["type"]),
        Case(
            schema: #"{"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}"#,
            value: #"{"x-a": "1"}"#, broken: []),
        Case(
            schema: #"{"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}"#,
            value: #"{"x-a": 1, "y": 2}"#, broken: ["type", "additionalProperties"]),
        Case(schema: #"{"minProperties": 1}"#, value: "{}", broken: ["minProperties"]),
        Case(schema: #"{"maxProperties": 1}"#, value: #"{"a": 1, "b": 2}"#, broken: ["maxProperties"]),
    ]

    static let composition: [Case] = [
        Case(schema: #"{"allOf": [{"type": "integer"}, {"minimum": 2}]}"#, value: "3", broken: []),
        Case(schema: #"{"allOf": [{"type": "integer"}, {"minimum": 2}]}"#, value: "1", broken: ["minimum"]),
        Case(schema: #"{"anyOf": [{"type": "string"}, {"minimum": 2}]}"#, value: "3", broken: []),
        Case(schema: #"{"anyOf": [{"type": "string"}, {"minimum": 2}]}"#, value: "1", broken: ["anyOf"]),
        Case(schema: #"{"oneOf": [{"type": "integer"}, {"minimum": 2}]}"#, value: "1", broken: []),
        Case(schema: #"{"oneOf": [{"type": "integer"}, {"minimum": 2}]}"#, value: "3", broken: ["oneOf"]),
        Case(schema: #"{"oneOf": [{"type": "integer"}, {"minimum": 2}]}"#, value: "1.5", broken: ["oneOf"]),
        Case(schema: #"{"not": {"type": "integer"}}"#, value: #""a""#, broken: []),
        Case(schema: #"{"not": {"type": "integer"}}"#, value: "1", broken: ["not"]),
        Case(schema: ##"{"$ref": "#/components/schemas/Node"}"##, value: #"{"next": {"next": {"n": 1}}}"#, broken: []),
        Case(
            schema: ##"{"$ref": "#/components/schemas/Node"}"##, value: #"{"next": {"next": {"n": "x"}}}"#,
            broken: ["type"]),
    ]

    @Test(arguments: types + numbers + strings + arrays + objects + composition)
    func aValueBreaksTheRulesItBreaks(_ item: Case) throws {
        let violations = try Self.check(item)
        #expect(violations.map(\.rule) == item.broken, "\(violations)")
    }

    @Test func violationsSayWhereInTheValueAndInTheDocument() throws {
        let violations = try Self.check(
            Case(
                schema: #"{"properties": {"items": {"items": {"properties": {"price": {"type": "number"}}}}}}"#,
                value: #"{"items": [{"price": 1}, {"price": "9"}]}"#, broken: ["type"]))
        let violation = try #require(violations.first)
        #expect(violation.location == "body.items[1].price")
        #expect(violation.message == #"expected number or integer, found string "9""#)
        #expect(violation.documentLocation?.line == 4)
    }
}
