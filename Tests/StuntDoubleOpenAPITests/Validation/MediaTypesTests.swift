import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

/// Bodies read by their media type (`MediaTypes.decode`): JSON, a form's fields, text, and bytes left unread;
/// a request's body and a response's body are read alike, as they share the one reader.
@Suite struct MediaTypesTests {
    /// One operation taking and giving the same four media types, each with a rule a body can break.
    static let document = #"""
        {"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
         "paths": {"/things": {"post": {
           "requestBody": {"required": true, "content": {
             "application/json": {"schema": {"$ref": "#/components/schemas/Thing"}},
             "application/x-www-form-urlencoded": {"schema": {"$ref": "#/components/schemas/Thing"}},
             "text/plain": {"schema": {"type": "string", "maxLength": 3}},
             "application/octet-stream": {"schema": {"type": "string", "maxLength": 1}}}},
           "responses": {"200": {"description": "ok", "content": {
             "application/json": {"schema": {"$ref": "#/components/schemas/Thing"}},
             "application/x-www-form-urlencoded": {"schema": {"$ref": "#/components/schemas/Thing"}},
             "text/plain": {"schema": {"type": "string", "maxLength": 3}},
             "application/octet-stream": {"schema": {"type": "string", "maxLength": 1}}}}}}}},
         "components": {"schemas": {"Thing": {"type": "object", "required": ["n"],
           "properties": {"n": {"type": "integer"}}}}}}
        """#

    struct Case: Sendable, CustomTestStringConvertible {
        let contentType: String
        let body: String
        /// The rules the body breaks, in order.
        let rules: [String]
        var testDescription: String { "\(contentType): \(body)" }
    }

    static let cases: [Case] = [
        Case(contentType: "application/json", body: #"{"n": 1}"#, rules: []),
        Case(contentType: "application/json; charset=utf-8", body: #"{"n": "one"}"#, rules: ["type"]),
        Case(contentType: "application/json", body: #"{"n": "#, rules: ["json"]),
        Case(contentType: "application/json", body: #"{}"#, rules: ["required"]),
        Case(contentType: "application/x-www-form-urlencoded", body: "n=1", rules: []),
        Case(contentType: "application/x-www-form-urlencoded", body: "n=one&x=%20", rules: ["type"]),
        Case(contentType: "application/x-www-form-urlencoded", body: "m=1", rules: ["required"]),
        Case(contentType: "text/plain", body: "abc", rules: []),
        Case(contentType: "text/plain", body: "abcd", rules: ["maxLength"]),
        // Bytes of other types are not read: only their content type is checked.
        Case(contentType: "application/octet-stream", body: "more than one byte", rules: []),
    ]

    @Test(arguments: cases)
    func requestsAndResponsesReadABodyAlike(_ item: Case) throws {
        let contract = try OpenAPIContract(text: Self.document)
        let sent = try request(
            .post, "https://api.test/things", headers: ["Content-Type": item.contentType], body: item.body)
        #expect(contract.violations(of: sent).map(\.rule) == item.rules)
        let valid = try request(.post, "https://api.test/things", json: #"{"n": 1}"#)
        let answered = contract.violations(
            ofResponse: 200, headers: HTTPHeaders(["Content-Type": item.contentType]), body: Data(item.body.utf8),
            to: valid)
        #expect(answered.map(\.rule) == item.rules)
    }

    @Test func aBrokenJSONBodyIsNamedByLineAndColumn() throws {
        let contract = try OpenAPIContract(text: Self.document)
        let sent = try request(.post, "https://api.test/things", json: "{\n  \"n\": 1,\n  oops\n}")
        let violation = try #require(contract.violations(of: sent).first)
        #expect(violation.rule == "json")
        #expect(violation.message.contains("3:3"), "\(violation.message)")
    }
}
