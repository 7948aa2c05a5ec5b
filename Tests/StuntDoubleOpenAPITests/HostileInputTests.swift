import Foundation
import HTTPTypes
import OpenAPIRuntime
import StuntDouble
import StuntDoubleWireMock
import Testing

@testable import StuntDoubleOpenAPI

/// Documents and requests that once could hang, trap or grow without bound (found by review and fuzzing):
/// each now ends, with an answer or a clear refusal.
@Suite("Hostile documents and requests")
struct HostileInputTests {
    private func stubber(_ document: String) throws -> HTTPStubber {
        let stubber = HTTPStubber(journalCapacity: 0)
        stubber.load(try OpenAPIContract(text: document))
        return stubber
    }

    private static func document(paths: String, schemas: String = "{}") -> String {
        ##"{"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": \##(paths), "components": {"schemas": \##(schemas)}}"##
    }

    @Test("A recursive oneOf of allOfs (polymorphism) is checked in bounded steps")
    func recursivePolymorphism() throws {
        let schemas = ##"""
            {"Pet": {"oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}]},
             "Cat": {"allOf": [{"type": "object", "properties": {"friend": {"$ref": "#/components/schemas/Pet"}}}, {"required": ["purrs"]}]},
             "Dog": {"allOf": [{"type": "object", "properties": {"friend": {"$ref": "#/components/schemas/Pet"}}}, {"required": ["barks"]}]}}
            """##
        let paths =
            ##"{"/pets": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}, "responses": {"201": {"description": "ok"}}}}}"##
        let stubber = try stubber(Self.document(paths: paths, schemas: schemas))
        var body = ##"{"purrs": true}"##
        for _ in 0..<15 { body = ##"{"purrs": true, "friend": \##(body)}"## }
        let nested = try stubber.response(for: try request(.post, "http://h/pets", json: body))
        #expect(nested.status == 201, "\(nested.text)")
        let neither = try stubber.response(
            for: try request(.post, "http://h/pets", json: ##"{"friend": {"friend": {}}}"##))
        #expect(neither.status == 422)
        // The bound itself: steps grow with the depth, not as 2^depth (each level tries both branches, and
        // without the validator's memory of what it tried, depth 20 would take 2^20 steps). Each level is five
        // schemas deep (oneOf, $ref, allOf, properties, $ref), so 20 levels stay within the 128 schemas checked.
        let contract = try OpenAPIContract(text: Self.document(paths: paths, schemas: schemas))
        let schema = try #require(contract.operations.first?.body?.contents.first?.schema)
        var steps: [Int: Int] = [:]
        for depth in [5, 10, 20] {
            var nestedBody = ##"{"barks": true}"##
            for _ in 0..<depth { nestedBody = ##"{"barks": true, "friend": \##(nestedBody)}"## }
            let validator = SchemaValidator(table: contract.schemas, direction: .request)
            let value = try SchemaValue.parse(Data(nestedBody.utf8))
            #expect(validator.validate(value, against: schema, at: "body").isEmpty, "depth \(depth)")
            steps[depth] = validator.stepsTaken
        }
        let (five, twenty) = (try #require(steps[5]), try #require(steps[20]))
        #expect(five > 0 && twenty <= 5 * five, "steps by depth: \(steps.sorted { $0.key < $1.key })")
        #expect(
            twenty < SchemaValidator.stepLimit / 100, "depth 20 took \(twenty) of \(SchemaValidator.stepLimit) steps")
    }

    @Test("A form body of 100,000 fields is read in one pass")
    func largeForm() throws {
        let paths =
            ##"{"/f": {"post": {"requestBody": {"content": {"application/x-www-form-urlencoded": {"schema": {"type": "object"}}}}, "responses": {"204": {"description": "ok"}}}}}"##
        let stubber = try stubber(Self.document(paths: paths))
        let body = (0..<100_000).map { "k\($0)=v" }.joined(separator: "&")
        let plan = try stubber.response(
            for: try request(
                .post, "http://h/f", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body))
        #expect(plan.status == 204)
    }

    @Test("Prefer: code outside 100-599 is refused; a stub's status HTTP cannot carry throws in the transport")
    func impossibleStatuses() async throws {
        let paths =
            ##"{"/s": {"get": {"responses": {"200": {"description": "ok"}, "default": {"description": "other"}}}}}"##
        let stubber = try stubber(Self.document(paths: paths))
        for code in ["1000", "-1", "99"] {
            let plan = try stubber.response(for: try request(.get, "http://h/s", headers: ["Prefer": "code=\(code)"]))
            #expect(plan.status == 400, "code=\(code)")
        }
        stubber.add(
            stub: HTTPStubRequest().match(URL: "http://h/odd").stub(for: .get, code: HTTPStatusCode(rawValue: 1000)))
        let transport = HTTPStubTransport(stubber: stubber)
        await #expect(throws: HTTPStubberError.self) {
            _ = try await transport.send(
                HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/odd"), body: nil,
                baseURL: URL(string: "http://h")!, operationID: "odd")
        }
    }

    @Test("Schemas asking for huge or endless values get bounded answers")
    func boundedGeneration() throws {
        let schemas = ##"""
            {"Grid": {"type": "array", "minItems": 1000, "items": {"type": "array", "minItems": 1000, "items": {"type": "array", "minItems": 1000, "items": {"type": "string", "minLength": 1000000}}}},
             "Deep": {"type": "array", "minItems": 2, "items": {"$ref": "#/components/schemas/Deep"}},
             "Odd": {"type": "object", "properties": {
                "count": {"type": "integer", "minimum": 1e999},
                "code": {"type": "string", "pattern": "(((){10000}){10000}){10000}"},
                "mail": {"type": "string", "format": "email", "maxLength": 10},
                "few": {"type": "array", "minItems": -1, "items": {"type": "string"}}}}}
            """##
        let response =
            ##"{"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NAME"}}}}}"##
        let paths =
            ##"{"/grid": {"get": {"responses": \##(response.replacingOccurrences(of: "NAME", with: "Grid"))}}, "/deep": {"get": {"responses": \##(response.replacingOccurrences(of: "NAME", with: "Deep"))}}, "/odd": {"get": {"responses": \##(response.replacingOccurrences(of: "NAME", with: "Odd"))}}}"##
        let stubber = try stubber(Self.document(paths: paths, schemas: schemas))
        for path in ["/grid", "/deep", "/odd"] {
            for dynamic in ["false", "true"] {
                let plan = try stubber.response(
                    for: try request(.get, "http://h\(path)", headers: ["Prefer": "dynamic=\(dynamic)"]))
                #expect(plan.status == 200)
                #expect(plan.body.count < 64 << 20, "\(path): \(plan.body.count) bytes")
            }
        }
        let odd = try #require(try stubber.response(for: try request(.get, "http://h/odd")).json as? [String: Any])
        #expect((odd["mail"] as? String).map { $0.count <= 10 } == true)
    }

    @Test("A pattern that backtracks catastrophically does not hang a request")
    func catastrophicPattern() throws {
        let paths =
            ##"{"/q": {"get": {"parameters": [{"name": "v", "in": "query", "schema": {"type": "string", "pattern": "^(\\w+\\s?)*$"}}], "responses": {"200": {"description": "ok"}}}}}"##
        let stubber = try stubber(Self.document(paths: paths))
        let value = String(repeating: "a", count: 40) + "!"
        #expect(try stubber.response(for: try request(.get, "http://h/q?v=\(value)")).status == 200)
    }

    @Test("Templates that share a segment keep their own variable names")
    func variableNames() throws {
        let id = ##"{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}"##
        let userId = ##"{"name": "userId", "in": "path", "required": true, "schema": {"type": "integer"}}"##
        let paths =
            ##"{"/users/{userId}/posts": {"get": {"parameters": [\##(userId)], "responses": {"200": {"description": "ok"}}}}, "/users/{id}": {"get": {"parameters": [\##(id)], "responses": {"200": {"description": "ok"}}}}}"##
        let stubber = try stubber(Self.document(paths: paths))
        #expect(try stubber.response(for: try request(.get, "http://h/users/42")).status == 200)
        #expect(try stubber.response(for: try request(.get, "http://h/users/42/posts")).status == 200)
        #expect(try stubber.response(for: try request(.get, "http://h/users/x")).status == 400)
    }

    @Test("Exploded form objects leave other parameters alone; patternProperties; ignored headers; exploded pipes")
    func parameterRules() throws {
        let paths = ##"""
            {"/search": {"get": {"parameters": [
               {"name": "filter", "in": "query", "schema": {"type": "object", "additionalProperties": {"type": "integer"}}},
               {"name": "sort", "in": "query", "schema": {"type": "string"}},
               {"name": "ids", "in": "query", "style": "pipeDelimited", "explode": true, "schema": {"type": "array", "items": {"type": "integer"}}},
               {"name": "Accept", "in": "header", "required": true, "schema": {"type": "string", "enum": ["never"]}}],
             "responses": {"200": {"description": "ok"}}}},
             "/things": {"post": {"requestBody": {"content": {"application/json": {"schema": {"type": "object",
               "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": false}}}},
             "responses": {"201": {"description": "ok"}}}}}
            """##
        let stubber = try stubber(Self.document(paths: paths))
        #expect(
            try stubber.response(for: try request(.get, "http://h/search?min=3&sort=name&ids=1&ids=2")).status == 200)
        #expect(try stubber.response(for: try request(.get, "http://h/search?min=x&sort=name")).status == 400)
        #expect(try stubber.response(for: try request(.get, "http://h/search?ids=1&ids=b")).status == 400)
        #expect(try stubber.response(for: try request(.post, "http://h/things", json: ##"{"x-a": 1}"##)).status == 201)
        #expect(
            try stubber.response(for: try request(.post, "http://h/things", json: ##"{"x-a": "1"}"##)).status == 422)
        #expect(try stubber.response(for: try request(.post, "http://h/things", json: ##"{"y": 1}"##)).status == 422)
    }

    @Test("Deep nesting and YAML that expands without end are refused with a reason")
    func deepAndExpanding() throws {
        let deep = String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)
        let error = #expect(throws: OpenAPIContractError.self) {
            try OpenAPIContract(text: "openapi: 3.1.0\nx: " + deep)
        }
        #expect(error?.message.isEmpty == false)
        var yaml = "openapi: 3.1.0\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...8 {
            yaml +=
                "l\(level): &l\(level) ["
                + Array(repeating: level == 1 ? "*a" : "*l\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        let bomb = #expect(throws: OpenAPIContractError.self) { try OpenAPIContract(text: yaml) }
        #expect(bomb?.message.contains("expands to more than") == true, "\(String(describing: bomb))")
    }

    @Test("A chain of 5,000 schemas, each naming the next, compiles (the compiler once recursed per $ref)")
    func longReferenceChain() throws {
        let count = 5_000
        let schemas = (0..<count).map { index in
            ##""S\##(index)": {"type": "object", "properties": {"id": {"type": "integer"}, "next": {"$ref": "#/components/schemas/S\##((index + 1) % count)"}}}"##
        }
        let paths =
            ##"{"/first": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}}}}}"##
        let stubber = try stubber(Self.document(paths: paths, schemas: "{" + schemas.joined(separator: ",") + "}"))
        let plan = try stubber.response(for: try request(.get, "http://h/first"))
        #expect(plan.status == 200 && plan.text.hasPrefix(##"{"id":0,"next":{"id":0"##))
    }
}
