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
    ]

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
}
