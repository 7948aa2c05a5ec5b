import Foundation
import StuntDouble
import StuntDoubleWireMock
import Testing

@testable import StuntDoubleOpenAPI

/// OpenAPI's runtime expressions, each kind against a real exchange, and JSON Pointers into generated bodies.
@Suite struct RuntimeExpressionTests {
    /// `POST /pets/{petId}/visits?notify=...` with a JSON body, answered 201 with a `Location` and a JSON body.
    static func exchange() throws -> RuntimeExpression.Exchange {
        let sent = try request(
            .post, "http://127.0.0.1:8080/pets/7/visits?notify=http%3A%2F%2Fhooks.test%2Fv&empty=",
            headers: ["X-Trace": "t-1"],
            json: #"{"callbackUrl": "http://hooks.test/cb", "owner": {"name": "Ada", "tags": ["a", 3]}, "n": 3}"#)
        let stubber = HTTPStubber()
        let answer = HTTPStubResponse(
            statusCode: .created, contentType: .json, body: Data(#"{"id": "v-9", "nested": {"ok": true}}"#.utf8))
        answer.headers["Location"] = "/pets/7/visits/v-9"
        stubber.add(stub: try HTTPStubRequest().match(urlRegex: "/pets/").stub(for: .post, response: answer))
        let response = try #require(try stubber.response(for: sent).response)
        return RuntimeExpression.Exchange(request: sent, pathVariables: [("petId", "7")], response: response)
    }

    static let cases: [(String, String)] = [
        ("$url", "http://127.0.0.1:8080/pets/7/visits?notify=http%3A%2F%2Fhooks.test%2Fv&empty="),
        ("$method", "POST"),
        ("$statusCode", "201"),
        ("$request.header.x-trace", "t-1"),
        ("$request.query.notify", "http://hooks.test/v"),
        ("$request.query.empty", ""),
        ("$request.path.petId", "7"),
        ("$request.body#/callbackUrl", "http://hooks.test/cb"),
        ("$request.body#/owner/tags/0", "a"),
        ("$request.body#/owner/tags/1", "3"),
        ("$request.body#/n", "3"),
        ("$request.body#/owner/tags", #"["a",3]"#),
        ("$response.header.Location", "/pets/7/visits/v-9"),
        ("$response.body#/id", "v-9"),
        ("$response.body#/nested/ok", "true"),
        ("$response.body", #"{"id": "v-9", "nested": {"ok": true}}"#),
    ]

    @Test(arguments: cases) func eachKindOfExpressionReadsItsPlace(_ expression: String, _ expected: String) throws {
        let result = RuntimeExpression.evaluate(expression, in: try Self.exchange())
        #expect((try? result.get()) == expected, "\(result)")
    }

    static let failures: [(String, String)] = [
        ("$request.body#/missing", "$request.body#/missing names nothing: the request's body has nothing at /missing"),
        ("$request.query.callback", "names nothing: the request's query has no callback"),
        ("$request.header.X-Missing", "names nothing: the request has no header X-Missing"),
        ("$request.path.ownerId", "names nothing: the operation's path has no {ownerId}"),
        ("$request.body#callbackUrl", "\"callbackUrl\" is no JSON Pointer"),
        ("$response.query.x", "after $response comes header.NAME"),
        ("$requests.body", "is not a runtime expression"),
        ("http://plain.test", "is not a runtime expression"),
    ]

    @Test(arguments: failures) func whatNamesNothingSaysWhat(_ expression: String, _ message: String) throws {
        let result = RuntimeExpression.evaluate(expression, in: try Self.exchange())
        guard case .failure(let failure) = result else {
            Issue.record("\(expression) gave \(result)")
            return
        }
        #expect(failure.description.contains(message), "\(failure)")
    }

    @Test func aTemplatePutsItsFirstValueAsItIsAndEncodesTheRest() throws {
        let exchange = try Self.exchange()
        func expand(_ template: String) -> String {
            switch RuntimeExpression.expand(template, in: exchange) {
            case .success(let text): text
            case .failure(let failure): "failure: \(failure)"
            }
        }
        #expect(expand("{$request.body#/callbackUrl}") == "http://hooks.test/cb")
        #expect(expand("$request.body#/callbackUrl") == "http://hooks.test/cb", "a bare expression")
        #expect(
            expand("{$request.body#/callbackUrl}/owners/{$request.body#/owner/name}?trace={$request.header.X-Trace}")
                == "http://hooks.test/cb/owners/Ada?trace=t-1")
        #expect(expand("http://hooks.test/{ $request.body#/owner/tags }") == "http://hooks.test/%5B%22a%22%2C3%5D")
        #expect(expand("http://hooks.test/fixed") == "http://hooks.test/fixed", "no expression: as written")
        #expect(
            expand("{$request.body#/callbackUrl")
                == #"failure: "{$request.body#/callbackUrl" opens a { it does not close"#)
        #expect(expand("{$request.body#/nope}/x").hasPrefix("failure: $request.body#/nope names nothing"))
    }

    /// A JSON Pointer to any member of any body reads it: 300 generated bodies whose keys hold `/`, `~`, `%`,
    /// spaces and other scripts, each pointer escaped as RFC 6901 says and, half the time, percent-encoded as a
    /// URI fragment writes it.
    @Test func aPointerReadsAnyMemberOfAGeneratedBody() throws {
        var random = SeededGenerator(seed: 0xB0D1)
        let alphabet = Array("ab/~%01 é字-_.")
        for round in 0..<300 {
            // A chain of objects and arrays, its leaf a string or a number.
            var tokens: [String] = []
            var leaf: SchemaValue = round.isMultiple(of: 2) ? .string("leaf \(round)") : .number(Double(round))
            let depth = Int(random.next() % 5) + 1
            for _ in 0..<depth {
                if random.next() % 3 == 0 {
                    let index = Int(random.next() % 3)
                    leaf = .array(Array(repeating: .null, count: index) + [leaf])
                    tokens.insert(String(index), at: 0)
                } else {
                    let key = String((0..<Int(random.next() % 6)).map { _ in alphabet[Int(random.next() % 13)] })
                    leaf = .object([("other", .bool(true)), (key, leaf)])
                    tokens.insert(key, at: 0)
                }
            }
            var pointer = tokens.map {
                "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            }.joined()
            if random.next() % 2 == 0 {
                pointer = pointer.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(["/", "~"])) ?? ""
            } else if pointer.contains("%") {
                pointer = pointer.replacingOccurrences(of: "%", with: "%25")
            }
            let sent = try request(.post, "http://h.test/x", json: leaf.jsonText)
            let exchange = RuntimeExpression.Exchange(request: sent, pathVariables: [], response: nil)
            let expected = round.isMultiple(of: 2) ? "leaf \(round)" : String(round)
            let result = RuntimeExpression.evaluate("$request.body#" + pointer, in: exchange)
            #expect((try? result.get()) == expected, "round \(round): \(pointer) in \(leaf.jsonText): \(result)")
        }
    }
}

/// What a document's callbacks and webhooks are, read from the document.
@Suite struct CallbackReadingTests {
    static let document = """
        openapi: 3.0.3
        info: {title: Hooks, version: "1"}
        paths:
          /jobs:
            post:
              operationId: startJob
              responses:
                "202": {description: started}
                "400": {description: bad}
              callbacks:
                done: {$ref: "#/components/callbacks/Done"}
        components:
          callbacks:
            Done:
              "{$request.header.X-Callback}":
                post:
                  requestBody:
                    content:
                      application/json:
                        schema: {type: object, required: [job], properties: {job: {type: integer}}}
                  responses:
                    "200": {description: ok}
        """

    @Test func aReferencedCallbackIsReadAndSentOnlyAfterASuccess() throws {
        let contract = try OpenAPIContract(text: Self.document)
        #expect(contract.callbackTitles == ["POST /jobs (startJob) → done: POST {$request.header.X-Callback}"])
        #expect(contract.webhookNames.isEmpty)
        let callbacks = DocumentCallbacks(contract: contract, answering: OpenAPIAnswering(seed: 3))
        let stubber = HTTPStubber()
        stubber.load(contract)
        let sent = try request(.post, "http://h.test/jobs", headers: ["X-Callback": "http://hooks.test/done"])
        let answered = try #require(try stubber.response(for: sent).response)
        let calls = callbacks.calls(after: sent, answered: answered)
        #expect(calls.map(\.urlText) == ["http://hooks.test/done"])
        #expect(calls.first?.problem == nil && calls.first?.warnings == [])
        let body = try #require(calls.first?.body)
        #expect(try SchemaValue.parse(body)["job"] != nil, "generated to the schema")
        #expect(calls.first?.headers.first { $0.name == "Content-Type" }?.value == "application/json")
        #expect(callbacks.calls(after: sent, answered: answered).first?.body == body, "the same seed, the same body")

        let refused = try #require(
            try stubber.response(for: request(.post, "http://h.test/jobs", headers: ["Prefer": "code=400"])).response)
        #expect(refused.statusCode.rawValue == 400)
        #expect(callbacks.calls(after: sent, answered: refused).isEmpty, "a 400 subscribes nothing")
        #expect(callbacks.calls(after: sent, answered: nil).isEmpty, "nor does a failure")
    }
}
