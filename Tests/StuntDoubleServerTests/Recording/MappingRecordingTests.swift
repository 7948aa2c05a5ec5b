import AsyncHTTPClient
import Foundation
import InMemoryLogging
import Logging
import NIOCore
import StuntDouble
import StuntDoubleServer
import TestSupport
import Testing

/// WireMock's `--record-mappings`: a proxy that writes each new exchange as mapping files while it serves, and a
/// server that replays them.
@Suite struct MappingRecordingTests {
    static let text = String(repeating: "every line of this answer is worth keeping\n", count: 20)

    /// The proxy tests' upstream (`/data` is JSON with a header of its own), with text and orders.
    static func upstreamStubber() -> HTTPStubber {
        let stubber = ProxyRecordingTests.upstreamStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/text").stub(for: .get) {
                $0.headers = ["Content-Type": "text/plain"]
                $0.body = Data(text.utf8)
            })
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/orders").stub(for: .post) {
                $0.statusCode = .accepted
                $0.body = Data("accepted".utf8)
            })
        return stubber
    }

    static func mappings(in root: URL) throws -> [String: [String: Any]] {
        let folder = root.appendingPathComponent("mappings")
        var found: [String: [String: Any]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            found[name] = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        return found
    }

    static func post(_ url: String, tenant: String, body: String) async throws -> String {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "X-Tenant", value: tenant)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        return String(buffer: try await response.body.collect(upTo: 1 << 20))
    }

    @Test func newExchangesAreWrittenAsTheyEndAndReplay() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var upstreamConfiguration = HTTPStubServer.Configuration()
        upstreamConfiguration.gzipsResponses = true
        try await withStubServer(stubber: Self.upstreamStubber(), configuration: upstreamConfiguration) { upstream in
            let stubber = HTTPStubber()
            stubber.add(stub: HTTPStubRequest().match(URI: "/local").stub(for: .get, body: "local"))
            var configuration = HTTPStubServer.Configuration()
            configuration.upstream = upstream
            configuration.mappingRecording = .init(root: root, matchedHeaders: ["x-tenant"])
            try await withStubServer(stubber: stubber, configuration: configuration) { proxy in
                // Written before the client has the answer (held until whole); a repeat is not written again.
                #expect(try await ProxyRecordingTests.get("\(proxy)/data").status == 201)
                #expect(try Self.mappings(in: root).count == 1)
                #expect(try await ProxyRecordingTests.get("\(proxy)/data").status == 201)
                #expect(try await ProxyRecordingTests.get("\(proxy)/local").body == Data("local".utf8))
                #expect(try Self.mappings(in: root).count == 1, "a repeat and a stub's answer are not recorded")

                // The client gets the upstream's gzip; the file gets the text.
                let raw = try await RawConnection.connect(
                    to: proxy, sending: "GET /text HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
                let gzipped = try #require(try await raw.readResponse())
                await raw.close()
                #expect(gzipped.header("Content-Encoding") == "gzip")
                #expect(gzipped.body != Data(Self.text.utf8))

                // Matched headers and JSON bodies are part of the request: another tenant is another mapping.
                let order = #"{"item": "book", "count": 1}"#
                #expect(try await Self.post("\(proxy)/orders", tenant: "a", body: order) == "accepted")
                #expect(try await Self.post("\(proxy)/orders", tenant: "b", body: order) == "accepted")
                #expect(try await Self.post("\(proxy)/orders", tenant: "b", body: order) == "accepted")
            }
        }
        let mappings = try Self.mappings(in: root)
        #expect(mappings.count == 4, "\(mappings.keys.sorted())")
        let text = try #require(
            mappings.values.first { ($0["request"] as? [String: Any])?["url"] as? String == "/text" })
        let response = try #require(text["response"] as? [String: Any])
        #expect(
            (response["headers"] as? [String: Any])?.keys.contains { $0.lowercased() == "content-encoding" } == false)
        let file = try #require(response["bodyFileName"] as? String)
        #expect(try Data(contentsOf: root.appendingPathComponent("__files/\(file)")) == Data(Self.text.utf8))
        let orders = mappings.values.compactMap { $0["request"] as? [String: Any] }.filter {
            $0["url"] as? String == "/orders"
        }
        #expect(orders.count == 2)
        for order in orders {
            #expect(order["method"] as? String == "POST")
            #expect(((order["headers"] as? [String: Any])?["x-tenant"] as? [String: Any])?["equalTo"] != nil)
            let pattern = (order["bodyPatterns"] as? [[String: Any]])?.first
            #expect(pattern?["equalToJson"] as? String == #"{"item": "book", "count": 1}"#)
        }

        // What was recorded answers as the upstream did, with no upstream.
        let replay = HTTPStubServer(stubber: HTTPStubber())
        let files = try replay.loadStubFiles(at: root)
        #expect(files.diagnostics.isEmpty, "\(files.diagnostics)")
        let baseURL = try await replay.start()
        do {
            let data = try await ProxyRecordingTests.get("\(baseURL)/data")
            #expect(data.status == 201)
            #expect(data.headers["x-upstream"] == "yes")
            #expect(data.body == Data(#"{"b":2,"a":[1,2,3]}"#.utf8))
            #expect(try await ProxyRecordingTests.get("\(baseURL)/text").body == Data(Self.text.utf8))
            #expect(
                try await Self.post("\(baseURL)/orders", tenant: "b", body: #"{"count": 1, "item": "book"}"#)
                    == "accepted")
            #expect(try await ProxyRecordingTests.get("\(baseURL)/local").status == 404)
        } catch {
            await replay.stop()
            throw error
        }
        await replay.stop()
    }

    /// Answers are held until whole while recording, but an event stream, which may never end, is not.
    @Test func anEventStreamPassesAsItComes() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try await withStubServer(stubber: Self.upstreamStubber()) { upstream in
            var configuration = HTTPStubServer.Configuration()
            configuration.upstream = upstream
            configuration.mappingRecording = .init(root: root)
            try await withStubServer(configuration: configuration) { proxy in
                let open = try await RawConnection.connect(to: proxy, sending: "GET /open HTTP/1.1\r\nHost: x\r\n\r\n")
                let streamed = try await open.read { String(decoding: $0, as: UTF8.self).contains("data: hello") }
                await open.close()
                #expect(streamed, "the first event of a stream that never ends reached the client")
            }
        }
    }

    @Test func aFolderThatCannotBeWrittenIsLoggedAndTheClientStillAnswered() async throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)")
        try Data("a file, not a folder".utf8).write(to: blocker)
        defer { try? FileManager.default.removeItem(at: blocker) }
        let logs = InMemoryLogHandler()
        try await withStubServer(stubber: Self.upstreamStubber()) { upstream in
            var configuration = HTTPStubServer.Configuration()
            configuration.upstream = upstream
            configuration.mappingRecording = .init(root: blocker.appendingPathComponent("root"))
            configuration.logger = Logger(label: "test") { _ in logs }
            configuration.logger.logLevel = .info
            try await withStubServer(configuration: configuration) { proxy in
                for _ in 0..<2 {
                    let data = try await ProxyRecordingTests.get("\(proxy)/data")
                    #expect(data.status == 201)
                    #expect(data.body == Data(#"{"b":2,"a":[1,2,3]}"#.utf8))
                }
            }
        }
        let errors = logs.entries.filter { $0.message.description.contains("GET /data was not recorded") }
        #expect(errors.count == 2, "each try is logged, and the next one tries again: \(logs.entries.map(\.message))")
        #expect(errors.allSatisfy { $0.level == .error })
    }
}
