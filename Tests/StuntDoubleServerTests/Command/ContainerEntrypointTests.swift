import Foundation
import Testing

/// The container's entrypoint (`Container/docker-entrypoint.sh`), run as the image runs it: from a folder laid out
/// as `/home/wiremock`, with the command lines of WireMock's documentation and of public docker-compose files and
/// Dockerfiles after the image's name. No container engine runs here; the image itself is not built by the tests.
@Suite struct ContainerEntrypointTests {
    static let entrypoint = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Container/docker-entrypoint.sh")

    /// A folder laid out as the image's `/home/wiremock`: a templated stub whose body is a file in `__files/`.
    static func home() throws -> URL {
        try AdminAPITests.root([
            "mappings/hello.json": #"""
            {"request": {"urlPath": "/hello"}, "response": {"bodyFileName": "hello.txt",
             "transformers": ["response-template"]}}
            """#,
            "__files/hello.txt": "hello {{request.query.name}}",
        ])
    }

    /// Command lines as users write them after `wiremock/wiremock` (the port is 0 here, where WireMock's is 8080:
    /// tests run side by side), each with the `WIREMOCK_OPTIONS` the image adds after them.
    static let commandLines: [(arguments: [String], options: String)] = [
        // `docker run wiremock/wiremock`, and docker-compose files that give no command.
        ([], "--port 0"),
        // WireMock's Docker documentation.
        (["--https-port", "0", "--verbose"], "--port 0"),
        ([], "--https-port 0 --verbose --port 0"),
        (["--global-response-templating", "--disable-gzip", "--verbose", "--port", "0"], ""),
        // docker-compose `command: [--global-response-templating, --verbose]`.
        (["--global-response-templating", "--verbose"], "--port 0"),
        // A public Dockerfile's CMD, options written with = as jopt-simple reads them.
        (
            [
                "--global-response-templating", "--verbose", "--container-threads=20", "--async-response-enabled=true",
                "--async-response-threads=20", "--no-request-journal=true", "--disable-gzip=true",
            ], "--port 0"
        ),
        // Testcontainers for Rust's WireMock image.
        (
            [
                "--port", "0", "--verbose", "--no-request-journal", "--async-response-enabled",
                "--local-response-templating", "--disable-banner",
            ], ""
        ),
        // Load testing settings from a public article.
        (
            [
                "--global-response-templating", "--container-threads", "120", "--no-request-journal",
                "--async-response-enabled", "true", "--async-response-threads", "80",
            ], "--port 0"
        ),
        // `--root-dir` given: the image's default is not added (WireMock refuses an option given twice).
        (["--root-dir", "."], "--port 0"),
    ]

    @Test(arguments: commandLines.indices)
    func theEntrypointServesTheHomeFolder(index: Int) async throws {
        let (arguments, options) = Self.commandLines[index]
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(at: home) }
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        let serve = try CommandProcess(
            shell: "cd '\(home.path)' && WIREMOCK_OPTIONS='\(options)' exec '\(Self.entrypoint.path)' \(quoted)")
        let (_, baseURL) = try await WireMockOptionsTests.started(serve)
        // On every address of the container, as WireMock's image listens; the stub files of the working folder.
        #expect(serve.standardOutput.contains("Serving 1 stub from . on http://0.0.0.0:"), "\(serve.standardOutput)")
        #expect(try await WireMockOptionsTests.get(baseURL + "/hello?name=compose").1 == "hello compose")
        #expect(try await WireMockOptionsTests.get(baseURL + "/__admin/health").0 == .ok)
        try await WireMockOptionsTests.stop(serve)
    }

    /// Anything but options after the image's name runs as a command, as in WireMock's image.
    @Test func aCommandRunsInsteadOfTheServer() async throws {
        let run = try CommandProcess(shell: "exec '\(Self.entrypoint.path)' echo from the image")
        #expect(try await run.waitForExit() == 0)
        #expect(run.standardOutput == "from the image\n")
    }
}
