import ArgumentParser
import Foundation
import Logging
import StuntDouble
import StuntDoubleOpenAPI
import StuntDoubleServer
import StuntDoubleWireMock

/// `stuntdouble record`: a recording proxy on loopback, until SIGINT or SIGTERM; then the exchanges are written
/// as stub files.
struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record real traffic as stub files: a proxy to an upstream, until interrupted (Ctrl-C).",
        discussion: """
            Point the client at the proxy instead of the upstream; every exchange is forwarded, answered as the \
            upstream answers, and written to --root as WireMock mappings when the proxy stops (Ctrl-C, SIGTERM, \
            or POST /__admin/shutdown). Serve the recording afterwards with `stuntdouble serve --root DIR`.

              stuntdouble record --upstream https://api.github.com --root Tests/Stubs/GitHub &
              curl http://127.0.0.1:8080/users/mark/repos
              kill %1

            Authorization, Proxy-Authorization, Cookie and Set-Cookie values are never written; name more with \
            --redact-header, --redact-query and --redact-json-field. Recording replaces the folder's files (only \
            once all are written); --new-episodes keeps them, replays what they cover and adds the rest. WireMock's \
            way works too: `stuntdouble serve --proxy-all URL --record-mappings --root-dir DIR` writes each new \
            exchange as it ends, with no redaction.
            """)

    @Option(help: "The server to record (http or https), such as https://api.example.com.")
    var upstream: String

    @Option(help: "The folder to write mappings/ and __files/ to.")
    var root: String

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one.")
    var port = 8080

    @Flag(help: "Keep the folder's recording: replay what it covers, record only the rest.")
    var newEpisodes = false

    @Flag(help: "Replayed requests must have the recorded body too.")
    var matchBody = false

    @Option(name: .customLong("match-header"), help: "A request header replayed requests must have (repeatable).")
    var matchedHeaders: [String] = []

    @OptionGroup var redaction: Redaction

    @OptionGroup var admin: AdminOptions

    @Option(
        name: .customLong("openapi"),
        help: """
            An OpenAPI document to check what is recorded against (repeatable): each exchange that breaks it is \
            marked in its mapping's metadata (stuntdouble.contractViolations), and named in the answer's \
            StuntDouble-Violations header and the log.
            """)
    var documents: [String] = []

    @Flag(help: "Do not log each request.")
    var quiet = false

    func run() async throws {
        OutputSink.ignoreBrokenPipes()
        defer { OutputSink.flushAll() }
        ServerRun.bootstrapLogging(level: quiet ? .warning : .info)
        guard let upstreamURL = URL(string: upstream) else {
            throw ValidationError("--upstream \(upstream) is not a URL.")
        }
        var options = redaction.options
        options.matchesBody = matchBody
        options.matchedHeaders = matchedHeaders
        let stubber = HTTPStubber()
        let recording: HTTPRecording
        do {
            recording = try stubber.record(
                to: URL(fileURLWithPath: root), mode: newEpisodes ? .newEpisodes : .record, options: options,
                environment: [:])
        } catch {
            for diagnostic in error.diagnostics { printError(diagnostic.description) }
            printError("error: \(error.message)")
            throw ExitCode.failure
        }
        for path in documents {
            do {
                stubber.load(
                    checkingForwardedTrafficAgainst: try OpenAPIContract(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw ValidationError("--openapi \(path): \(error)")
            }
        }
        var configuration = HTTPStubServer.Configuration(host: host, port: port)
        configuration.logger = Logger(label: "stuntdouble")
        configuration.upstream = upstreamURL
        admin.apply(to: &configuration)
        let server = HTTPStubServer(stubber: stubber, configuration: configuration)
        let baseURL = try await ServerRun.start(server)
        say("Recording \(upstream) through \(baseURL.absoluteString) to \(root)")
        say("Press Ctrl-C to stop and write the recording.")
        _ = await ServerRun.serveUntilStopped(server)
        do {
            let written = try recording.save()
            say("Wrote \(written) exchange\(written == 1 ? "" : "s") to \(root)")
        } catch {
            printError("error: \(error.message)")
            throw ExitCode.failure
        }
    }
}

/// What `record` and `import-har` never write, beyond the credential headers.
struct Redaction: ParsableArguments {
    @Option(name: .customLong("redact-header"), help: "A header whose values are never written (repeatable).")
    var headers: [String] = []

    @Option(name: .customLong("redact-query"), help: "A query parameter whose values are never written (repeatable).")
    var queryParameters: [String] = []

    @Option(name: .customLong("redact-json-field"), help: "A JSON field whose values are never written (repeatable).")
    var jsonFields: [String] = []

    /// Recording options with these redactions added to the defaults.
    var options: HTTPRecording.Options {
        var options = HTTPRecording.Options()
        options.extensions = StubFileExtension.shipped
        options.redactedHeaders.formUnion(headers)
        options.redactedQueryParameters = Set(queryParameters)
        options.redactedJSONFields = Set(jsonFields)
        return options
    }
}
