import Foundation
import StuntDouble
import StuntDoubleServer
import Testing

/// The admin API's answers at scale: the mappings listing of 10,000 mappings, the journal of 10,000 requests, the
/// near misses of thousands of unmatched ones and a recording snapshot of 10,000 proxied exchanges, each
/// several megabytes, each arriving whole (its length as announced, JSON that parses, every item in it) to a
/// client that pauses mid-body. Answers this large stopped at 131,072 bytes over plain HTTP before issue 25.
@Suite(.timeLimit(.minutes(10))) struct AdminScaleTests {
    static let count = 10_000

    /// A root with one file of `count` mappings, `GET /items/<k>`.
    static func root(withMappings: Bool = true) throws -> URL {
        let mappings = (0..<(withMappings ? count : 0)).map { index in
            #"{"request": {"method": "GET", "urlPath": "/items/\#(index)"}, "response": {"status": 200, "#
                + #""headers": {"Content-Type": "application/json"}, "body": "{\"item\": \#(index)}"}}"#
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("admin-scale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        let text = #"{"mappings": ["# + mappings.joined(separator: ",\n") + "]}"
        try Data(text.utf8).write(to: root.appendingPathComponent("mappings/all.json"))
        return root
    }

    static func withServer(
        withMappings: Bool = true, upstream: URL? = nil, _ body: (HTTPStubServer, Int) async throws -> Void
    ) async throws {
        let root = try root(withMappings: withMappings)
        defer { try? FileManager.default.removeItem(at: root) }
        var configuration = HTTPStubServer.Configuration()
        configuration.upstream = upstream
        let server = HTTPStubServer(configuration: configuration)
        try server.loadStubFiles(at: root)
        try await server.start()
        do {
            try await body(server, try #require(server.port))
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Sends `paths` as GETs on one connection, pipelined 500 at a time; returns how many answered 200.
    static func send(_ paths: [String], port: Int) async throws -> Int {
        let connection = try await PacedConnection.connect(port: port, tls: nil, pace: .fast)
        defer { Task { await connection.close() } }
        var answered: [HTTPResponseReader.Response] = []
        for start in stride(from: 0, to: paths.count, by: 500) {
            let batch = paths[start..<min(start + 500, paths.count)]
            let text = batch.map { "GET \($0) HTTP/1.1\r\nHost: localhost\r\n\r\n" }.joined()
            try await connection.send(text, methods: Array(repeating: "GET", count: batch.count))
            answered = try await connection.responses(atLeast: start + batch.count, timeout: .seconds(300))
        }
        return answered.filter { $0.status == 200 }.count
    }

    /// Gets an admin answer with a client that pauses for a second after 100 KB; checks that it arrived whole (its
    /// length as announced, more than the 128 KiB it once stopped at) and returns it parsed.
    static func admin(_ path: String, method: String = "GET", body: String = "", port: Int) async throws -> Any {
        let connection = try await PacedConnection.connect(
            port: port, tls: nil, pace: .pausing(afterBytes: 100_000, pause: .seconds(1)), keepsBodies: true)
        defer { Task { await connection.close() } }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n"
        if !body.isEmpty { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        request += "\r\n" + body
        try await connection.send(request, methods: [method])
        let response = try #require(try await connection.responses(atLeast: 1, timeout: .seconds(300)).first)
        #expect(response.status == 200, "\(String(decoding: response.body.prefix(300), as: UTF8.self))")
        #expect(response.bodyLength > 200 << 10, "large enough to have stopped at 128 KiB before")
        #expect(response.header("content-length").flatMap { Int($0) } == response.bodyLength)
        #expect(response.body.count == response.bodyLength)
        return try JSONSerialization.jsonObject(with: response.body)
    }

    @Test func theListingOf10000MappingsArrivesWhole() async throws {
        try await Self.withServer { _, port in
            let listing = try #require(try await Self.admin("/__admin/mappings", port: port) as? [String: Any])
            #expect((listing["mappings"] as? [Any])?.count == Self.count)
            #expect((listing["meta"] as? [String: Any])?["total"] as? Int == Self.count)
        }
    }

    /// 10,000 requests, every tenth one unmatched: the journal lists them all, and the near misses every unmatched
    /// one with the mapping it nearly matched (1,000 of them, each worked out among 10,000 mappings, a megabyte of
    /// JSON; every other one unmatched made this the plain test run's slowest test, two minutes of a loaded CI).
    @Test func theJournalOf10000RequestsAndItsNearMissesArriveWhole() async throws {
        try await Self.withServer { _, port in
            let paths = (0..<Self.count).map { $0 % 10 == 0 ? "/itemz/\($0)" : "/items/\($0)" }
            #expect(try await Self.send(paths, port: port) == Self.count - Self.count / 10)
            let journal = try #require(try await Self.admin("/__admin/requests", port: port) as? [String: Any])
            #expect((journal["requests"] as? [Any])?.count == Self.count)
            #expect((journal["meta"] as? [String: Any])?["total"] as? Int == Self.count)
            let nearMisses = try #require(
                try await Self.admin("/__admin/requests/unmatched/near-misses", port: port) as? [String: Any])
            let misses = try #require(nearMisses["nearMisses"] as? [[String: Any]])
            #expect(misses.count >= Self.count / 10)
            let unmatched = Set(misses.compactMap { ($0["request"] as? [String: Any])?["url"] as? String })
            #expect(unmatched.count == Self.count / 10, "every unmatched request has its near misses")
        }
    }

    /// 10,000 requests proxied to an upstream, then a snapshot: 10,000 mappings made of them, in one answer.
    @Test func aSnapshotOf10000ProxiedExchangesArrivesWhole() async throws {
        try await Self.withServer { upstream, _ in
            try await Self.withServer(withMappings: false, upstream: upstream.baseURL) { _, port in
                let paths = (0..<Self.count).map { "/items/\($0)" }
                #expect(try await Self.send(paths, port: port) == Self.count, "each answered by the upstream")
                let snapshot = try #require(
                    try await Self.admin(
                        "/__admin/recordings/snapshot", method: "POST", body: #"{"persist": false}"#, port: port)
                        as? [String: Any])
                let mappings = try #require(snapshot["mappings"] as? [[String: Any]])
                #expect(mappings.count == Self.count)
                let urls = Set(mappings.compactMap { ($0["request"] as? [String: Any])?["url"] as? String })
                #expect(urls == Set(paths), "one mapping per exchange")
            }
        }
    }
}
