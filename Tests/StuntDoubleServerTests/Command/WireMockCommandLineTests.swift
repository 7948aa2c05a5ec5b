import AsyncHTTPClient
import Foundation
import Testing

/// Every option of WireMock's standalone command line, given to `stuntdouble` without a command as it is given
/// to WireMock's jar: it starts the server (naming in one line an option that has no effect), or stops with one
/// line saying why and what to do instead.
@Suite struct WireMockCommandLineTests {
    /// What `stuntdouble` does with an option.
    enum Outcome: Sendable, CustomStringConvertible {
        /// It serves; standard error names the option when `note` is given.
        case serves(note: String? = nil)
        /// It stops with status 64 (a command line it refuses), saying `reason`.
        case refuses(String)
        /// It prints `text` and ends with status 0.
        case prints(String)

        var description: String {
            switch self {
            case .serves(let note): "serves" + (note.map { " noting \($0)" } ?? "")
            case .refuses(let reason): "refuses: \(reason)"
            case .prints(let text): "prints \(text)"
            }
        }
    }

    /// WireMock 2.35.1's `--help` (the jar in PyPI's `wiremock` 2.7.0), then what WireMock 3.x adds
    /// (`CommandLineOptions`), each with a value as WireMock's documentation gives one.
    static let options: [(arguments: String, outcome: Outcome)] = [
        ("--admin-api-basic-auth user:secret", .serves()),
        ("--admin-api-require-https", .refuses("needs https (--https-port)")),
        ("--allow-proxy-targets 127.0.0.1", .serves()),
        ("--async-response-enabled true", .serves(note: "--async-response-enabled has no effect here")),
        ("--async-response-threads 10", .serves(note: "--async-response-threads has no effect here")),
        ("--bind-address 127.0.0.1", .serves()),
        ("--ca-keystore ca.jks", .refuses("need --enable-browser-proxying")),
        ("--ca-keystore-password password", .refuses("describe --ca-keystore")),
        ("--ca-keystore-type jks", .refuses("describe --ca-keystore")),
        ("--container-threads 20", .serves(note: "--container-threads has no effect here")),
        ("--deny-proxy-targets 10.0.0.0-10.255.255.255", .serves()),
        ("--deny-proxy-targets 10.0.0.300", .refuses("10.0.0.300 is not an IPv4 address")),
        ("--disable-banner", .serves()),
        ("--disable-gzip", .serves()),
        ("--disable-http", .refuses("--disable-http needs --https-port")),
        (
            "--disable-optimize-xml-factories-loading",
            .serves(note: "--disable-optimize-xml-factories-loading has no effect here")
        ),
        ("--disable-request-logging", .serves()),
        ("--disable-strict-http-headers", .serves(note: "--disable-strict-http-headers has no effect here")),
        ("--enable-browser-proxying", .serves()),
        ("--enable-browser-proxying --trust-all-proxy-targets", .serves()),
        ("--enable-browser-proxying --trust-proxy-target example.com", .serves()),
        ("--enable-stub-cors", .serves()),
        ("--extensions com.example.Transformer", .serves(note: "--extensions: Java extensions cannot load")),
        ("--global-response-templating", .serves()),
        ("--help", .prints("--root-dir")),
        ("--https-keystore keystore.jks", .serves(note: "--https-keystore has no effect without --https-port")),
        ("--https-port 0", .serves()),
        (
            "--https-require-client-cert",
            .serves(note: "--https-require-client-cert has no effect without --https-port")
        ),
        (
            "--https-truststore truststore.jks",
            .serves(note: "--https-truststore has no effect without --https-require")
        ),
        ("--jetty-accept-queue-size 100", .serves(note: "--jetty-accept-queue-size has no effect here")),
        ("--jetty-acceptor-threads 4", .serves(note: "--jetty-acceptor-threads has no effect here")),
        ("--jetty-header-buffer-size 16384", .serves()),
        ("--jetty-header-request-size 16384", .serves()),
        ("--jetty-header-response-size 16384", .serves(note: "--jetty-header-response-size has no effect here")),
        ("--jetty-idle-timeout 30000", .serves()),
        ("--jetty-stop-timeout 1000", .serves()),
        ("--key-manager-password password", .serves(note: "have no effect without --https-keystore")),
        ("--keystore-password password", .refuses("give the keystore too")),
        ("--keystore-type PKCS12", .serves(note: "have no effect without --https-keystore")),
        ("--load-resources-from-classpath stubs", .refuses("there is no Java class path here")),
        ("--local-response-templating", .serves()),
        ("--logged-response-body-size-limit 1000", .serves(note: "--logged-response-body-size-limit has no effect")),
        (
            "--match-headers Accept,Content-Type",
            .serves(note: "--match-headers has no effect without --record-mappings")
        ),
        ("--max-request-journal-entries 100", .serves()),
        ("--max-template-cache-entries 100", .serves(note: "--max-template-cache-entries has no effect here")),
        ("--max-template-cache-entries", .serves(note: "--max-template-cache-entries has no effect here")),
        ("--no-request-journal", .serves()),
        ("--permitted-system-keys wiremock.*,APP_.*", .serves()),
        ("--permitted-system-keys", .serves()),
        ("--port 0", .serves()),
        ("--preserve-host-header", .serves()),
        ("--print-all-network-traffic", .serves()),
        ("--proxy-all http://127.0.0.1:9", .serves()),
        ("--proxy-via 127.0.0.1:3128", .serves()),
        ("--record-mappings", .serves()),
        ("--root-dir ROOT", .serves()),
        ("--timeout 5000", .serves(note: "--timeout has no effect here")),
        ("--trust-all-proxy-targets", .refuses("need --enable-browser-proxying")),
        ("--trust-proxy-target example.com", .refuses("need --enable-browser-proxying")),
        ("--truststore-password password", .refuses("give the trust store too")),
        ("--truststore-type JKS", .serves(note: "--truststore-type has no effect without --https-truststore")),
        ("--use-chunked-encoding never", .serves(note: "--use-chunked-encoding has no effect here")),
        ("--verbose", .serves()),
        ("--version", .prints("stuntdouble ")),
        // WireMock 3.x.
        ("--disable-connection-reuse true", .serves(note: "--disable-connection-reuse has no effect here")),
        ("--disable-extensions-scanning", .serves(note: "--disable-extensions-scanning has no effect here")),
        ("--disable-http2-plain", .serves()),
        ("--disable-http2-tls", .serves()),
        ("--disable-response-templating", .serves()),
        ("--filename-template {{{method}}}-{{{url}}}.json", .serves(note: "--filename-template has no effect here")),
        ("--max-http-client-connections 100", .serves(note: "--max-http-client-connections has no effect here")),
        ("--preserve-user-agent-proxy-header", .serves()),
        ("--proxy-pass-through false", .serves(note: "--proxy-pass-through has no effect without")),
        ("--enable-browser-proxying --proxy-pass-through false", .serves()),
        ("--proxy-timeout 5000", .serves()),
        ("--supported-proxy-encodings gzip,deflate", .serves()),
        ("--webhook-threadpool-size 4", .serves(note: "--webhook-threadpool-size has no effect here")),
        ("--websocket-idle-timeout 1000", .serves()),
        ("--websocket-max-binary-message-size 1000", .serves()),
        ("--websocket-max-text-message-size 1000", .serves()),
    ]

