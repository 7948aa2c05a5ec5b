import Foundation
import StuntDouble
import StuntDoubleServer
import Testing

/// `/__admin/files`: the body files of the root's `__files/`, listed, read, written and deleted, never outside
/// that folder.
@Suite struct AdminFilesTests {
    typealias Call = AdminAPITests

    @Test func listReadWriteAndDelete() async throws {
        let files = [
            "__files/a.json": #"{"a": 1}"#,
            "__files/nested/b.txt": "bee",
            "mappings/m.json": #"{"request": {"urlPath": "/m"}, "response": {"bodyFileName": "nested/b.txt"}}"#,
        ]
        try await Call.withServer(files: files) { url, _, root in
            let list = try await Call.call(.GET, url, "/__admin/files")
            #expect(list.json as? [String] == ["a.json", "nested/b.txt"])
            #expect(try await Call.call(.GET, url, "/__admin/files/nested/b.txt").text == "bee")

            let written = try await Call.call(.PUT, url, "/__admin/files/new/c.txt", body: "sea")
            #expect(written.status == 200 && written.text.contains(#""c2Vh""#), "the bytes in Base64, as WireMock")
            let onDisk = try String(contentsOf: root.appendingPathComponent("__files/new/c.txt"), encoding: .utf8)
            #expect(onDisk == "sea")
            #expect(try await Call.call(.GET, url, "/new/c.txt").text == "sea", "served as a static file at once")

            _ = try await Call.call(.PUT, url, "/__admin/files/nested/b.txt", body: "changed")
            #expect(try await Call.call(.GET, url, "/m").text == "bee", "a mapping's body file is read at load")
            _ = try await Call.call(.POST, url, "/__admin/mappings/reset")
            #expect(try await Call.call(.GET, url, "/m").text == "changed", "and again when the mappings are")

            #expect(try await Call.call(.DELETE, url, "/__admin/files/a.json").status == 200)
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("__files/a.json").path))
            #expect(try await Call.call(.DELETE, url, "/__admin/files/a.json").status == 404)
            #expect(try await Call.call(.GET, url, "/__admin/files/a.json").status == 404)
        }
    }

    @Test(arguments: [
        "/__admin/files/../mappings/m.json", "/__admin/files/%2E%2E/secret", "/__admin/files/a/..%2F..%2Fx",
    ])
    func noNameLeadsOutsideTheFilesFolder(path: String) async throws {
        try await Call.withServer(files: ["__files/a.json": "{}"]) { url, _, root in
            let written = try await Call.call(.PUT, url, path, body: "pwned")
            #expect(written.status == 422 || written.status == 404, "\(written.status) \(written.text)")
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("secret").path))
            let read = try await Call.call(.GET, url, path)
            #expect(read.status != 200)
        }
    }
}
