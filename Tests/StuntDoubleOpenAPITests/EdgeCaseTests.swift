import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

@Suite("OpenAPI corners real documents have")
struct EdgeCaseTests {
    static let document = """
        openapi: 3.0.3
        info: { title: Corners, version: "1" }
        paths:
          /pets:
            put:
              requestBody:
                content:
                  application/json:
                    schema:
                      nullable: true
                      allOf: [{ $ref: "#/components/schemas/Pet" }]
              responses:
                default:
                  description: Whatever happened.
                  content:
                    application/json:
                      schema: { $ref: "#/components/schemas/Pet" }
          /pets/{id}.{format}:
            get:
              parameters:
                - { name: id, in: path, required: true, schema: { type: string } }
                - { name: format, in: path, required: true, schema: { type: string, enum: [json, xml] } }
                - { name: X-Trace, in: header, schema: { type: array, items: { type: integer } } }
              responses:
                "2XX":
                  description: The pet.
                  headers:
                    X-Rate-Limit: { schema: { type: integer, minimum: 1, maximum: 100 } }
                  content:
                    application/json:
                      schema: { $ref: "#/components/schemas/Pet" }
                    application/xml:
                      schema: { type: string }
                      example: "<pet/>"
        components:
          schemas:
            Pet:
              type: object
              required: [name]
              properties:
                name: { type: string }
                born: { type: string, format: date }
        """

    private let stubber: HTTPStubber = {
        let stubber = HTTPStubber()
        // swift-format-ignore: NeverUseForceTry
        stubber.load(try! OpenAPIContract(text: EdgeCaseTests.document))
        return stubber
    }()

    @Test("nullable beside allOf admits null (3.0); an operation with only default answers 200")
    func nullableAndDefault() throws {
        let plan = try stubber.response(for: try request(.put, "http://h/pets", json: "null"))
        #expect(plan.status == 200)
        #expect(plan.text == #"{"name":"string","born":"2012-01-01"}"#)
        let invalid = try stubber.response(for: try request(.put, "http://h/pets", json: #"{"born": "x"}"#))
        #expect(invalid.status == 422)
        #expect(invalid.text.contains("body.name") && invalid.text.contains("body.born"))
    }

    @Test("Two variables in one segment, a header array, a 2XX range, and Accept choosing the media type")
    func segmentsHeadersRangesAccept() throws {
        let json = try stubber.response(for: try request(.get, "http://h/pets/rex.json", headers: ["X-Trace": "1,2,3"]))
        #expect(json.status == 200)
        #expect(json.response?.headers[HTTPHeaders.Name(rawValue: "X-Rate-Limit")] == "1")
        let xml = try stubber.response(
            for: try request(.get, "http://h/pets/rex.xml", headers: ["Accept": "application/xml"]))
        #expect(xml.text == "<pet/>" && xml.response?.headers[.contentType] == "application/xml")
        let none = try stubber.response(
            for: try request(.get, "http://h/pets/rex.json", headers: ["Accept": "image/png"]))
        #expect(none.status == 406)
        let badFormat = try stubber.response(for: try request(.get, "http://h/pets/rex.yaml"))
        #expect(badFormat.status == 400 && badFormat.text.contains("path.format"))
        let badTrace = try stubber.response(
            for: try request(.get, "http://h/pets/rex.json", headers: ["X-Trace": "1,two"]))
        #expect(badTrace.status == 400 && badTrace.text.contains("header.X-Trace[1]"))
    }
}

@Suite("Refusals in a document's own error format")
struct DeclaredErrorTests {
    static let document = """
        openapi: 3.0.3
        info: { title: Errors, version: "1" }
        paths:
          /readings:
            get:
              parameters:
                - { name: from, in: query, required: true, schema: { type: string, format: date-time } }
                - { name: id, in: query, schema: { type: integer, format: int64 } }
                - { name: kinds, in: query, style: pipeDelimited, explode: false, schema: { type: array, items: { type: string, enum: [a, b] } } }
                - { name: units, in: cookie, schema: { type: string, enum: [metric, imperial] } }
              responses:
                "200": { description: ok }
                "400":
                  description: Bad request.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [code, message]
                        properties: { code: { type: integer }, message: { type: string } }
                        additionalProperties: false
                      example: { code: 40, message: invalid }
          /alerts:
            post:
              requestBody:
                content:
                  application/x-www-form-urlencoded:
                    schema:
                      type: object
                      required: [channels]
                      properties:
                        channels: { type: array, items: { type: string, enum: [email, sms] } }
                        threshold: { type: number }
              responses:
                "201": { description: Created. }
        """

    private let stubber: HTTPStubber = {
        let stubber = HTTPStubber()
        // swift-format-ignore: NeverUseForceTry
        stubber.load(try! OpenAPIContract(text: DeclaredErrorTests.document))
        return stubber
    }()

    @Test("A declared 400 whose schema has no room for violations: its example, the rules in a header")
    func declaredFormat() throws {
        let refused = try stubber.response(for: try request(.get, "http://h/readings?from=yesterday"))
        #expect(refused.status == 400)
        #expect(refused.response?.headers[.contentType] == "application/json")
        #expect(refused.text == #"{"code":40,"message":"invalid"}"#)
        let header = refused.response?.headers[HTTPHeaders.Name(rawValue: "StuntDouble-Violations")]
        #expect(header?.hasPrefix(#"query.from: "yesterday" is not a valid date-time (format, openapi:"#) == true)
    }

    @Test("Found by schemathesis: offsets in date-times, empty arrays and cookies, int64's end, form arrays")
    func schemathesisFinds() throws {
        let ok = [
            "http://h/readings?from=2025-02-01T12:00:00%2B01:00",
            "http://h/readings?from=2025-02-01T12:00:00-05:30&kinds=",
            "http://h/readings?from=2025-02-01T12:00:00Z&id=9223372036854775807",
        ]
        for url in ok {
            let plan = try stubber.response(for: try request(.get, url))
            #expect(
                plan.status == 200,
                "\(url): \(plan.response?.headers[HTTPHeaders.Name(rawValue: "StuntDouble-Violations")] ?? "")")
        }
        let refused = [
            "http://h/readings?from=2025-02-01T12:00:00%2B24:00",
            "http://h/readings?from=2025-02-01T12:00:00Z&id=9223372036854775808",
        ]
        for url in refused {
            #expect(try stubber.response(for: try request(.get, url)).status == 400, "\(url)")
        }
        let emptyCookie = try stubber.response(
            for: try request(.get, "http://h/readings?from=2025-02-01T12:00:00Z", headers: ["Cookie": "units="]))
        #expect(emptyCookie.status == 400)
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        #expect(
            try stubber.response(for: try request(.post, "http://h/alerts", headers: form, body: "channels=email"))
                .status == 201)
        #expect(
            try stubber.response(
                for: try request(
                    .post, "http://h/alerts", headers: form, body: "channels=email&channels=sms&threshold=2.5")
            ).status == 201)
        let wrong = try stubber.response(
            for: try request(.post, "http://h/alerts", headers: form, body: "channels=fax"))
        #expect(wrong.status == 422 && wrong.text.contains("body.channels[0]"))
    }
}
