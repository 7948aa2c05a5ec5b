import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

/// Documents that break the letter of the specification in ways real public documents do, where the meaning
/// survives: each is read as it means with a deviation at its file, line and column, refused when deviations are,
/// and the requests it describes are checked as it means them. Our own documents, one deviation each.
@Suite("Deviations from the specification")
struct DeviationTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let document: String
        /// `line:column` and a part of the message.
        let expected: (place: String, text: String)
        /// A request the document allows, and one it refuses (with the rule broken), as it means them.
        var allowed: (HTTPMethod, String)?
        var refused: (HTTPMethod, String, rule: String)?

        var description: String { name }
    }

    static let head31 = "openapi: 3.1.0\ninfo: {title: T, version: '1'}\n"
    static let head30 = "openapi: 3.0.3\ninfo: {title: T, version: '1'}\n"

    static let cases: [Case] = [
        Case(
            name: "a server variable's enum lists a number",
            document: head31 + """
                servers:
                  - url: https://api.example.com:{port}/v1
                    variables:
                      port:
                        default: '443'
                        enum:
                          - '443'
                          - 8443
                paths: {}
                """, expected: ("10:13", "enum lists 8443, not a string: read as \"8443\"")),
        Case(
            name: "openapi and info.version written as numbers",
            document: """
                openapi: 3.0
                info: {title: T, version: 1.0}
                paths: {}
                """, expected: ("1:10", "openapi 3.0 has no patch version: read as 3.0.4")),
        Case(
            name: "exclusiveMinimum: true in a 3.1 document",
            document: head31 + """
                paths:
                  /items/{id}:
                    get:
                      parameters:
                        - {name: id, in: path, required: true, schema: {type: integer, minimum: 0, exclusiveMinimum: true}}
                      responses: {'200': {description: ok}}
                """, expected: ("7:102", "exclusiveMinimum: true is OpenAPI 3.0's form"),
            allowed: (.get, "http://h/items/1"), refused: (.get, "http://h/items/0", "exclusiveMinimum")),
        Case(
            name: "a numeric exclusiveMaximum in a 3.0 document",
            document: head30 + """
                paths:
                  /items/{id}:
                    get:
                      parameters:
                        - {name: id, in: path, required: true, schema: {type: integer, exclusiveMaximum: 10}}
                      responses: {'200': {description: ok}}
                """, expected: ("7:90", "exclusiveMaximum: 10 is OpenAPI 3.1's form"),
            allowed: (.get, "http://h/items/9"), refused: (.get, "http://h/items/10", "exclusiveMaximum")),
        Case(
            name: "a list of types in a 3.0 document",
            document: head30 + """
                paths:
                  /search:
                    get:
                      parameters:
                        - {name: q, in: query, required: true, schema: {type: [integer, 'null']}}
                      responses: {'200': {description: ok}}
                """, expected: ("7:63", "read as type: integer, nullable: true"),
            allowed: (.get, "http://h/search?q=3"), refused: (.get, "http://h/search?q=x", "type")),
        Case(
            name: "null without quotes in a 3.1 type list",
            document: head31 + """
                paths:
                  /search:
                    get:
                      parameters:
                        - {name: q, in: query, required: true, schema: {type: [integer, null]}}
                      responses: {'200': {description: ok}}
                """, expected: ("7:63", "read as \"null\""),
            allowed: (.get, "http://h/search?q=3"), refused: (.get, "http://h/search?q=x", "type")),
        Case(
            name: "a path parameter not marked required",
            document: head31 + """
                paths:
                  /items/{id}:
                    get:
                      parameters:
                        - {name: id, in: path, schema: {type: integer}}
                      responses: {'200': {description: ok}}
                """, expected: ("7:11", "path parameter id is not marked required"),
            allowed: (.get, "http://h/items/3"), refused: (.get, "http://h/items/x", "type")),
        Case(
            name: "a path variable no parameter declares",
            document: head31 + """
                paths:
                  /items/{id}:
                    get:
                      responses: {'200': {description: ok}}
                """, expected: ("6:7", "read as a required string path parameter"),
            allowed: (.get, "http://h/items/anything")),
        Case(
            name: "a response without a description",
            document: head30 + """
                paths:
                  /items:
                    get:
                      responses:
                        '200':
                          content: {application/json: {schema: {type: array}}}
                """, expected: ("8:11", "the 200 response has no description"),
            allowed: (.get, "http://h/items")),
        Case(
            name: "a string enum that lists numbers",
            document: head31 + """
                paths:
                  /days:
                    get:
                      parameters:
                        - {name: days, in: query, required: true, schema: {type: string, enum: [1, 7, max]}}
                      responses: {'200': {description: ok}}
                """, expected: ("7:80", "a string schema's enum lists values that are not strings"),
            allowed: (.get, "http://h/days?days=7"), refused: (.get, "http://h/days?days=30", "enum")),
        Case(
            name: "a YAML merge key",
            document: head31 + """
                components:
                  parameters:
                    page: &page {name: page, in: query, required: true, schema: {type: integer}}
                paths:
                  /a:
                    get:
                      parameters:
                        - <<: *page
                          name: p
                      responses: {'200': {description: ok}}
                """, expected: ("5:11", "a YAML merge key (<<)"),
            allowed: (.get, "http://h/a?p=2"), refused: (.get, "http://h/a?p=x", "type")),
        Case(
            name: "a type name that is no JSON Schema type",
            document: head30 + """
                paths:
                  /a:
                    get:
                      parameters:
                        - {name: n, in: query, required: true, schema: {type: int}}
                      responses: {'200': {description: ok}}
                """, expected: ("7:63", "type int is no JSON Schema type: read as integer"),
            allowed: (.get, "http://h/a?n=2"), refused: (.get, "http://h/a?n=x", "type")),
        Case(
            name: "a parameter in Swagger 2's shape",
            document: head30 + """
                paths:
                  /a:
                    get:
                      parameters:
                        - {name: n, in: query, required: true, type: integer, minimum: 1}
                      responses: {'200': {description: ok}}
                """, expected: ("7:11", "gives its type beside name and in, as Swagger 2 did"),
            allowed: (.get, "http://h/a?n=2"), refused: (.get, "http://h/a?n=0", "minimum")),
        Case(
            name: "required: true inside a property's schema",
            document: head30 + """
                paths:
                  /a:
                    post:
                      requestBody:
                        content:
                          application/json:
                            schema:
                              type: object
                              properties:
                                name: {type: string, required: true}
                      responses: {'200': {description: ok}}
                """, expected: ("12:48", "property name says required: true in its own schema")),
        Case(
            name: "nullable beside a $ref in a 3.0 document",
            document: head30 + """
                paths:
                  /a:
                    get:
                      parameters:
                        - {name: n, in: query, required: true, schema: {$ref: '#/components/schemas/Count', nullable: true}}
                      responses: {'200': {description: ok}}
                components:
                  schemas:
                    Count: {type: integer}
                """,
            expected: (
                "7:63",
                "keywords beside a $ref (nullable) are ignored by OpenAPI 3.0, though meant: read as applying with it"
            ),
            allowed: (.get, "http://h/a?n=2"), refused: (.get, "http://h/a?n=x", "type")),
        Case(
            name: "an empty termsOfService",
            document: """
                openapi: 3.1.0
                info: {title: T, version: '1', termsOfService: ''}
                paths: {}
                """, expected: ("2:48", "info.termsOfService \"\" is no URL: left out")),
        Case(
            name: "an operation without responses",
            document: head30 + """
                paths:
                  /a:
                    get:
                      operationId: a
                """, expected: ("6:7", "the operation has no responses"), allowed: (.get, "http://h/a")),
        Case(
            name: "a component name with a character the specification does not allow",
            document: head31 + """
                paths:
                  /a:
                    get:
                      responses:
                        '200':
                          description: ok
                          content: {application/json: {schema: {$ref: '#/components/schemas/Page+Item'}}}
                components:
                  schemas:
                    Page+Item: {type: object}
                """, expected: ("12:16", "components.schemas name \"Page+Item\" has characters"),
            allowed: (.get, "http://h/a")),
        Case(
            name: "a $ref whose pointer passes through another $ref",
            document: head31 + """
                paths:
                  /a:
                    get:
                      parameters:
                        - {name: n, in: query, required: true, schema: {$ref: '#/components/schemas/Box/properties/size'}}
                      responses: {'200': {description: ok}}
                components:
                  schemas:
                    Box: {$ref: '#/components/schemas/Crate'}
                    Crate: {type: object, properties: {size: {type: integer, maximum: 9}}}
                """, expected: ("7:56", "passes through another $ref (#/components/schemas/Crate)"),
            allowed: (.get, "http://h/a?n=9"), refused: (.get, "http://h/a?n=10", "maximum")),
        Case(
            name: "a response that is a $ref to a request body",
            document: head30 + """
                paths:
                  /a:
                    get:
                      responses:
                        '200': {$ref: '#/components/requestBodies/Thing'}
                components:
                  requestBodies:
                    Thing: {description: a thing, content: {text/plain: {schema: {type: string}, example: thing}}}
                """,
            expected: ("7:16", "the 200 response is a $ref to #/components/requestBodies/Thing, which is no response"),
            allowed: (.get, "http://h/a")),
        Case(
            name: "a security requirement naming a scheme that is not defined, beside one that is",
            document: head31 + """
                paths:
                  /a:
                    get:
                      security: [{bearer: []}, {api_key: []}]
                      responses: {'200': {description: ok}}
                components:
                  securitySchemes:
                    bearer: {type: http, scheme: bearer}
                """, expected: ("6:32", "security names \"api_key\", which components.securitySchemes does not define"),
            refused: (.get, "http://h/a", "security")),
        Case(
            name: "a security requirement naming a scheme in another case",
            document: head31 + """
                paths:
                  /a:
                    get:
                      security: [{BearerAuth: []}]
                      responses: {'200': {description: ok}}
                components:
                  securitySchemes:
                    bearerAuth: {type: http, scheme: bearer}
                """, expected: ("6:18", "differs only in case from the scheme \"bearerAuth\": read as it"),
            refused: (.get, "http://h/a", "security")),
        Case(
            name: "the document's only security requirement names a scheme that is not defined",
            document: head30 + """
                security: [{ApiKeyAuth: []}]
                paths:
                  /a:
                    get:
                      responses: {'200': {description: ok}}
                """,
            expected: (
                "3:12", "this way of authenticating is left out (nothing could check it), and no authentication"
            ),
            allowed: (.get, "http://h/a")),
        Case(
            name: "a default that breaks its own schema",
            document: head30 + """
                paths:
                  /a:
                    get:
                      parameters:
                        - {name: limit, in: query, schema: {type: integer, default: '20'}}
                      responses: {'200': {description: ok}}
                """, expected: ("7:44", "the schema's default \"20\" breaks it"),
            allowed: (.get, "http://h/a?limit=3"), refused: (.get, "http://h/a?limit=x", "type")),
        Case(
            name: "a response key naming several codes",
            document: head30 + """
                paths:
                  /a:
                    get:
                      responses:
                        '200': {description: ok}
                        '404/596': {description: not there}
                """,
            expected: ("8:20", "the response key \"404/596\" names several codes: read as one response for each"),
            allowed: (.get, "http://h/a")),
    ]

    @Test func examplesAndDefaultsThatBreakTheirSchemasAreReadAsTheyMeanOrLeftOut() throws {
        let contract = try OpenAPIContract(
            text: Self.head31 + """
                paths:
                  /a:
                    get:
                      responses:
                        '200':
                          description: ok
                          content:
                            application/json:
                              schema:
                                type: object
                                required: [count, open, since]
                                properties:
                                  count: {type: integer, minimum: 1, example: many}
                                  open: {type: boolean, example: 'false'}
                                  since: {type: [number, 'null'], example: '2.5'}
                """)
        #expect(contract.deviations.count == 3, "\(contract.deviations)")
        #expect(
            contract.deviations.contains {
                $0.message.contains("example \"many\" breaks it") && $0.message.contains("left out")
            })
        #expect(contract.deviations.contains { $0.message.hasSuffix("read as false") })
        #expect(contract.deviations.contains { $0.message.hasSuffix("read as 2.5") }, "\(contract.deviations)")
        let stubber = HTTPStubber()
        stubber.load(contract)
        let sent = try request(.get, "http://h/a")
        let plan = try stubber.response(for: sent)
        let answer = try SchemaValue.parse(plan.body)
        #expect(answer["open"] == .bool(false) && answer["since"]?.jsonText == "2.5", "\(answer.jsonText)")
        let violations = contract.violations(
            ofResponse: 200, headers: plan.response?.headers ?? [:], body: plan.body, to: sent)
        #expect(violations.isEmpty, "the answer keeps to the document: \(answer.jsonText)")
    }

    @Test func aResponseKeyNamingSeveralCodesAnswersForEach() throws {
        let contract = try OpenAPIContract(
            text: Self.head30 + """
                paths:
                  /a:
                    get:
                      responses:
                        '404': {description: not there, content: {text/plain: {schema: {type: string}}}}
                        '404, 410 / 596': {description: gone}
                """)
        let sent = try request(.get, "http://h/a")
        func broken(_ status: Int, _ headers: HTTPHeaders = [:], _ body: String = "") -> [String] {
            contract.violations(ofResponse: status, headers: headers, body: Data(body.utf8), to: sent).map(\.rule)
        }
        #expect(broken(410) == [] && broken(596) == [])
        #expect(broken(404, ["Content-Type": "text/plain"], "x") == [], "the 404 written on its own wins")
        #expect(broken(500) == ["status"])
    }

    @Test(arguments: cases)
    func aDeviationIsReadAsItMeansAndSaidWhere(_ deviation: Case) throws {
        let contract = try OpenAPIContract(text: deviation.document)
        let found = contract.deviations.map { "\($0.location.line):\($0.location.column): \($0.message)" }
        #expect(
            found.contains { $0.hasPrefix(deviation.expected.place + ": ") && $0.contains(deviation.expected.text) },
            "\(found)")
        #expect(contract.warnings.contains { $0.contains(deviation.expected.text) })
        if let (method, url) = deviation.allowed {
            #expect(contract.violations(of: try request(method, url)).isEmpty, "\(url)")
        }
        if let (method, url, rule) = deviation.refused {
            #expect(contract.violations(of: try request(method, url)).map(\.rule).contains(rule), "\(url)")
        }
        #expect {
            try OpenAPIContract(text: deviation.document, deviations: .refuse)
        } throws: { error in
            (error as? OpenAPIContractError)?.message.contains(deviation.expected.text) == true
        }
    }

    @Test("An operation written as a $ref to another file is read from there, its own $refs from its folder")
    func operationsGivenAsReferences() throws {
        let folder = try Documents.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("resources/items"), withIntermediateDirectories: true)
        try Data(
            (Self.head30 + """
                paths:
                  /items/{id}:
                    get:
                      $ref: resources/items/get_item.yml
                """).utf8
        ).write(to: folder.appendingPathComponent("openapi.yaml"))
        try Data(
            """
            operationId: getItem
            parameters:
              - $ref: parameters.yml#/id
            responses:
              '200':
                description: the item
                content: {application/json: {schema: {$ref: models/item.yml}}}
            """.utf8
        ).write(to: folder.appendingPathComponent("resources/items/get_item.yml"))
        try Data(
            "id: {name: id, in: path, required: true, schema: {type: integer, minimum: 1}}\n".utf8
        ).write(to: folder.appendingPathComponent("resources/items/parameters.yml"))
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("resources/items/models"), withIntermediateDirectories: true)
        try Data("type: object\nrequired: [id]\nproperties: {id: {type: integer}}\nexample: {id: 7}\n".utf8)
            .write(to: folder.appendingPathComponent("resources/items/models/item.yml"))

        let contract = try OpenAPIContract(contentsOf: folder.appendingPathComponent("openapi.yaml"))
        #expect(contract.operationTitles == ["GET /items/{id} (getItem)"])
        #expect(contract.deviations.map(\.location.line) == [6])
        #expect(contract.violations(of: try request(.get, "http://h/items/0")).map(\.rule) == ["minimum"])
        let stubber = HTTPStubber()
        stubber.load(contract)
        let plan = try stubber.response(for: try request(.get, "http://h/items/3"))
        #expect(plan.status == 200 && plan.text.contains("7"), "\(plan.text)")
        #expect(throws: OpenAPIContractError.self) {
            try OpenAPIContract(contentsOf: folder.appendingPathComponent("openapi.yaml"), deviations: .refuse)
        }
    }

    @Test("A JSON document that starts with a byte-order mark reads as JSON")
    func byteOrderMark() throws {
        let folder = try Documents.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = #"{"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": {}}"#
        try (Data([0xEF, 0xBB, 0xBF]) + Data(json.utf8)).write(to: folder.appendingPathComponent("openapi.json"))
        let contract = try OpenAPIContract(contentsOf: folder.appendingPathComponent("openapi.json"))
        #expect(contract.title == "T" && contract.deviations.isEmpty)
    }

    @Test("A document without deviations has none, and loads the same either way")
    func aValidDocumentHasNone() throws {
        #expect(Documents.shop.deviations.isEmpty)
        #expect(Documents.legacy.deviations.isEmpty)
        _ = try OpenAPIContract(contentsOf: Documents.url("shop.yaml"), deviations: .refuse)
    }

    @Test("A YAML integer written with a leading zero is that integer in JSON (an example served as it means)")
    func leadingZeros() throws {
        let contract = try OpenAPIContract(
            text: Self.head30 + """
                paths:
                  /code:
                    get:
                      responses:
                        '200':
                          description: ok
                          content: {application/json: {schema: {type: integer}, example: 090}}
                """)
        let stubber = HTTPStubber()
        stubber.load(contract)
        let plan = try stubber.response(for: try request(.get, "http://h/code"))
        #expect(plan.status == 200 && plan.text == "90", "\(plan.text)")
    }
}
