import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

@Suite("Answering from an OpenAPI document")
struct MockAnsweringTests {
    private func stubber(_ answering: OpenAPIAnswering = OpenAPIAnswering()) -> HTTPStubber {
        let stubber = HTTPStubber()
        stubber.load(Documents.shop, answering: answering)
        return stubber
    }

    @Test("An operation answers its first named example, with the server's base path")
    func firstExample() throws {
        let plan = try stubber().response(
            for: try request(.get, "https://api.shop.test/v2/products/7", headers: authorized))
        #expect(plan.status == 200)
        #expect(plan.response?.headers[.contentType] == "application/json")
        let json = try #require(plan.json as? [String: Any])
        #expect(json["name"] as? String == "Widget")
        // Members keep the document's order.
        #expect(plan.text.hasPrefix(#"{"id":7,"name":"Widget""#))
    }

    @Test("Prefer: example=name picks a named example, code= a response, and unknown ones are named")
    func preferHeader() throws {
        let stubber = stubber()
        let url = "https://api.shop.test/v2/products/7"
        let gadget = try stubber.response(
            for: try request(.get, url, headers: authorized.merging(["Prefer": "example=gadget"]) { $1 }))
        #expect((gadget.json as? [String: Any])?["name"] as? String == "Gadget")
        let missing = try stubber.response(
            for: try request(.get, url, headers: authorized.merging(["Prefer": "code=404"]) { $1 }))
        #expect(missing.status == 404)
        #expect(missing.response?.headers[.contentType] == "application/problem+json")
        let problem = try #require(missing.json as? [String: Any])
        #expect(problem["title"] is String && problem["status"] is Int)
        let unknown = try stubber.response(
            for: try request(.get, url, headers: authorized.merging(["Prefer": "code=418"]) { $1 }))
        #expect(unknown.status == 400)
        #expect(unknown.text.contains("418") && unknown.text.contains("200, 404"))
        let noExample = try stubber.response(
            for: try request(.get, url, headers: authorized.merging(["Prefer": "example=nope"]) { $1 }))
        #expect(noExample.status == 400 && noExample.text.contains("widget, gadget"))
    }