    @Test(arguments: options.map(\.arguments))
    func eachWireMockOptionStartsTheServerOrSaysWhyNot(arguments: String) async throws {
        let outcome = try #require(Self.options.first { $0.arguments == arguments }).outcome
        let root = try AdminAPITests.root([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let given = arguments.split(separator: " ").map { $0 == "ROOT" ? root.path : String($0) }
        // WireMock's command line names no command; the port and the root come first so that the option's own
        // value, when it sets them, is the one read.
        let commandLine = ["--port", "0", "--root-dir", root.path] + given
        switch outcome {
        case .prints(let text):
            let result = try await CommandProcess.run(commandLine)
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.contains(text), "\(result.output)")
        case .refuses(let reason):
            let result = try await CommandProcess.run(commandLine)
            // ArgumentParser's status for a command line it refuses (EX_USAGE).
            #expect(result.status == 64, "\(result.output)")
            #expect(result.error.contains(reason), "\(result.error)")
        case .serves(let note):
            let serve = try CommandProcess(commandLine)
            #expect(
                try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") },
                "\(serve.standardOutput)\(serve.standardError)")
            let baseURL = String(try #require(serve.standardOutput.firstMatch(of: /http:\/\/127\.0\.0\.1:\d+/)).0)
            var health = HTTPClientRequest(url: baseURL + "/__admin/health")
            // Ignored unless the option asks for credentials.
            health.headers.add(name: "Authorization", value: "Basic " + Data("user:secret".utf8).base64EncodedString())
            let response = try await HTTPClient.shared.execute(health, timeout: .seconds(120))
            #expect(response.status == .ok)
            if let note {
                #expect(
                    serve.standardError.split(separator: "\n").contains { $0.hasPrefix("note: ") && $0.contains(note) },
                    "\(serve.standardError)")
            } else {
                #expect(!serve.standardError.contains("note: "), "\(serve.standardError)")
            }
            serve.signal(SIGTERM)
            #expect(try await serve.waitForExit() == 0)
        }
    }

    /// WireMock's parser (jopt-simple) takes one dash, abbreviations, `=` and flags with values; so does this.
    @Test func theCommandLineIsReadAsWireMockReadsIt() async throws {
        let root = try AdminAPITests.root([
            "mappings/hello.json": #"{"request": {"url": "/hello"}, "response": {"body": "hi {{request.path}}"}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let serve = try CommandProcess([
            "-port", "0", "--root-dir=\(root.path)", "--global-response-templ", "--disable-gzip=true",
            "--no-request-journal=false", "-container-threads", "20", "--verb",
        ])
        #expect(
            try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") },
            "\(serve.standardOutput)\(serve.standardError)")
        let baseURL = String(try #require(serve.standardOutput.firstMatch(of: /http:\/\/127\.0\.0\.1:\d+/)).0)
        let hello = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: baseURL + "/hello"), timeout: .seconds(120))
        // --global-response-templ is --global-response-templating.
        #expect(String(buffer: try await hello.body.collect(upTo: 1 << 20)) == "hi /hello")
        // --no-request-journal=false is on, as in WireMock: the journal keeps nothing.
        let count = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: baseURL + "/__admin/requests/count"), timeout: .seconds(120))
        #expect(count.status != .ok)
        #expect(try await serve.waitForError { $0.contains("note: --container-threads has no effect here") })
        serve.signal(SIGTERM)
        #expect(try await serve.waitForExit() == 0)
    }

    /// An abbreviation that fits more than one option, and an option nobody has, are errors naming them.
    @Test(arguments: ["--jetty", "--proxy-t", "--no-such-option"])
    func anAmbiguousOrUnknownOptionIsRefused(option: String) async throws {
        let result = try await CommandProcess.run(["--port", "0", option, "x"])
        #expect(result.status != 0)
        #expect(result.error.contains(option == "--proxy-t" ? "--proxy-timeout" : option), "\(result.error)")
    }
}
