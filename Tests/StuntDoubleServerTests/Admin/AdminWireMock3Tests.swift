import Foundation
import Testing

/// The ways WireMock's clients remove and edit one mapping besides `DELETE` and `PUT /__admin/mappings/{id}`:
/// `POST /__admin/mappings/remove` (WireMock's `removeStub`) and `POST /__admin/mappings/edit` (WireMock 2's
/// `editStub`).
@Suite struct AdminMappingEditTests {
    typealias Call = AdminAPITests

    static func add(_ url: URL, _ path: String, body: String, id: String? = nil) async throws {
        let idMember = id.map { #""id": "\#($0)", "# } ?? ""
        let mapping =
            #"{\#(idMember)"request": {"method": "GET", "url": "\#(path)"}, "response": {"body": "\#(body)"}}"#
        #expect(try await Call.call(.POST, url, "/__admin/mappings", body: mapping).status == 201)
    }

    @Test func removeTakesTheIdElseTheRequest() async throws {
        try await Call.withServer { url, _, _ in
            let id = UUID().uuidString.lowercased()
            try await Self.add(url, "/a", body: "a", id: id)
            try await Self.add(url, "/b", body: "b1")
            try await Self.add(url, "/b", body: "b2")
            try await Self.add(url, "/c", body: "c")

            // By id: the request in the body does not matter.
            let byID = #"{"id": "\#(id)", "request": {"url": "/c"}}"#
            let removed = try await Call.call(.POST, url, "/__admin/mappings/remove", body: byID)
            #expect(removed.status == 200)
            #expect(removed.text.isEmpty)
            #expect(try await Call.call(.GET, url, "/a").status == 404)
            #expect(try await Call.call(.GET, url, "/c").text == "c")

            // By request: every mapping with that request (the keys in any order), and no other.
            let byRequest = #"{"request": {"url": "/b", "method": "GET"}, "response": {"status": 500}}"#
            #expect(try await Call.call(.POST, url, "/__admin/mappings/remove", body: byRequest).status == 200)
            #expect(try await Call.call(.GET, url, "/b").status == 404)
            #expect(try await Call.call(.GET, url, "/c").text == "c")

            // Nothing matches: WireMock answers 200 all the same.
            let nothing = #"{"request": {"url": "/none"}}"#
            #expect(try await Call.call(.POST, url, "/__admin/mappings/remove", body: nothing).status == 200)
            let broken = try await Call.call(.POST, url, "/__admin/mappings/remove", body: "[1]")
            #expect(broken.status == 422)
            #expect(broken.text.contains("not a mapping"), "\(broken.text)")
        }
    }

    @Test func editReplacesTheMappingWithTheBodysID() async throws {
        try await Call.withServer { url, _, _ in
            let id = UUID().uuidString.lowercased()
            try await Self.add(url, "/a", body: "before", id: id)
            let edited = #"{"id": "\#(id)", "request": {"url": "/a"}, "response": {"body": "after"}}"#
            let answer = try await Call.call(.POST, url, "/__admin/mappings/edit", body: edited)
            #expect(answer.status == 204)
            #expect(try await Call.call(.GET, url, "/a").text == "after")
            #expect(try await Call.call(.GET, url, "/__admin/mappings/\(id)").text.contains("after"))

            let unknown = #"{"id": "\#(UUID().uuidString)", "request": {"url": "/a"}, "response": {}}"#
            #expect(try await Call.call(.POST, url, "/__admin/mappings/edit", body: unknown).status == 404)
            let anonymous = #"{"request": {"url": "/a"}, "response": {}}"#
            let refused = try await Call.call(.POST, url, "/__admin/mappings/edit", body: anonymous)
            #expect(refused.status == 422)
            #expect(refused.text.contains("has no id"), "\(refused.text)")
            #expect(try await Call.call(.GET, url, "/a").text == "after", "a refused edit changes nothing")
        }
    }
}