    @Test("Without examples, values are generated from the schema and keep to it, for every operation")
    func generatedValuesKeepToTheSchema() throws {
        let contract = Documents.shop
        let stubber = HTTPStubber()
        stubber.load(contract)
        let requests: [HTTPIncomingRequest] = [
            try request(.get, "https://api.shop.test/v2/health"),
            try request(
                .get, "https://api.shop.test/v2/products?limit=5&tags=a&tags=b&sort=-price", headers: authorized),
            try request(
                .post, "https://api.shop.test/v2/products", headers: authorized,
                json: #"{"name": "Lamp", "price": {"amount": 12.5, "currency": "EUR"}}"#),
            try request(.delete, "https://api.shop.test/v2/products/3", headers: ["X-Shop-Key": "k"]),
            try request(
                .post, "https://api.shop.test/v2/orders", headers: authorized,
                json:
                    #"{"items": [{"productId": 1, "quantity": 2, "price": 3}], "payment": {"method": "invoice", "email": "a@b.example"}}"#
            ),
            try request(
                .get, "https://api.shop.test/v2/orders/6f1c1f0e-8a4b-4b7e-9a59-5c3c1b2f4d10.csv", headers: authorized),
            try request(.get, "https://api.shop.test/v2/points/;coordinates=52.5,13.4", headers: authorized),
            try request(
                .get, "https://api.shop.test/v2/search?filter%5Bcolor%5D=red",
                headers: authorized.merging(["X-Request-ID": "req-12345"]) { $1 }),
            try request(.get, "https://api.shop.test/v2/cart", headers: ["Cookie": "session=s-00ff12"]),
        ]
        for dynamic in [false, true] {
            for incoming in requests {
                var headers = incoming.headers
                if dynamic { headers[HTTPHeaders.Name(rawValue: "Prefer")] = "dynamic=true" }
                let sent = try HTTPIncomingRequest(
                    method: incoming.method, url: incoming.url, headers: headers, body: incoming.body)
                let plan = try stubber.response(for: sent)
                let response = try #require(plan.response)
                #expect((200..<300).contains(response.statusCode.rawValue), "\(sent): \(plan.text)")
                let violations = contract.violations(
                    ofResponse: response.statusCode.rawValue, headers: response.headers, body: response.body, to: sent)
                #expect(violations.isEmpty, "\(sent) answered \(plan.text): \(violations)")
            }
        }
    }

    @Test("The same seed gives the same answers; dynamic answers differ between requests")
    func deterministic() throws {
        let url = "https://api.shop.test/v2/products?limit=3"
        let first = try stubber(OpenAPIAnswering(seed: 7, isDynamic: true)).response(
            for: try request(.get, url, headers: authorized))
        let again = try stubber(OpenAPIAnswering(seed: 7, isDynamic: true)).response(
            for: try request(.get, url, headers: authorized))
        #expect(first.body == again.body)
        let stubber = stubber(OpenAPIAnswering(seed: 7, isDynamic: true))
        let bodies = try (0..<5).map { _ in try stubber.response(for: try request(.get, url, headers: authorized)).body
        }
        #expect(Set(bodies).count > 1)
        let fixed = self.stubber()
        let statics = try (0..<3).map { _ in try fixed.response(for: try request(.get, url, headers: authorized)).body }
        #expect(Set(statics).count == 1)
    }

    @Test("Required response headers are generated; text media types answer text")
    func headersAndText() throws {
        let stubber = stubber()
        let created = try stubber.response(
            for: try request(
                .post, "https://api.shop.test/v2/orders", headers: authorized,
                json:
                    #"{"items": [{"productId": 1, "quantity": 1, "price": 0}], "payment": {"method": "card", "number": "4111111111111111"}}"#
            ))
        #expect(created.status == 201)
        #expect(created.response?.headers[.location]?.hasPrefix("https://") == true)
        let order = try #require(created.json as? [String: Any])
        #expect((order["payment"] as? [String: Any])?["method"] as? String == "card")
        let csv = try stubber.response(
            for: try request(
                .get, "https://api.shop.test/v2/orders/6f1c1f0e-8a4b-4b7e-9a59-5c3c1b2f4d10.csv", headers: authorized))
        #expect(csv.text == "product,quantity\n7,2\n")
        #expect(csv.response?.headers[.contentType] == "text/csv")
        let health = try stubber.response(for: try request(.get, "https://api.shop.test/v2/health"))
        #expect(health.text == "ok")
    }

    @Test("Stubs win over the document, and the document still refuses what breaks it")
    func stubsWin() throws {
        let stubber = stubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.shop.test/v2/products/7").stub(
                for: .get, json: #"{"id": 7, "name": "Stubbed", "price": {"amount": 1, "currency": "EUR"}}"#))
        let plan = try stubber.response(
            for: try request(.get, "https://api.shop.test/v2/products/7", headers: authorized))
        #expect(plan.text.contains("Stubbed"))
        let refused = try stubber.response(for: try request(.get, "https://api.shop.test/v2/products/7"))
        #expect(refused.status == 401)
    }

    @Test("Answering off: requests are checked, and stubs (or nothing) answer")
    func validateOnly() throws {
        let stubber = HTTPStubber()
        stubber.load(Documents.shop, answersRequests: false)
        let invalid = try stubber.response(
            for: try request(.get, "https://api.shop.test/v2/products/abc", headers: authorized))
        #expect(invalid.status == 400)
        #expect(throws: HTTPStubberError.self) {
            try stubber.response(for: try request(.get, "https://api.shop.test/v2/products/7", headers: authorized))
        }
    }

