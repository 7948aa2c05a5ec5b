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

    static let surveyAnswers = """
        openapi: 3.1.0
        info: {title: T, version: '1'}
        paths:
          /evals/{id}:
            get:
              parameters:
                - {name: id, in: path, required: true, schema: {type: string}}
              responses:
                '200':
                  description: ok
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [source, models, union]
                        properties:
                          source:
                            anyOf:
                              - $ref: '#/components/schemas/EvalCustomDataSourceConfig'
                              - $ref: '#/components/schemas/EvalLogsDataSourceConfig'
                            discriminator: {propertyName: type}
                          models: {$ref: '#/components/schemas/Extended'}
                          union:
                            oneOf:
                              - {$ref: '#/components/schemas/FreeForm'}
                              - {$ref: '#/components/schemas/Closed'}
          /console:
            get:
              responses:
                '101': {description: Switching to a WebSocket}
                4XX:
                  description: refused
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [message]
                        properties: {message: {type: string}}
        components:
          schemas:
            EvalCustomDataSourceConfig:
              type: object
              required: [type, schema]
              properties:
                type: {type: string, enum: [custom]}
                schema: {type: object}
            EvalLogsDataSourceConfig:
              type: object
              required: [type]
              properties:
                type: {type: string, const: logs}
            Closed:
              type: object
              additionalProperties: false
              properties:
                name: {type: string}
            Aliased:
              allOf: [{$ref: '#/components/schemas/Closed'}]
            Extended:
              allOf:
                - {$ref: '#/components/schemas/Aliased'}
                - type: object
                  properties:
                    fromExtended: {type: string}
            FreeForm: {type: object}
        """

    /// What the survey's answers broke, seen as a JSON Schema validator sees them: a discriminator's value that its
    /// branch fixes itself (OpenAI), an `allOf` with a closed part (openapi-python-client), a `oneOf` of an open and
    /// a closed object, and an operation that documents only a WebSocket's `101` and its errors (Dropshot).
    @Test func answersKeepToWhatTheSurveyBroke() throws {
        let contract = try OpenAPIContract(text: Self.surveyAnswers)
        for dynamic in [false, true] {
            let stubber = HTTPStubber()
            stubber.load(contract, answering: OpenAPIAnswering(isDynamic: dynamic))
            for round in 0..<(dynamic ? 8 : 1) {
                let sent = try request(.get, "http://h/evals/\(round)")
                let plan = try stubber.response(for: sent)
                let body = try #require(plan.json as? [String: Any], "\(plan.text)")
                let source = try #require(body["source"] as? [String: Any], "\(plan.text)")
                #expect(["custom", "logs"].contains(source["type"] as? String), "the branch's own value: \(plan.text)")
                let models = try #require(body["models"] as? [String: Any], "\(plan.text)")
                #expect(models["fromExtended"] == nil, "the closed part refuses it: \(plan.text)")
                let union = try #require(body["union"] as? [String: Any], "\(plan.text)")
                #expect(union.keys.contains { $0 != "name" }, "only the open branch may admit it: \(plan.text)")
                #expect(Self.rules(contract, brokenBy: plan.text, answering: sent).isEmpty, "\(plan.text)")
            }
            let console = try stubber.response(for: try request(.get, "http://h/console"))
            #expect(console.status == 400, "a 1xx cannot end an answer: \(console.text)")
            #expect((console.json as? [String: Any])?["message"] is String, "\(console.text)")
        }
        let stubber = HTTPStubber()
        stubber.load(contract)
        let named = try stubber.response(for: try request(.get, "http://h/console", headers: ["Prefer": "code=101"]))
        #expect(named.status == 400)
        #expect(named.text.contains("informational"), "\(named.text)")
    }

    static let requestBodies = """
        openapi: 3.0.3
        info: {title: T, version: '1'}
        paths:
          /apply:
            patch:
              requestBody:
                required: true
                content:
                  application/apply-patch+yaml:
                    schema: {$ref: '#/components/schemas/Patch'}
                  '*/*':
                    schema: {$ref: '#/components/schemas/Patch'}
              responses: {'200': {description: applied}}
          /payload:
            put:
              requestBody:
                required: true
                content:
                  application/octet-stream:
                    schema: {type: string, format: binary}
                  application/json:
                    schema: {type: object}
              responses: {'200': {description: stored}}
        components:
          schemas:
            Patch:
              type: object
              required: [kind]
              properties:
                kind: {type: string}
                replicas: {type: integer}
        """

    /// From the survey's requests: Kubernetes' YAML bodies (`application/apply-patch+yaml`, and `text/yml` sent to
    /// a `*/*` body) are read as YAML, and an empty file is a body (Smithy's required `application/octet-stream`).
    @Test func yamlBodiesAreReadAsYAMLAndAnEmptyFileIsABody() throws {
        let contract = try OpenAPIContract(text: Self.requestBodies)
        func rules(_ method: HTTPMethod, _ path: String, _ type: String?, _ body: String) throws -> [String] {
            let headers = type.map { ["Content-Type": $0] } ?? [:]
            return contract.violations(of: try request(method, "http://h\(path)", headers: headers, body: body))
                .map(\.rule)
        }
        #expect(try rules(.patch, "/apply", "application/apply-patch+yaml", "kind: Deployment\nreplicas: 3\n").isEmpty)
        #expect(try rules(.patch, "/apply", "text/yml", "{kind: Deployment}").isEmpty, "a flow mapping is YAML")
        #expect(try rules(.patch, "/apply", "application/yaml", "replicas: three\n") == ["required", "type"])
        #expect(try rules(.patch, "/apply", "application/x-yaml", "kind: [unclosed\n") == ["yaml"])
        // `*/*` says nothing of how an object is written as XML or as text: only JSON and YAML bodies are read.
        #expect(try rules(.patch, "/apply", "text/xml", "<patch><replicas>3</replicas></patch>").isEmpty)
        #expect(try rules(.patch, "/apply", "text/plain", "kind=Deployment").isEmpty)
        #expect(try rules(.patch, "/apply", "application/json", #"{"replicas": 3}"#) == ["required"])
        #expect(try rules(.patch, "/apply", "text/vnd.yaml", "replicas: 3\n") == ["required"])
        #expect(try rules(.put, "/payload", "application/octet-stream", "").isEmpty, "an empty file")
        #expect(try rules(.put, "/payload", "application/json", "") == ["requestBody.required"])
        #expect(try rules(.put, "/payload", nil, "") == ["requestBody.required"])
    }

    /// What no answer can keep to, from the survey: `required` naming a member twice (OpenAI's containers), a
    /// `oneOf` listing the same schema twice, which no value can match exactly once (openapi-python-client's
    /// fixtures), and content for a 204 (Stoplight's exports). Each is read as meant, as a deviation at its line.
    @Test func namesAndBranchesListedTwiceAreReadOnce() throws {
        let text = """
            openapi: 3.1.0
            info: {title: T, version: '1'}
            paths:
              /containers:
                get:
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema:
                            oneOf:
                              - $ref: '#/components/schemas/Container'
                              - $ref: '#/components/schemas/Container'
                delete:
                  responses:
                    '204':
                      description: gone
                      content:
                        application/json:
                          schema: {type: object, properties: {}}
            components:
              schemas:
                Container:
                  type: object
                  required: [id, name, id]
                  properties: {id: {type: string}, name: {type: string}}
            """
        let contract = try OpenAPIContract(text: text)
        let deviations = contract.deviations.map { "\($0.location.line): \($0.message)" }
        #expect(
            deviations.contains(
                "13: oneOf lists #/components/schemas/Container more than once, so no value can match exactly one branch: read once"
            ), "\(deviations)")
        #expect(deviations.contains("26: required lists id more than once: read once"), "\(deviations)")
        #expect(
            deviations.contains("20: the 204 response has content, which HTTP does not let a 204 carry: read as none"),
            "\(deviations)")
        let stubber = HTTPStubber()
        stubber.load(contract)
        let deleted = try stubber.response(for: try request(.delete, "http://h/containers"))
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        #expect(
            contract.violations(
                ofResponse: 204, headers: [:], body: Data(), to: try request(.delete, "http://h/containers")
            ).isEmpty)
        let sent = try request(.get, "http://h/containers")
        #expect(Self.rules(contract, brokenBy: #"{"id": "a", "name": "b"}"#, answering: sent).isEmpty)
        #expect(Self.rules(contract, brokenBy: #"{"id": "a"}"#, answering: sent) == ["required"])
        #expect(throws: OpenAPIContractError.self) { try OpenAPIContract(text: text, deviations: .refuse) }
    }
}
