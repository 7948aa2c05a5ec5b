import Foundation
import StuntDouble
import StuntDoubleServer
import Testing

/// Stub-file roots the size real teams have: loading is linear in the mappings (a 1,000-mapping list file used to
/// be read again for each of its mappings: 74 s).
@Suite struct StubFileScaleTests {
    static func mapping(_ index: Int) -> String {
        #"{"name": "item \#(index)", "request": {"method": "GET", "urlPath": "/items/\#(index)"}, "response": {"status": 200, "jsonBody": {"index": \#(index), "text": "caf\u00e9 \"\#(index)\""}, "headers": {"Content-Type": "application/json"}}}"#
    }

    @Test func aFileOf5000MappingsLoadsInSeconds() async throws {
        let root = try AdminAPITests.root([
            "mappings/all.json": "{\"mappings\": [" + (0..<5_000).map(Self.mapping).joined(separator: ",\n") + "]}"
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let server = HTTPStubServer()
        let start = ContinuousClock.now
        let files = try server.loadStubFiles(at: root)
        let elapsed = ContinuousClock.now - start
        #expect(files.mappingCount == 5_000)
        // Measured: about 1 s in a debug build, 30 s under ThreadSanitizer beside a release build. Reading the list
        // again for each mapping took 74 s for 1,000 mappings, so about half an hour for these 5,000: a bound of
        // five minutes tells the two apart on any machine, however loaded.
        #expect(elapsed < .seconds(300), "\(elapsed)")
        let url = try await server.start()
        let reply = try await AdminAPITests.call(.GET, url, "/items/4999")
        #expect(reply.object["index"] as? Int == 4_999)
        // Saving a change writes the list back as a list.
        let mappings = try await AdminAPITests.call(.GET, url, "/__admin/mappings?limit=1")
        let first = try #require((mappings.object["mappings"] as? [[String: Any]])?.first?["id"] as? String)
        _ = try await AdminAPITests.call(
            .PUT, url, "/__admin/mappings/\(first)",
            body: #"{"request": {"urlPath": "/changed"}, "response": {"body": "changed"}}"#)
        #expect(try await AdminAPITests.call(.POST, url, "/__admin/mappings/save").status == 200)
        let written = try Data(contentsOf: root.appendingPathComponent("mappings/all.json"))
        let object = try JSONSerialization.jsonObject(with: written) as? [String: Any]
        #expect((object?["mappings"] as? [Any])?.count == 5_000)
        await server.stop()
    }

    @Test func aRootOf2000FilesLoadsInSeconds() async throws {
        var files: [String: String] = [:]
        for index in 0..<2_000 {
            files["mappings/m\(index).json"] = Self.mapping(index)
        }
        let root = try AdminAPITests.root(files)
        defer { try? FileManager.default.removeItem(at: root) }
        let server = HTTPStubServer()
        let start = ContinuousClock.now
        #expect(try server.loadStubFiles(at: root).mappingCount == 2_000)
        // Linear: seconds, at most (see above for why the bound is five minutes).
        #expect(ContinuousClock.now - start < .seconds(300))
    }
}
