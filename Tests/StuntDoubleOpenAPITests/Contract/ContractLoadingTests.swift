import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

@Suite("Loading OpenAPI documents")
struct ContractLoadingTests {
    @Test("A 3.1 YAML document with $refs to another file compiles every operation")
    func loadsYAMLAcrossFiles() throws {
        let contract = Documents.shop
        #expect(contract.title == "Corner Shop")
        #expect(contract.version == "3.1.0")
        #expect(contract.operationCount == 10)
        #expect(contract.operationTitles.contains("GET /products/{productId} (getProduct)"))
        #expect(contract.warnings.isEmpty)
    }

    @Test("A 3.0 JSON document compiles, nullable and boolean exclusiveMinimum read as 3.0 means them")
    func loadsJSON30() throws {
        let contract = Documents.legacy
        #expect(contract.operationCount == 2)
        #expect(contract.violations(of: try request(.get, "http://h/accounts/0")).map(\.rule) == ["exclusiveMinimum"])
        #expect(contract.violations(of: try request(.get, "http://h/accounts/1")).isEmpty)
    }

    @Test("A broken $ref names the file, line and the missing name")
    func brokenReference() throws {
        let folder = try Documents.folder()
        let text = """
            openapi: 3.1.0
            info: { title: T, version: "1" }
            paths:
              /a:
                get:
                  responses:
                    "200":
                      description: ok
                      content:
                        application/json:
                          schema: { $ref: "#/components/schemas/Missing" }
            """
        let file = folder.appendingPathComponent("api.yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let error = #expect(throws: OpenAPIContractError.self) { try OpenAPIContract(contentsOf: file) }
        #expect(error?.message.contains("api.yaml:11:") == true)
        #expect(error?.message.contains("\"components\"") == true)
    }

    @Test("A remote $ref is refused: tests must not need the network")
    func remoteReference() throws {
        let text = """
            {"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": {"/a": {"get": {"responses": {"200":
            {"description": "ok", "content": {"application/json": {"schema": {"$ref": "https://example.com/s.json"}}}}}}}}}
            """
        let error = #expect(throws: OpenAPIContractError.self) { try OpenAPIContract(text: text) }
        #expect(error?.message.contains("remote") == true)
    }

    @Test("Not valid YAML: the line of the problem")
    func invalidYAML() throws {
        let error = #expect(throws: OpenAPIContractError.self) {
            try OpenAPIContract(text: "openapi: 3.1.0\ninfo:\n  title: [unclosed\n")
        }
        #expect(error?.message.contains("not valid YAML") == true)
    }

    @Test("A document OpenAPIKit refuses is refused with its reason and line")
    func structurallyInvalid() throws {
        let text = """
            openapi: 3.1.0
            info:
              title: T
            paths: {}
            """
        let error = #expect(throws: OpenAPIContractError.self) { try OpenAPIContract(text: text) }
        #expect(error?.message.contains("not a valid OpenAPI 3.1 document") == true)
        #expect(error?.message.hasPrefix("openapi:3:") == true, "\(String(describing: error))")
    }

    @Test("Swagger 2.0 is refused with what to do")
    func swagger2() throws {
        let error = #expect(throws: OpenAPIContractError.self) {
            try OpenAPIContract(text: #"{"swagger": "2.0", "info": {"title": "T", "version": "1"}, "paths": {}}"#)
        }
        #expect(error?.message.contains("Convert it") == true)
    }

    @Test("A path variable without its parameter is refused when deviations are (a string parameter otherwise)")
    func undeclaredPathParameter() throws {
        let text = """
            openapi: 3.0.3
            info: { title: T, version: "1" }
            paths:
              /users/{userId}:
                get:
                  responses:
                    "200": { description: ok }
            """
        let error = #expect(throws: OpenAPIContractError.self) {
            try OpenAPIContract(text: text, deviations: .refuse)
        }
        #expect(error?.message.contains("{userId}") == true)
        #expect(try OpenAPIContract(text: text).deviations.count == 1)
    }

    @Test("A missing file says which")
    func missingFile() {
        let error = #expect(throws: OpenAPIContractError.self) {
            try OpenAPIContract(contentsOf: URL(fileURLWithPath: "/nonexistent/api.yaml"))
        }
        #expect(error?.message.contains("cannot read") == true)
    }
}
