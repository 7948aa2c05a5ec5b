import Foundation
import StuntDouble
import StuntDoubleWireMock
import Testing

@testable import StuntDoubleOpenAPI

@Suite("Stubs checked against an OpenAPI document")
struct ContractCheckTests {
    /// A root folder with one mapping file, as a recording would leave it.
    private func root(_ mappings: String, files: [String: String] = [:]) throws -> URL {
        let folder = try Documents.folder()
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("__files"), withIntermediateDirectories: true)
        try mappings.write(
            to: folder.appendingPathComponent("mappings/recorded.json"), atomically: true, encoding: .utf8)
        for (name, text) in files {
            try text.write(to: folder.appendingPathComponent("__files/\(name)"), atomically: true, encoding: .utf8)
        }
        return folder
    }

    @Test("A recorded answer that drifted: each broken rule at the mapping's line and column, with the document's")
    func drift() throws {
        let folder = try root(
            """
            {"mappings": [
              {"request": {"method": "GET", "urlPath": "/v2/products/7"},
               "response": {"status": 200, "headers": {"Content-Type": "application/json"},
                            "jsonBody": {"id": 7, "name": "Widget", "price": {"amount": 9.5, "currency": "EUR"}}}},
              {"request": {"method": "GET", "urlPathPattern": "/v2/products/[0-9]+"},
               "response": {"status": 200, "headers": {"Content-Type": "application/json"},
                            "jsonBody": {"id": 7, "name": "Widget", "price": {"amount": "9.50", "currency": "EUR"}}}},
              {"request": {"method": "GET", "urlPathTemplate": "/v2/products/{id}"}, "response": {"status": 418}},
              {"request": {"method": "GET", "url": "/v2/coupons"}, "response": {"status": 200}},
              {"request": {"method": "POST", "urlPath": "/v2/orders"},
               "response": {"status": 201, "headers": {"Content-Type": "application/json", "Location": "https://x/1"},
                            "bodyFileName": "order.json"}},
              {"request": {"method": "GET", "urlPath": "/v2/health"},
               "response": {"status": 200, "headers": {"Content-Type": "text/plain"}, "body": "{{request.path}}",
                            "transformers": ["response-template"]}},
              {"request": {"method": "ANY"}, "response": {"status": 500}}
            ]}
            """, files: ["order.json": #"{"items": [], "payment": {"method": "card", "number": "4111111111111111"}}"#])
        let files = StubFiles(root: folder, displayPath: "stubs")
        #expect(files.errors.isEmpty)
        let found = files.violations(against: Documents.shop)
        let lines = found.map { "\($0.line):\($0.column) \($0.field ?? "") \($0.message)" }
        #expect(found.count == 4, "\(lines)")
        #expect(
            lines.contains {
                $0.hasPrefix("6:") && $0.contains("body.price.amount: expected number")
                    && $0.contains("schemas/product.yaml:21:")
            })
        #expect(
            lines.contains { $0.hasPrefix("8:") && $0.contains("418 is not a response of GET /products/{productId}") })
        #expect(
            lines.contains {
                $0.hasPrefix("9:") && $0.contains("request.url") && $0.contains("/v2/coupons is not a path")
            })
        #expect(lines.contains { $0.hasPrefix("11:") && $0.contains("body.items: 0 items, fewer than 1") })
        #expect(found.allSatisfy { $0.severity == .error && $0.file.hasSuffix("recorded.json") })
    }

    @Test("A stub's answer that breaks the document is kept in its journal entry; the document's own are not checked")
    func journal() throws {
        let stubber = HTTPStubber()
        stubber.load(Documents.shop)
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.shop.test/v2/products/9")
                .stub(for: .get, json: #"{"id": 9, "name": "", "price": {"amount": 1, "currency": "EUR"}}"#))
        _ = try stubber.response(for: try request(.get, "https://api.shop.test/v2/products/9", headers: authorized))
        _ = try stubber.response(for: try request(.get, "https://api.shop.test/v2/products/8", headers: authorized))
        _ = try stubber.response(for: try request(.get, "https://api.shop.test/v2/products/x", headers: authorized))
        let entries = stubber.journal
        #expect(entries.count == 3)
        #expect(entries[0].openAPIViolations.count == 1)
        #expect(
            entries[0].openAPIViolations.first?.description.hasPrefix(
                "body.name: 0 characters, fewer than 1 (minLength, schemas/product.yaml:") == true)
        #expect(entries[0].openAPIViolations.first?.documentLocation?.file == "schemas/product.yaml")
        #expect(entries[1].openAPIViolations.isEmpty && entries[2].openAPIViolations.isEmpty)
    }
}

@Suite("HTTPStubber.validate(against:)")
struct StubberValidationTests {
    @Test("Stubs made in Swift and loaded from files are asked what they answer, and checked")
    func validate() throws {
        let stubber = HTTPStubber()
        stubber.load(Documents.shop)  // the document's own answers are not checked
        let good = HTTPStubRequest(name: "good").match(URL: "https://api.shop.test/v2/products/7")
            .stub(for: .get, json: #"{"id": 7, "name": "Widget", "price": {"amount": 1, "currency": "EUR"}}"#)
        let stale = HTTPStubRequest(name: "stale").match(URI: "/v2/products/{id}")
            .stub(for: .get, json: #"{"id": 7, "title": "Widget"}"#)
        let unknown = HTTPStubRequest(name: "unknown").match(URL: "/v2/coupons").stub(for: .get, body: "x")
        let anything = HTTPStubRequest(name: "anything").stub(for: .get, code: .internalServerError)
        for stub in [good, stale, unknown, anything] { stubber.add(stub: stub) }
        let found = stubber.validate(against: Documents.shop)
        let byStub = Dictionary(grouping: found, by: { $0.stub.name ?? "" })
        #expect(byStub["good"] == nil)
        #expect(byStub["anything"] == nil)
        #expect(Set(byStub["stale"]?.map(\.violation.location) ?? []) == ["body.name", "body.price"])
        #expect(byStub["stale"]?.allSatisfy { $0.request.url.path == "/v2/products/1" } == true)
        #expect(byStub["unknown"]?.map(\.violation.rule) == ["path"])
        #expect(found.first.map { "\($0)" }?.contains("answers GET") == true)

        let files = StubFiles(
            json: Data(
                #"{"request": {"method": "GET", "urlPath": "/v2/products/3"}, "response": {"status": 201}}"#.utf8),
            name: "inline.json", filesDirectory: nil)
        try stubber.load(files)
        let fromFile = stubber.validate(against: Documents.shop).filter { $0.stub.fileID == "inline.json" }
        #expect(fromFile.map(\.violation.rule) == ["status"])
    }
}
