import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

/// What generators write that the specification does not allow: JSON Schema's old tuple form of `items`, and
/// status keys with the status's name after the code (a Java enum's, `204 NO_CONTENT`). Each loads, as a
/// deviation at its line, and is refused when deviations are.
@Suite("Deviations generators write")
struct GeneratorDeviationTests {
    /// The rules a JSON answer (200) to `sent` breaks.
    static func rules(_ contract: OpenAPIContract, brokenBy body: String, answering sent: HTTPIncomingRequest)
        -> [String]
    {
        contract.violations(
            ofResponse: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8), to: sent
        ).map(\.rule)
    }

    static let tuple = """
        openapi: 3.1.0
        info: {title: T, version: '1'}
        paths:
          /point:
            get:
              responses:
                '200':
                  description: ok
                  content:
                    application/json:
                      schema:
                        type: array
                        items:
                          - {type: string, enum: [x]}
                          - {type: integer, minimum: 7}
                        additionalItems: false
        """

    @Test func itemsAsAListOfSchemasIsReadAsPrefixItems() throws {
        let contract = try OpenAPIContract(text: Self.tuple)
        let deviation = try #require(contract.deviations.first { $0.message.contains("tuple form") })
        #expect(deviation.location.line == 14, "\(deviation)")
        #expect(deviation.message.hasSuffix("read as prefixItems, and additionalItems as items"), "\(deviation)")
        let stubber = HTTPStubber()
        stubber.load(contract)
        let sent = try request(.get, "http://h/point")
        let plan = try stubber.response(for: sent)
        #expect(plan.text == #"["x",7]"#)
        func broken(_ body: String) -> [String] { Self.rules(contract, brokenBy: body, answering: sent) }
        #expect(broken(#"["x",7]"#).isEmpty)
        #expect(!broken(#"[7,"x"]"#).isEmpty, "each place has its own schema")
        #expect(!broken(#"["x",7,8]"#).isEmpty, "additionalItems: false allows nothing after the tuple")
        #expect(throws: OpenAPIContractError.self) { try OpenAPIContract(text: Self.tuple, deviations: .refuse) }
    }

    static let namedStatus = """
        openapi: 3.0.3
        info: {title: T, version: '1'}
        paths:
          /items/{id}:
            delete:
              parameters:
                - {name: id, in: path, required: true, schema: {type: string}}
              responses:
                '204 NO_CONTENT': {description: deleted}
                '404 Not Found': {description: none such}
                '404': {description: written alone}
        """

    @Test func aStatusKeyWithItsNameAfterTheCodeIsReadAsTheCode() throws {
        let contract = try OpenAPIContract(text: Self.namedStatus)
        let messages = contract.deviations.map(\.message)
        #expect(messages.contains { $0.contains(#""204 NO_CONTENT" has text after its code: read as 204"#) })
        #expect(messages.contains { $0.contains(#""404 Not Found" has text after its code: left out"#) }, "\(messages)")
        let sent = try request(.delete, "http://h/items/1")
        #expect(contract.violations(ofResponse: 204, headers: [:], body: Data(), to: sent).isEmpty)
        #expect(contract.violations(ofResponse: 404, headers: [:], body: Data(), to: sent).isEmpty)
        #expect(contract.violations(ofResponse: 200, headers: [:], body: Data(), to: sent).map(\.rule) == ["status"])
        let stubber = HTTPStubber()
        stubber.load(contract)
        #expect(try stubber.response(for: sent).status == 204)
        #expect(throws: OpenAPIContractError.self) {
            try OpenAPIContract(text: Self.namedStatus, deviations: .refuse)
        }
    }

    static let brokenExamples = """
        openapi: 3.0.3
        info: {title: T, version: '1'}
        paths:
          /pet:
            get:
              responses:
                '200':
                  description: ok
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [id, price]
                        properties: {id: {type: integer}, price: {type: number}}
                      examples:
                        listed: {value: [{id: 1, price: 2}]}
                        text: {value: {id: 1, price: '1'}}
                        good: {value: {id: 7, price: 2.5}}
          /tag:
            get:
              responses:
                '200':
                  description: ok
                  content:
                    application/json:
                      schema: {type: object, required: [name], properties: {name: {type: string}}}
                      example: [name]
        """

    /// A document's example that breaks its own schema is never an answer unless asked for: the next example
    /// that keeps to it is, or a value made from the schema.
    @Test func anExampleThatBreaksItsSchemaIsNotServedUnlessAsWritten() throws {
        let contract = try OpenAPIContract(text: Self.brokenExamples)
        let broken = contract.deviations.filter { $0.message.contains("breaks its schema") }
        #expect(broken.map(\.location.line) == [16, 17, 27], "\(contract.deviations)")
        #expect(broken[0].message.contains(#"the example "listed" of GET /pet 200 application/json"#), "\(broken[0])")
        #expect(broken[1].message.contains("at price"), "\(broken[1])")
        let pet = try request(.get, "http://h/pet")
        let tag = try request(.get, "http://h/tag")
        let stubber = HTTPStubber()
        stubber.load(contract)
        #expect(try stubber.response(for: pet).text == #"{"id":7,"price":2.5}"#)
        let made = try stubber.response(for: tag)
        #expect(made.text == #"{"name":"string"}"#)
        for (sent, plan) in [(pet, try stubber.response(for: pet)), (tag, made)] {
            #expect(
                contract.violations(ofResponse: 200, headers: plan.response!.headers, body: plan.body, to: sent).isEmpty
            )
        }
        // Asked for by name, an example is what was asked for.
        let named = try request(.get, "http://h/pet", headers: ["Prefer": "example=text"])
        #expect(try stubber.response(for: named).text == #"{"id":1,"price":"1"}"#)

        var asWritten = OpenAPIAnswering()
        asWritten.servesExamplesAsWritten = true
        let prism = HTTPStubber()
        prism.load(contract, answering: asWritten)
        #expect(try prism.response(for: pet).text == #"[{"id":1,"price":2}]"#)
        #expect(try prism.response(for: tag).text == #"["name"]"#)
        #expect(throws: OpenAPIContractError.self) {
            try OpenAPIContract(text: Self.brokenExamples, deviations: .refuse)
        }
    }

    /// From the survey of public documents: L5-Swagger's parameter known only by name, rswag's `type: 'null'`
    /// branch in a 3.0 document, and Smithy's `contentEncoding: byte` (valid JSON Schema that OpenAPIKit refused).
    @Test func whatTheSurveyFoundLoads() throws {
        let contract = try OpenAPIContract(
            text: """
                openapi: 3.0.3
                info: {title: T, version: '1'}
                paths:
                  /countries:
                    get:
                      parameters:
                        - {name: limit, in: query, description: "Pagination limit, '-1' to get all data."}
                      responses:
                        '200':
                          description: ok
                          content:
                            application/json:
                              schema:
                                type: object
                                required: [url]
                                properties:
                                  url:
                                    oneOf:
                                      - type: string
                                      - type: 'null'
                """)
        let messages = contract.deviations.map(\.message)
        #expect(messages.contains { $0.contains("parameter limit has neither schema nor content") }, "\(messages)")
        #expect(messages.contains { $0.contains("a oneOf branch of type null") }, "\(messages)")
        let sent = try request(.get, "http://h/countries?limit=-1")
        #expect(contract.violations(of: sent).isEmpty)
        func broken(_ body: String) -> [String] { Self.rules(contract, brokenBy: body, answering: sent) }
        #expect(broken(#"{"url": null}"#).isEmpty)
        #expect(broken(#"{"url": "https://example.com"}"#).isEmpty)
        #expect(!broken(#"{"url": 7}"#).isEmpty)

        let smithy = try OpenAPIContract(
            text: """
                openapi: 3.1.0
                info: {title: T, version: '1'}
                paths:
                  /files:
                    post:
                      requestBody:
                        content:
                          application/json:
                            schema: {type: object, properties: {file: {type: string, contentEncoding: byte}}}
                      responses: {'204': {description: stored}}
                """)
        #expect(smithy.deviations.isEmpty, "valid JSON Schema: \(smithy.deviations)")
    }
}