    @Test("Unloading removes the answers and the checks")
    func unload() throws {
        let stubber = HTTPStubber()
        let mock = stubber.load(Documents.shop)
        stubber.unload(mock)
        #expect(throws: HTTPStubberError.self) {
            try stubber.response(for: try request(.get, "https://api.shop.test/v2/products/abc", headers: authorized))
        }
    }

    @Test("A recursive schema generates a finite value")
    func recursion() throws {
        let text = """
            openapi: 3.1.0
            info: { title: T, version: "1" }
            paths:
              /tree:
                get:
                  responses:
                    "200":
                      description: ok
                      content:
                        application/json:
                          schema: { $ref: "#/components/schemas/Node" }
            components:
              schemas:
                Node:
                  type: object
                  required: [name]
                  properties:
                    name: { type: string }
                    children: { type: array, items: { $ref: "#/components/schemas/Node" } }
            """
        let contract = try OpenAPIContract(text: text)
        let stubber = HTTPStubber()
        stubber.load(contract)
        let sent = try request(.get, "http://localhost/tree")
        let plan = try stubber.response(for: sent)
        #expect(plan.status == 200)
        #expect(plan.text.contains(#""name":"string""#))
        #expect(
            contract.violations(ofResponse: 200, headers: plan.response!.headers, body: plan.body, to: sent).isEmpty)
    }

    @Test("Integers are written as integers at any magnitude", arguments: [false, true])
    func integers(dynamic: Bool) throws {
        let text = """
            openapi: 3.1.0
            info: { title: T, version: "1" }
            paths:
              /n:
                get:
                  responses:
                    "200":
                      description: ok
                      content:
                        application/json:
                          schema:
                            type: object
                            required: [safe, low, huge, tiny]
                            properties:
                              safe: { type: integer, minimum: -9007199254740991, maximum: 9007199254740991 }
                              low: { type: integer, format: int64, maximum: -9007199254740993 }
                              huge: { type: integer, minimum: 100000000000000000000 }
                              tiny: { type: integer, maximum: -100000000000000000000000000000 }
            """
        let contract = try OpenAPIContract(text: text)
        let stubber = HTTPStubber()
        stubber.load(contract, answering: .init(isDynamic: dynamic))
        let sent = try request(.get, "http://localhost/n")
        let plan = try stubber.response(for: sent)
        #expect(plan.status == 200)
        // No fraction, no exponent: a reader's integer parser takes each.
        let numbers = plan.text.split(whereSeparator: { ",:{}".contains($0) }).filter { $0.first != "\"" }
        #expect(numbers.count == 4, "\(plan.text)")
        for number in numbers {
            #expect(number.allSatisfy { $0 == "-" || $0.isNumber }, "\(number) in \(plan.text)")
        }
        if !dynamic { #expect(plan.text.contains(#""safe":-9007199254740991"#), "\(plan.text)") }
        #expect(
            contract.violations(ofResponse: 200, headers: plan.response!.headers, body: plan.body, to: sent).isEmpty)
    }
}

/// An operation that answers `text/event-stream`: the mock answers with events, from an example written as an
/// event stream, or one event of a value made from the schema.
@Suite("Answering an event stream from an OpenAPI document")
struct EventStreamAnsweringTests {
    static let document = """
        openapi: 3.1.0
        info: { title: Feeds, version: "1" }
        paths:
          /ticks:
            get:
              responses:
                "200":
                  description: Ticks.
                  content:
                    text/event-stream:
                      schema: { type: string }
                      example: "event: tick\\nid: 1\\ndata: one\\n\\ndata: two\\n\\n"
          /changes:
            get:
              responses:
                "200":
                  description: Changes, as JSON data.
                  content:
                    text/event-stream:
                      schema: { type: object, required: [kind], properties: { kind: { type: string, enum: [created] } } }
        """

    @Test("An example written as an event stream is its events; a value from the schema is one event")
    func events() throws {
        let stubber = HTTPStubber()
        stubber.load(try OpenAPIContract(text: Self.document))
        let ticks = try stubber.response(for: try request(.get, "https://feeds.test/ticks"))
        #expect(ticks.response?.headers[.contentType] == "text/event-stream")
        #expect(ticks.events == [HTTPStubEvent(data: "one", event: "tick", id: "1"), HTTPStubEvent(data: "two")])
        #expect(ticks.response?.headers[.contentLength] == nil)
        let changes = try stubber.response(for: try request(.get, "https://feeds.test/changes"))
        #expect(changes.events == [HTTPStubEvent(data: #"{"kind":"created"}"#)])
    }
}
