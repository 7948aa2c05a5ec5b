import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

@Suite("Checking requests against an OpenAPI document")
struct RequestValidationTests {
    private let stubber: HTTPStubber = {
        let stubber = HTTPStubber()
        stubber.load(Documents.shop)
        return stubber
    }()

    private func problem(_ sent: HTTPIncomingRequest) throws -> (
        status: Int, violations: [[String: Any]], plan: HTTPResponsePlan
    ) {
        let plan = try stubber.response(for: sent)
        let json = try #require(plan.json as? [String: Any], "\(plan.text)")
        return (plan.status, json["violations"] as? [[String: Any]] ?? [], plan)
    }

    @Test("A path parameter of the wrong type: 400, naming the parameter and the document's line")
    func pathParameterType() throws {
        let (status, violations, plan) = try problem(
            try request(.get, "https://api.shop.test/v2/products/abc", headers: authorized))
        #expect(status == 400)
        #expect(plan.response?.headers[.contentType] == "application/problem+json")
        #expect(violations.first?["rule"] as? String == "type")
        #expect(violations.first?["location"] as? String == "path.productId")
        #expect(violations.first?["line"] as? Int == 70)
        #expect((violations.first?["document"] as? String)?.hasPrefix("shop.yaml:70:") == true)
    }

    @Test("A body breaking a nested rule: 422 at body.items[1].price, the rule's line in the document")
    func nestedBodyRule() throws {
        let body =
            #"{"items": [{"productId": 1, "quantity": 1, "price": 2}, {"productId": 2, "quantity": 1, "price": -1}], "payment": {"method": "card", "number": "4111111111111111"}}"#
        let (status, violations, _) = try problem(
            try request(.post, "https://api.shop.test/v2/orders", headers: authorized, json: body))
        #expect(status == 422)
        #expect(violations.count == 1)
        #expect(violations.first?["location"] as? String == "body.items[1].price")
        #expect(violations.first?["rule"] as? String == "minimum")
        #expect(violations.first?["line"] as? Int == 209)
    }

    @Test("A discriminator names the branch whose rules apply")
    func discriminator() throws {
        let card =
            #"{"items": [{"productId": 1, "quantity": 1, "price": 2}], "payment": {"method": "card", "number": "12"}}"#
        let (status, violations, _) = try problem(
            try request(.post, "https://api.shop.test/v2/orders", headers: authorized, json: card))
        #expect(status == 422)
        #expect(violations.map { $0["location"] as? String } == ["body.payment.number"])
        let unknown = #"{"items": [{"productId": 1, "quantity": 1, "price": 2}], "payment": {"method": "cash"}}"#
        let second = try problem(
            try request(.post, "https://api.shop.test/v2/orders", headers: authorized, json: unknown))
        #expect(second.violations.first?["rule"] as? String == "discriminator")
    }

    @Test("A read-only property in a request body is refused; required read-only ones are not asked for")
    func readOnly() throws {
        let body = #"{"id": 3, "name": "Lamp", "price": {"amount": 1, "currency": "EUR"}}"#
        let (status, violations, _) = try problem(
            try request(.post, "https://api.shop.test/v2/products", headers: authorized, json: body))
        #expect(status == 422)
        #expect(violations.map { $0["rule"] as? String } == ["readOnly"])
    }

    @Test("Missing credentials: 401 with WWW-Authenticate; another scheme of the alternatives is enough")
    func security() throws {
        let (status, violations, plan) = try problem(try request(.get, "https://api.shop.test/v2/products"))
        #expect(status == 401)
        #expect(plan.response?.headers[.wwwAuthenticate] == "Bearer")
        #expect((violations.first?["message"] as? String)?.contains("X-Shop-Key") == true)
        let withKey = try stubber.response(
            for: try request(.get, "https://api.shop.test/v2/products", headers: ["X-Shop-Key": "k"]))
        #expect(withKey.status == 200)
        // DELETE takes the key only.
        let bearer = try stubber.response(
            for: try request(.delete, "https://api.shop.test/v2/products/1", headers: authorized))
        #expect(bearer.status == 401)
    }

