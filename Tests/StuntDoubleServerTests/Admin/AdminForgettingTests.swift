import Foundation
import Testing

/// Mappings of the root's files that the admin API removes stay removed when the files are read again
/// (`/reset`), as in WireMock (which deletes their files; StuntDouble never deletes a user's file).
@Suite struct AdminForgettingTests {
    let files = [
        "mappings/one.json": #"{"request": {"url": "/one"}, "response": {"body": "one"}}"#,
        "mappings/list.json":
            #"{"mappings": [{"request": {"url": "/a"}, "response": {"body": "a"}}, {"request": {"url": "/b"}, "response": {"body": "b"}}]}"#,
    ]

    @Test func removingEveryMappingKeepsTheFilesOnesOutOfAReset() async throws {
        try await AdminAPITests.withServer(files: files) { url, _, root in
            #expect(try await AdminAPITests.call(.DELETE, url, "/__admin/mappings").status == 200)
            #expect(try await AdminAPITests.call(.POST, url, "/__admin/mappings/reset").status == 200)
            #expect(try await AdminAPITests.call(.GET, url, "/one").status == 404)
            #expect(try await AdminAPITests.call(.POST, url, "/__admin/reset").status == 200)
            #expect(try await AdminAPITests.call(.GET, url, "/a").status == 404)
            let listed = try await AdminAPITests.call(.GET, url, "/__admin/mappings")
            #expect((listed.object["mappings"] as? [Any])?.isEmpty == true)
            // The user's files are all still there.
            let written = try FileManager.default.contentsOfDirectory(
                atPath: root.appendingPathComponent("mappings").path)
            #expect(Set(written) == ["one.json", "list.json"])

            // A mapping made and saved afterwards is read again.
            _ = try await AdminAPITests.call(
                .POST, url, "/__admin/mappings", body: #"{"request": {"url": "/new"}, "response": {"body": "new"}}"#)
            #expect(try await AdminAPITests.call(.POST, url, "/__admin/mappings/save").status == 200)
            #expect(try await AdminAPITests.call(.POST, url, "/__admin/mappings/reset").status == 200)
            #expect(try await AdminAPITests.call(.GET, url, "/new").text == "new")
        }
    }

    @Test func removingOneMappingOfAListFileKeepsItAloneOut() async throws {
        try await AdminAPITests.withServer(files: files) { url, _, _ in
            let list = try await AdminAPITests.call(.GET, url, "/__admin/mappings")
            let mappings = try #require(list.object["mappings"] as? [[String: Any]])
            let a = try #require(mappings.first { ($0["request"] as? [String: Any])?["url"] as? String == "/a" })
            let id = try #require(a["id"] as? String)
            #expect(try await AdminAPITests.call(.DELETE, url, "/__admin/mappings/\(id)").status == 200)
            #expect(try await AdminAPITests.call(.POST, url, "/__admin/mappings/reset").status == 200)
            #expect(try await AdminAPITests.call(.GET, url, "/a").status == 404)
            #expect(try await AdminAPITests.call(.GET, url, "/b").text == "b")
            #expect(try await AdminAPITests.call(.GET, url, "/one").text == "one")
        }
    }
}
