import AsyncHTTPClient
import Foundation
import NIOCore
import StuntDouble
import StuntDoubleServer
import StuntDoubleWireMock
import TestSupport
import Testing

/// HAR files from and for tools no one here wrote: mitmproxy's HAR export (its `hardump` option) read as
/// stubs, and our exports read by haralyzer (PyPI). CI installs both with pip.
@Suite struct HARToolTests {
    static let mitmproxyInstalled = runsWithOutsideProgram(ChildProcess.succeeds("mitmdump", ["--version"]))
    static let haralyzerInstalled = runsWithOutsideProgram(
        ChildProcess.succeeds("python3", ["-c", "import haralyzer"]))

    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0xFF])

    static func upstream() -> HTTPStubber {
        let stubber = ProxyRecordingTests.upstreamStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/logo.png").stub(for: .get) {
                $0.headers = ["Content-Type": "image/png"]
                $0.body = png
            })
        return stubber
    }

    @Test(.enabled(if: mitmproxyInstalled, "mitmproxy is not installed (pip install mitmproxy; CI does)"))
    func mitmproxysHARExportReplaysTheSameBytes() async throws {
        let har = FileManager.default.temporaryDirectory.appendingPathComponent("mitm-\(UUID().uuidString).har")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mitm-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: har)
            try? FileManager.default.removeItem(at: root)
        }
        let paths = ["/data", "/logo.png", "/slow"]
        var live: [Data] = []
        let upstreamServer = HTTPStubServer(stubber: Self.upstream())
        let upstream = try await upstreamServer.start()
        let mitm = try ChildProcess(
            "mitmdump",
            [
                "--mode", "reverse:\(upstream.absoluteString)", "--listen-host", "127.0.0.1", "--listen-port", "0",
                "--set", "hardump=\(har.path)",
            ])
        var port: String?
        let deadline = ContinuousClock.now + .seconds(60)
        while port == nil, ContinuousClock.now < deadline {
            port = mitm.standardOutput.firstMatch(of: /listening at 127\.0\.0\.1:(\d+)/).map { String($0.1) }
            if port == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let proxy = "http://127.0.0.1:\(try #require(port, "\(mitm.standardOutput)\(mitm.standardError)"))"
        for path in paths {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: proxy + path), timeout: .seconds(120))
            live.append(Data((try await response.body.collect(upTo: 1 << 20)).readableBytesView))
        }
        mitm.signal(SIGTERM)
        #expect(try await mitm.waitForExit(timeout: .seconds(60)) == 0, "\(mitm.standardOutput)\(mitm.standardError)")
        await upstreamServer.stop()

        // In process: the archive's URLs are the upstream's, which is gone.
        let stubber = HTTPStubber()
        let archive = try stubber.load(harAt: har)
        #expect(archive.exchanges.count == 3)
        for (path, expected) in zip(paths, live) {
            let (data, _) = try await stubber.stubSession().data(from: URL(string: upstream.absoluteString + path)!)
            #expect(data == expected, "\(path)")
        }

        // As stub files, served.
        let imported = try await CommandProcess.run(["import-har", har.path, "--root", root.path])
        #expect(imported.status == 0, "\(imported.error)")
        #expect(imported.output.contains("Wrote 3 exchanges"))
        let files = HTTPStubber()
        try files.load(stubFilesAt: root)
        try await withStubServer(stubber: files) { server in
            for (path, expected) in zip(paths, live) {
                let response = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: server.absoluteString + path), timeout: .seconds(120))
                #expect(Data((try await response.body.collect(upTo: 1 << 20)).readableBytesView) == expected, "\(path)")
            }
        }
    }

    @Test(.enabled(if: haralyzerInstalled, "haralyzer is not installed (pip install haralyzer; CI does)"))
    func haralyzerReadsOurExports() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A journal (a server's stubber), and a recording made through the server.
        let stubber = Self.upstream()
        let recorder = HTTPStubber()
        let recording = try recorder.record(to: folder.appendingPathComponent("rec"), mode: .record, environment: [:])
        try await withStubServer(stubber: stubber) { upstream in
            var configuration = HTTPStubServer.Configuration()
            configuration.upstream = upstream
            try await withStubServer(stubber: recorder, configuration: configuration) { proxy in
                for path in ["/data", "/logo.png"] {
                    let response = try await HTTPClient.shared.execute(
                        HTTPClientRequest(url: proxy.absoluteString + path), timeout: .seconds(120))
                    _ = try await response.body.collect(upTo: 1 << 20)
                }
            }
        }
        try stubber.harDocument().write(to: folder.appendingPathComponent("journal.har"))
        try recording.harDocument().write(to: folder.appendingPathComponent("recording.har"))
        let script = """
            import sys, json
            from haralyzer import HarParser
            for name in sys.argv[1:]:
                with open(name) as f:
                    parser = HarParser(json.load(f))
                entries = parser.har_data["entries"]
                print(len(entries), [e["request"]["url"].split("/", 3)[3] for e in entries],
                      [e["response"]["status"] for e in entries], [e["response"]["content"]["mimeType"] for e in entries])
            """
        let result = try await ChildProcess.run(
            "python3",
            [
                "-c", script, folder.appendingPathComponent("journal.har").path,
                folder.appendingPathComponent("recording.har").path,
            ])
        #expect(result.status == 0, "\(result.error)")
        #expect(
            result.output.split(separator: "\n").map(String.init) == [
                "2 ['data', 'logo.png'] [201, 200] ['application/json', 'image/png']",
                "2 ['data', 'logo.png'] [201, 200] ['application/json', 'image/png']",
            ], "\(result.output)\(result.error)")
    }
}