    @Test(
        "A body of a media type the operation does not take: 415; malformed JSON: the declared 422, with its position")
    func contentType() throws {
        let text = try problem(
            try request(
                .post, "https://api.shop.test/v2/products",
                headers: authorized.merging(["Content-Type": "text/plain"]) { $1 }, body: "x"))
        #expect(text.status == 415)
        let malformed = try problem(
            try request(.post, "https://api.shop.test/v2/products", headers: authorized, json: "{\"name\": "))
        // createProduct declares 422 (and no 400) for a bad request: the declared status, as Prism answers.
        #expect(malformed.status == 422)
        #expect(malformed.violations.first?["rule"] as? String == "json")
        #expect(
            malformed.plan.response?.headers[HTTPHeaders.Name(rawValue: "StuntDouble-Violations")]?.contains(
                "body: not JSON") == true)
        let missing = try problem(try request(.post, "https://api.shop.test/v2/products", headers: authorized))
        #expect(missing.violations.first?["rule"] as? String == "requestBody.required")
    }

    @Test("A method the path lacks: 405 with Allow")
    func method() throws {
        let (status, _, plan) = try problem(
            try request(.put, "https://api.shop.test/v2/products/1", headers: authorized))
        #expect(status == 405)
        #expect(plan.response?.headers[HTTPHeaders.Name(rawValue: "Allow")] == "DELETE, GET")
    }

    @Test("A path not in the document is not the document's: the stubber reports it unmatched")
    func unknownPath() throws {
        #expect(throws: HTTPStubberError.self) {
            try stubber.response(for: try request(.get, "https://api.shop.test/v2/nothing", headers: authorized))
        }
    }

    @Test("Query parameters: form arrays, limits, enums, and a pattern on items")
    func query() throws {
        let good = try stubber.response(
            for: try request(.get, "https://api.shop.test/v2/products?limit=10&tags=red&tags=blue", headers: authorized)
        )
        #expect(good.status == 200)
        let (status, violations, _) = try problem(
            try request(.get, "https://api.shop.test/v2/products?limit=500&tags=Red&sort=weight", headers: authorized))
        #expect(status == 400)
        #expect(
            Set(violations.compactMap { $0["location"] as? String }) == ["query.limit", "query.tags[0]", "query.sort"])
    }

    @Test("deepObject, header, cookie and matrix parameters are read in their styles")
    func styles() throws {
        let search = "https://api.shop.test/v2/search?filter%5Bcolor%5D=red&filter%5BmaxPrice%5D=-2"
        let deep = try problem(try request(.get, search, headers: authorized.merging(["X-Request-ID": "short"]) { $1 }))
        #expect(
            Set(deep.violations.compactMap { $0["location"] as? String }) == [
                "query.filter.maxPrice", "header.X-Request-ID",
            ])
        let extra = try problem(
            try request(
                .get, "https://api.shop.test/v2/search?filter%5Bsize%5D=9",
                headers: authorized.merging(["X-Request-ID": "req-12345"]) { $1 }))
        #expect(extra.violations.first?["rule"] as? String == "additionalProperties")
        let cookie = try problem(
            try request(.get, "https://api.shop.test/v2/cart", headers: ["Cookie": "theme=dark; session=bad"]))
        #expect(cookie.violations.first?["location"] as? String == "cookie.session")
        let noCookie = try problem(try request(.get, "https://api.shop.test/v2/cart"))
        #expect(noCookie.violations.first?["rule"] as? String == "required")
        let matrix = try problem(
            try request(.get, "https://api.shop.test/v2/points/;coordinates=52.5", headers: authorized))
        #expect(matrix.violations.first?["rule"] as? String == "minItems")
        let format = try problem(
            try request(.get, "https://api.shop.test/v2/orders/not-a-uuid.csv", headers: authorized))
        #expect(format.violations.first?["rule"] as? String == "format")
    }

    @Test("3.0: pipe-delimited arrays and form bodies")
    func legacyStyles() throws {
        let stubber = HTTPStubber()
        stubber.load(Documents.legacy)
        #expect(try stubber.response(for: try request(.get, "http://h/accounts/5?fields=name|balance")).status == 200)
        #expect(try stubber.response(for: try request(.get, "http://h/accounts/5?fields=name|colour")).status == 400)
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        #expect(
            try stubber.response(
                for: try request(.patch, "http://h/accounts/5", headers: form, body: "name=Savings&notify=true")
            ).status == 204)
        let long = try stubber.response(
            for: try request(
                .patch, "http://h/accounts/5", headers: form,
                body: "name=\(String(repeating: "x", count: 30))&notify=maybe"))
        #expect(long.status == 422)
        #expect(long.text.contains("body.name") && long.text.contains("body.notify"))
    }

    @Test("3.0 examples in schemas, defaults and nullable answer as written")
    func legacyAnswers() throws {
        let stubber = HTTPStubber()
        stubber.load(Documents.legacy)
        let plan = try stubber.response(for: try request(.get, "http://h/accounts/5"))
        let json = try #require(plan.json as? [String: Any])
        #expect(json["id"] as? Int == 42)
        #expect(json["balance"] as? Double == 12.5)
        #expect(json["kind"] as? String == "savings")
    }
}
