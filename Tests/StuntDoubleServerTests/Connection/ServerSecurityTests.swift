import Foundation
import InMemoryLogging
import Logging
import StuntDouble
import StuntDoubleServer
import StuntDoubleWireMock
import Testing

/// What a server reachable by others must never do: lend its upstream's admin API, write secrets to its log,
/// leak a token through timing, write into files that are not the user's, name paths of the machine, or put
/// unescaped input in a header.
@Suite struct ServerSecurityTests {
    typealias Call = AdminAPITests

    @Test func theUpstreamsAdminAPIIsNotProxiedUnlessAsked() async throws {
        // The upstream: a server whose admin API is open (on loopback), which must stay out of reach.
        try await withStubServer { upstream in
            var configuration = HTTPStubServer.Configuration()
            configuration.isAdminAPIEnabled = false
            configuration.upstream = upstream
            try await withStubServer(configuration: configuration) { proxy in
                let listed = try await Call.call(.GET, proxy, "/__admin/mappings")
                #expect(listed.status == 404, "answered here, as any unmatched request: \(listed.text)")
                let shutdown = try await Call.call(.POST, proxy, "/__admin/shutdown")
                #expect(shutdown.status == 404)
                #expect(try await Call.call(.GET, upstream, "/__admin/health").status == 200, "the upstream still runs")
                // Other requests still go through.
                #expect(try await Call.call(.GET, proxy, "/anything").status == 404)
            }
            configuration.proxiesAdminRequests = true
            try await withStubServer(configuration: configuration) { proxy in
                let listed = try await Call.call(.GET, proxy, "/__admin/mappings")
                #expect(listed.status == 200, "forwarded when asked: \(listed.text)")
                #expect(listed.object["mappings"] != nil)
            }
        }
    }

    @Test func theLogNeverShowsTheTokenOrRedactedQueryValues() async throws {
        let handler = InMemoryLogHandler()
        var configuration = HTTPStubServer.Configuration()
        configuration.adminToken = "t0ps3cret"
        configuration.logger = Logger(label: "test") { _ in handler }
        let stubber = HTTPStubber()
        var options = HTTPRecording.Options()
        options.redactedQueryParameters = ["api_key"]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("redact-\(UUID().uuidString)")
        _ = try stubber.record(to: folder, mode: .record, options: options, environment: [:])
        try await withStubServer(stubber: stubber, configuration: configuration) { url in
            _ = try await Call.call(.GET, url, "/__admin/?token=t0ps3cret")
            _ = try await Call.call(.GET, url, "/search?q=shoes&api_key=k3y&token=t0ps3cret")
        }
        let lines = handler.entries.map(\.message.description)
        #expect(lines.contains { $0.contains("/__admin/?token=REDACTED") }, "\(lines)")
        #expect(lines.contains { $0.contains("/search?q=shoes&api_key=REDACTED&token=REDACTED") }, "\(lines)")
        #expect(!lines.contains { $0.contains("t0ps3cret") || $0.contains("k3y") })
    }

    @Test func tokensCompareAsEqualOnlyWhenEqual() async throws {
        var configuration = HTTPStubServer.Configuration()
        configuration.adminToken = "abcdef"
        try await Call.withServer(configuration: configuration) { url, _, _ in
            for (header, status) in [
                ("Bearer abcdef", 200), ("Bearer abcdeg", 401), ("Bearer abcde", 401), ("Bearer abcdefg", 401),
                ("Bearer ", 401), ("abcdef", 401),
            ] as [(String, UInt)] {
                let reply = try await Call.call(.GET, url, "/__admin/mappings", headers: [("Authorization", header)])
                #expect(reply.status == status, "\(header)")
            }
        }
    }

    @Test func savingRefusesToWriteIntoReadOnlyFiles() async throws {
        let root = try Call.root(["mappings/a.json": #"{"request": {"url": "/a"}, "response": {"body": "A"}}"#])
        defer { try? FileManager.default.removeItem(at: root) }
        let before = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("mappings").path)
        let server = HTTPStubServer()
        try server.loadStubFiles(at: root, displayPath: "the bundled examples", isReadOnly: true)
        let url = try await server.start()
        defer { Task { await server.stop() } }
        let created = try await Call.call(
            .POST, url, "/__admin/mappings", body: #"{"request": {"url": "/new"}, "response": {"body": "N"}}"#)
        #expect(created.status == 201)
        let saved = try await Call.call(.POST, url, "/__admin/mappings/save")
        #expect(saved.status == 409)
        #expect(saved.text.contains("the bundled examples"), "\(saved.text)")
        #expect(saved.text.contains("--root"))
        let after = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("mappings").path)
        #expect(after == before, "nothing written")
        await server.stop()
    }

    @Test func aBodyFileOutsideFilesIsNamedAsGivenNotAsResolved() async throws {
        try await Call.withServer(files: [
            "mappings/escape.json": #"{"request": {"url": "/x"}, "response": {"bodyFileName": "../../etc/passwd"}}"#
        ]) { url, _, root in
            let reply = try await Call.call(.GET, url, "/x")
            #expect(reply.status == 500)
            #expect(reply.text.contains("\"../../etc/passwd\" leads outside __files/"), "\(reply.text)")
            #expect(!reply.text.contains("/etc/passwd ") && !reply.text.contains(root.path), "\(reply.text)")
        }
    }

    /// A field name with a control character used to go, unescaped, into a warning header: the mapping was
    /// stored and the client got an empty reply.
    @Test func inputInHeadersIsEscaped() async throws {
        try await Call.withServer { url, _, _ in
            let created = try await Call.call(
                .POST, url, "/__admin/mappings",
                body:
                    #"{"name": "line\nbreak \u0015", "request": {"url": "/w", "headers": {"\u0015": {"absent": true}, "\u0015": {"absent": true}}}, "response": {}}"#
            )
            #expect(created.status == 201)
            let warning = try #require(created.headers["StuntDouble-Warning"].first)
            #expect(warning.contains(#"\u{15}"#), "\(warning)")
            #expect(!warning.unicodeScalars.contains { $0.value < 0x20 })
            let answered = try await Call.call(.GET, url, "/w")
            #expect(answered.status == 200)
            #expect(answered.headers["Matched-Stub-Name"].first == #"line\u{a}break \u{15}"#)
        }
    }
}
