import Foundation
import TestSupport
import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

/// Response templating in stub files: which mappings are templates, what is templated, and where a broken
/// template is reported.
@Suite struct StubFileTemplatingTests {
    let fixed = TemplateEnvironment(now: { Date(timeIntervalSince1970: 1_767_225_600) }, seed: 1)

    @Test func aMappingWithTheTransformerTemplatesItsBodyAndHeaders() throws {
        let root = try StubRoot(
            mapping: #"""
                {"request": {"method": "GET", "urlPathTemplate": "/users/{id}"},
                 "response": {"status": 200,
                   "headers": {"X-User": "{{request.pathParameters.id}}", "X-Plain": "{{kept}}"},
                   "jsonBody": {"id": "{{request.pathParameters.id}}", "day": "{{now format='yyyy-MM-dd'}}"},
                   "transformers": ["response-template"]}}
                """#)
        #expect(root.files.diagnostics.isEmpty, "\(root.files.diagnostics)")
        let stubber = HTTPStubber()
        try stubber.load(stubFilesAt: root.url, templating: .init(environment: fixed))
        let plan = try #require(stubber.plan("GET", "http://h/users/42"))
        #expect(String(decoding: plan.body, as: UTF8.self) == #"{"id":"42","day":"2026-01-01"}"#)
        #expect(plan.response?.headers[HTTPHeaders.Name(rawValue: "X-User")] == "42")
        #expect(plan.response?.headers[HTTPHeaders.Name(rawValue: "X-Plain")] == "", "a missing value renders empty")
        #expect(plan.response?.headers[.contentLength] == String(plan.body.count))
    }

    @Test func withoutTheTransformerATemplateIsTextUnlessTemplatingIsGlobal() throws {
        let root = try StubRoot(mapping: #"{"request": {"url": "/x"}, "response": {"body": "{{request.method}}"}}"#)
        #expect(try root.stubber().bodyText("GET", "http://h/x") == "{{request.method}}")
        let global = HTTPStubber()
        try global.load(stubFilesAt: root.url, templating: .global)
        #expect(global.bodyText("GET", "http://h/x") == "GET")
    }

    @Test func aBodyFileIsATemplateAndItsNameCanBeOne() throws {
        let root = try StubRoot([
            "mappings/files.json": #"""
            {"mappings": [
              {"request": {"urlPath": "/fixed"}, "response": {"bodyFileName": "greeting.txt", "transformers": ["response-template"]}},
              {"request": {"urlPathPattern": "/items/.*"}, "response": {"bodyFileName": "item-{{request.pathSegments.[1]}}.json", "transformers": ["response-template"]}}
            ]}
            """#,
            "__files/greeting.txt": "hello {{request.query.name}}",
            "__files/item-7.json": #"{"item": {{request.pathSegments.[1]}}}"#,
            "__files/item-9.json": "{{#if request.query.x}} never closed",
        ])
        #expect(root.files.diagnostics.isEmpty, "\(root.files.diagnostics)")
        let stubber = try root.stubber()
        #expect(stubber.bodyText("GET", "http://h/fixed?name=ada") == "hello ada")
        #expect(stubber.bodyText("GET", "http://h/items/7") == #"{"item": 7}"#)
        let missing = try #require(stubber.plan("GET", "http://h/items/8"))
        #expect(missing.response?.statusCode == .internalServerError)
        #expect(String(decoding: missing.body, as: UTF8.self).contains("item-8.json"))
        let broken = try #require(stubber.plan("GET", "http://h/items/9"))
        #expect(broken.response?.statusCode == .internalServerError, "never the template's text as it is")
        #expect(String(decoding: broken.body, as: UTF8.self).contains("item-9.json cannot be compiled"))
        #expect(
            stubber.plan("GET", "http://h/items/..%2F..%2Fmappings%2Ffiles")?.response?.statusCode
                == .internalServerError)
    }

    @Test func transformerParametersAreTheTemplatesParameters() throws {
        let root = try StubRoot(
            mapping: #"""
                {"request": {"url": "/p"}, "response": {"body": "{{parameters.greeting}}, {{parameters.count}}",
                 "transformers": ["response-template"], "transformerParameters": {"greeting": "hi", "count": 3}}}
                """#)
        #expect(try root.stubber().bodyText("GET", "http://h/p") == "hi, 3")
    }

    @Test func aBrokenTemplateIsReportedWhereItIsInTheFile() throws {
        // The error is at the `{{#if` in the body: line 2, after the escaped quotes before it.
        let root = try StubRoot(
            mapping: #"""
                {"request": {"url": "/b"},
                 "response": {"body": "say \"hi\" {{#if request.query.x}}open", "transformers": ["response-template"]}}
                """#)
        let error = try #require(root.files.errors.first)
        #expect(error.field == "response.body")
        #expect(error.message.contains("{{#if}} is never closed"))
        #expect(error.line == 2)
        let text = #" "response": {"body": "say \"hi\" "#
        #expect(error.column == text.utf8.count + 1, "the column of the tag, escapes counted as written")

        let lenient = StubFiles(root: root.url, unsupportedFeatures: .answerWithError)
        #expect(lenient.errors.isEmpty && lenient.warnings.count == 1)
        let stubber = HTTPStubber()
        try stubber.load(lenient)
        let plan = try #require(stubber.plan("GET", "http://h/b"))
        #expect(plan.response?.statusCode == .internalServerError)
        #expect(String(decoding: plan.body, as: UTF8.self).contains("cannot be compiled"))
    }
}
