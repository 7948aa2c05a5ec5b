import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble
import TestSupport
import Testing

@testable import StuntDoubleServer

/// gzip as WireMock does it: answers gzipped for clients that accept it, gzipped requests matched as their text.
/// The format is checked against `gzip`, the command, in both directions.
@Suite struct GzipTests {
    static let gzipInstalled = runsWithOutsideProgram(ChildProcess.succeeds("gzip", ["--version"]))

    /// Bodies of every kind: empty, tiny, at the 32-byte threshold, text that compresses, random bytes that do not,
    /// and past zlib's 64 KiB windows.
    static let bodies: [ByteBuffer] = {
        var generator = SystemRandomNumberGenerator()
        // Small enough for ThreadSanitizer's pass, which runs zlib ten times slower beside every other suite.
        let random = (0..<80_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = String(repeating: #"{"id": 42, "name": "Ada Lovelace", "tags": ["a", "b"]}, "#, count: 2_000)
        return [[], [7], Array(repeating: 65, count: 32), Array(text.utf8), random].map { ByteBuffer(bytes: $0) }
    }()

    @Test(.enabled(if: gzipInstalled, "gzip is not installed"), arguments: bodies.indices)
    func compressedBodiesAreGzipAsTheCommandReadsIt(index: Int) async throws {
        let body = Self.bodies[index]
        let compressed = try #require(Gzip.compress(body))
        #expect(Gzip.isGzipped(compressed))
        #expect(Gzip.decompress(compressed, limit: body.readableBytes) == body)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-\(UUID().uuidString).gz")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(compressed.readableBytesView).write(to: file)
        let (status, output, _) = try await ChildProcess.run(
            "/bin/sh", ["-c", "gzip -dc '\(file.path)' | od -An -tx1 -v"])
        #expect(status == 0)
        let bytes = output.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { UInt8($0, radix: 16)! }
        #expect(bytes == Array(body.readableBytesView))
    }

    @Test(.enabled(if: gzipInstalled, "gzip is not installed"))
    func whatTheCommandGzipsIsRead() async throws {
        let text = String(repeating: "the quick brown fox ", count: 5_000)
        let (status, output, _) = try await ChildProcess.run(
            "/bin/sh", ["-c", "printf '%s' '\(text)' | gzip -9 | od -An -tx1 -v"])
        #expect(status == 0)
        let gzipped = ByteBuffer(
            bytes: output.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { UInt8($0, radix: 16)! })
        #expect(Gzip.decompress(gzipped, limit: 1 << 20) == ByteBuffer(string: text))
    }

    @Test func aBodyThatIsNotWholeGzipIsLeftAlone() throws {
        let plain = ByteBuffer(string: String(repeating: "abc", count: 1000))
        var gzipped = try #require(Gzip.compress(plain))
        #expect(Gzip.decompress(plain, limit: 1 << 20) == nil, "not gzip")
        #expect(Gzip.decompress(gzipped.getSlice(at: 0, length: gzipped.readableBytes - 9)!, limit: 1 << 20) == nil)
        gzipped.writeString("trailing")
        #expect(Gzip.decompress(gzipped, limit: 1 << 20) == nil, "bytes after the stream")
        // 2 MiB of zeros gzip to a few KiB: inflating stops at the limit.
        let bomb = try #require(Gzip.compress(ByteBuffer(repeating: 0, count: 2 << 20)))
        #expect(bomb.readableBytes < 16 << 10)
        #expect(Gzip.decompress(bomb, limit: 256 << 10) == nil)
    }

    @Test(arguments: [
        ("GET", "gzip", true), ("GET", "gzip, deflate, br", true), ("POST", "deflate, GZIP;q=0.5", true),
        ("DELETE", "br;q=1, gzip", true), ("GET", "gzip;q=0", false), ("GET", "identity", false), ("GET", "", false),
        ("HEAD", "gzip", false), ("OPTIONS", "gzip", false), ("GET", "x-gzip-ish", false),
    ])
    func whoAcceptsGzip(method: String, acceptEncoding: String, accepts: Bool) {
        var head = HTTPRequestHead(version: .http1_1, method: NIOHTTP1.HTTPMethod(rawValue: method), uri: "/")
        if !acceptEncoding.isEmpty { head.headers.add(name: "Accept-Encoding", value: acceptEncoding) }
        #expect(Gzip.accepts(head) == accepts)
    }

    static let big = String(repeating: "0123456789abcdef", count: 64)

    /// Stub files whose answers are gzipped, or left alone, as WireMock's Jetty decides.
    static let mappings = #"""
        {"mappings": [
          {"request": {"url": "/json"}, "response": {"body": "\#(big)", "headers": {"Content-Type": "application/json"}}},
          {"request": {"url": "/short"}, "response": {"body": "tiny"}},
          {"request": {"url": "/encoded"}, "response": {"body": "\#(big)", "headers": {"Content-Encoding": "identity"}}},
          {"request": {"url": "/png"}, "response": {"body": "\#(big)", "headers": {"Content-Type": "image/png"}}},
          {"request": {"url": "/slow"}, "response": {"body": "\#(big)", "fixedDelayMilliseconds": 30}},
          {"request": {"url": "/dribble"}, "response": {"body": "\#(big)",
            "chunkedDribbleDelay": {"numberOfChunks": 3, "totalDuration": 30}}},
          {"request": {"method": "POST", "url": "/orders", "bodyPatterns": [{"equalToJson": {"id": 7, "items": [1, 2]}}]},
           "response": {"status": 201, "body": "made"}}
        ]}
        """#

    /// A client that shows bodies as they come, and asks for gzip only when told (the shared one inflates them).
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.decompression = .disabled
        // As long as the tests' own waits: under ThreadSanitizer beside every other suite, a connection can take
        // more than AsyncHTTPClient's default 10 seconds.
        configuration.timeout.connect = .seconds(120)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    static func get(_ url: URL, _ path: String, method: NIOHTTP1.HTTPMethod = .GET, gzip: Bool = true) async throws -> (
        HTTPClientResponse, ByteBuffer
    ) {
        var request = HTTPClientRequest(url: url.absoluteString + path)
        request.method = method
        if gzip { request.headers.add(name: "Accept-Encoding", value: "gzip, deflate") }
        let response = try await Self.client.execute(request, timeout: .seconds(120))
        return (response, try await response.body.collect(upTo: 1 << 20))
    }

    @Test func answersAreGzippedAsWireMockGzipsThem() async throws {
        let root = try AdminAPITests.root(["mappings/all.json": Self.mappings])
        defer { try? FileManager.default.removeItem(at: root) }
        var configuration = HTTPStubServer.Configuration()
        configuration.gzipsResponses = true
        let server = HTTPStubServer(configuration: configuration)
        _ = try server.loadStubFiles(at: root)
        try await AdminAPITests.serving(server) { url in
            for path in ["/json", "/slow"] {
                let (response, body) = try await Self.get(url, path)
                #expect(response.headers["Content-Encoding"] == ["gzip"], "\(path)")
                #expect(response.headers["Content-Length"] == ["\(body.readableBytes)"], "\(path)")
                #expect(body.readableBytes < Self.big.utf8.count)
                #expect(Gzip.decompress(body, limit: 1 << 20) == ByteBuffer(string: Self.big), "\(path)")
            }
            // Asked twice, the same bytes.
            #expect(try await Self.get(url, "/json").1 == (try await Self.get(url, "/json").1))
            // Not asked for, too short, encoded already, compressed already, paced, or a HEAD: as stubbed.
            for (path, method, asks) in [
                ("/json", NIOHTTP1.HTTPMethod.GET, false), ("/short", .GET, true), ("/encoded", .GET, true),
                ("/png", .GET, true), ("/dribble", .GET, true), ("/json", .HEAD, true),
            ] {
                let (response, body) = try await Self.get(url, path, method: method, gzip: asks)
                #expect(response.headers["Content-Encoding"].filter { $0 == "gzip" }.isEmpty, "\(path) \(method)")
                if method != .HEAD {
                    #expect(String(buffer: body) == (path == "/short" ? "tiny" : Self.big), "\(path)")
                }
            }
        }
    }

    @Test func theServerDoesNotGzipUnlessAsked() async throws {
        let root = try AdminAPITests.root(["mappings/all.json": Self.mappings])
        defer { try? FileManager.default.removeItem(at: root) }
        let server = HTTPStubServer()
        _ = try server.loadStubFiles(at: root)
        try await AdminAPITests.serving(server) { url in
            let (response, body) = try await Self.get(url, "/json")
            #expect(response.headers["Content-Encoding"].isEmpty)
            #expect(String(buffer: body) == Self.big)
        }
    }

    @Test(arguments: [true, false])
    func aGzippedRequestMatchesAsItsText(saysSo: Bool) async throws {
        let root = try AdminAPITests.root(["mappings/all.json": Self.mappings])
        defer { try? FileManager.default.removeItem(at: root) }
        let server = HTTPStubServer()
        _ = try server.loadStubFiles(at: root)
        try await AdminAPITests.serving(server) { url in
            var request = HTTPClientRequest(url: url.absoluteString + "/orders")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            // With Content-Encoding, or without: gzip's first bytes say it, as WireMock reads them.
            if saysSo { request.headers.add(name: "Content-Encoding", value: "gzip") }
            request.body = .bytes(try #require(Gzip.compress(ByteBuffer(string: #"{"items": [1, 2], "id": 7}"#))))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
            #expect(response.status == .created)
            #expect(String(buffer: try await response.body.collect(upTo: 1 << 20)) == "made")
        }
        let entry = try #require(server.stubber.journal.first)
        #expect(entry.request.body == Data(#"{"items": [1, 2], "id": 7}"#.utf8), "the journal keeps the text")
    }
}
