import ArgumentParser
import Dispatch
import Foundation
import Logging
import StuntDouble
import StuntDoubleOpenAPI
import StuntDoubleServer
import StuntDoubleWireMock

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `stuntdouble serve`: a stub server on loopback, until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve stub files over HTTP until interrupted (Ctrl-C).",
        discussion: """
            Without --root (and no mappings/ here), serves the bundled examples: a Moya-style GitHub target's \
            repositories, a JSON API with a URI template, and slow, dribbled, failing and flaky endpoints. Try:

              stuntdouble serve &
              curl http://127.0.0.1:8080/users/mark/repos

            Each request is logged on one line: method, path, status, the stub that answered (or \
            "unmatched") and the time taken. An unmatched request gets 404 with a report of the closest stubs.

            WireMock's standalone options are accepted with WireMock's meaning (below); Jetty's and Java's tuning \
            options (--container-threads, --jetty-acceptor-threads, --async-response-enabled, ...) are accepted \
            and each named in one line as having no effect.
            """,
        version: "stuntdouble \(HTTPStubServer.version)")

    @Option(
        name: [.customLong("root"), .customLong("root-dir")],
        help: """
            The folder holding mappings/ and __files/ (WireMock's layout; --root-dir is WireMock's name). Default: \
            the current folder when it holds mappings/ or __files/ (as WireMock), else the bundled examples, \
            unless --openapi or --proxy is given.
            """)
    var root: String?

    @OptionGroup var openAPI: OpenAPIOptions

    @Option(
        name: [.customLong("host"), .customLong("bind-address")],
        help: """
            The address to listen on (--bind-address is WireMock's name). Anything but loopback lets other \
            machines reach the stubs, and needs --admin-token, --admin-api-basic-auth, --no-admin or --open-admin.
            """)
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one.")
    var port = 8080

    @Option(help: "The largest request body accepted, in bytes; larger ones get 413.")
    var maxBodySize = 64 << 20

    @Option(help: "How many threads serve connections. Default: one per processor core.")
    var threads: Int?

    @Option(help: "Seconds a connection may stay open with no request in progress before it closes.")
    var idleTimeout = 60.0

    @Option(
        help: """
            Seconds a request's body may go without a byte arriving before the server answers 408 and closes \
            the connection (nginx's client_body_timeout: between two reads, so a slow but steady upload is never \
            cut).
            """
    )
    var bodyTimeout = 60.0

    @Option(
        help: """
            Seconds a response may go without the client taking any of it before the server closes the \
            connection (nginx's send_timeout: between two writes, so a slow reader, or one that pauses, still gets \
            all of a large body).
            """
    )
    var sendTimeout = 60.0

    @Flag(
        help: """
            Refuse to serve stub files that use a WireMock feature StuntDouble does not support yet, and --openapi \
            documents that deviate from the specification. Without it, each such stub is served and answers 500 \
            naming the feature, the rest of the root serves, and each deviation is read as it means, with a warning.
            """)
    var strict = false

    @Flag(
        help: """
            Treat every response as a template (WireMock's --global-response-templating), not only those whose \
            transformers name response-template.
            """)
    var globalResponseTemplating = false

    @Flag(
        help: """
            Template the responses whose transformers name response-template (always on, as in WireMock 3; \
            accepted for WireMock 2's command lines).
            """)
    var localResponseTemplating = false

    @Flag(
        help: """
            Escape {{values}} in templates for HTML (& as &amp;, " as &quot;), as WireMock 2 did. By default \
            they are written as they are, as WireMock 3 writes them ({{{values}}} are never escaped).
            """)
    var templateHtmlEscaping = false

    @Option(
        help: """
            Seed the templates' random helpers (randomValue, randomInt, randomDecimal, pickRandom) so that the \
            same requests get the same values on every run.
            """)
    var templateSeed: UInt64?

    @Option(
        help: """
            The time the templates' now and date helpers read, in ISO 8601 (2026-01-01T00:00:00Z), instead of \
            the clock.
            """)
    var templateTime: String?

    @Option(
        help: """
            Play server-sent event streams' delays multiplied by this: 1 as written or recorded, 0.5 twice as \
            fast, 0 as fast as the client reads.
            """)
    var eventTimeScale: Double = 1

    @Flag(help: "Log details of each request (headers, the decision) as well.")
    var verbose = false

    @Flag(
        name: [.customLong("quiet"), .customLong("disable-request-logging")],
        help: "Do not log each request (for benchmarks; --disable-request-logging is WireMock's name).")
    var quiet = false

    @OptionGroup var admin: AdminOptions

    @Option(
        name: [.customLong("proxy"), .customLong("proxy-all")],
        help: """
            Forward requests no stub answers to this server (http or https), streaming its answers back \
            (--proxy-all is WireMock's name).
            """)
    var proxy: String?

    @Flag(
        name: .customLong("proxy-admin"),
        help: "Forward /__admin/ requests to the --proxy server too (off: its admin API stays out of reach).")
    var proxyAdmin = false

    @OptionGroup var journal: JournalOptions

    @OptionGroup var https: HTTPSOptions

    @OptionGroup(title: "WireMock's options (its others are among the options below)")
    var wireMock: WireMockOptions

    @Flag(
        name: [.customLong("cors"), .customLong("enable-stub-cors")],
        help: """
            Answer browsers on other origins (CORS): preflights answered, Access-Control-Allow-Origin on every \
            answer, as WireMock's --enable-stub-cors. On by default with --openapi (as Prism), whose documents \
            answer preflights for their paths with their own methods and headers.
            """)
    var cors = false

    @Flag(name: .customLong("no-cors"), help: "Do not answer browsers on other origins, even with --openapi.")
    var noCors = false

    @Flag(
        name: .customLong("no-watch"),
        help: """
            Do not reload the --openapi documents and the --root folder's files when they change (by default a \
            change is served within a second or so; a broken edit is logged and the last good version serves on).
            """)
    var noWatch = false

    func run() async throws {
        OutputSink.ignoreBrokenPipes()
        defer { OutputSink.flushAll() }
        ServerRun.bootstrapLogging(level: verbose ? .debug : quiet ? .warning : .info)
        for notice in wireMock.notices(hasHTTPS: https.port != nil) {
            printError("note: \(notice)")
        }
        let folder: URL?
        let display: String
        let root = self.root ?? (openAPI.documents.isEmpty ? Self.wireMockRoot : nil)
        if let root {
            (folder, display) = (URL(fileURLWithPath: root), root)
        } else if !openAPI.documents.isEmpty || proxy != nil || wireMock.recordMappings {
            // Answering from documents, or forwarding (WireMock's --proxy-all): no examples in the way.
            (folder, display) = (nil, "")
        } else {
            guard let examples = Bundle.module.url(forResource: "Examples", withExtension: nil) else {
                throw ValidationError("The bundled examples are missing from this build; pass --root DIR.")
            }
            (folder, display) = (examples, "examples")
        }
        for (flag, value) in [
            ("--idle-timeout", idleTimeout), ("--body-timeout", bodyTimeout), ("--send-timeout", sendTimeout),
        ]
        where !(value > 0 && value.isFinite && value < 1e9) {
            throw ValidationError("\(flag) must be a number of seconds above 0 (it is \(value)).")
        }
        guard eventTimeScale.isFinite, eventTimeScale >= 0 else {
            throw ValidationError(
                "--event-time-scale must be 0 (as fast as possible), 1 (as written) or another number of 0 or more "
                    + "(it is \(eventTimeScale)).")
        }
        var configuration = HTTPStubServer.Configuration(
            host: host, port: port, maximumRequestBodySize: maxBodySize, idleTimeout: .seconds(idleTimeout),
            threads: threads)
        configuration.requestBodyTimeout = .seconds(bodyTimeout)
        configuration.sendTimeout = .seconds(sendTimeout)
        configuration.logger = Logger(label: "stuntdouble")
        admin.apply(to: &configuration)
        journal.apply(to: &configuration)
        configuration.proxiesAdminRequests = proxyAdmin
        configuration.unsupportedStubFeatures = strict ? .refuse : .answerWithError
        configuration.stubFileExtensions = StubFileExtension.shipped
        var now: @Sendable () -> Date = { Date() }
        if let templateTime {
            guard let fixed = ISO8601DateFormatter().date(from: templateTime) else {
                throw ValidationError(
                    "--template-time \(templateTime) is not an ISO 8601 time such as 2026-01-01T00:00:00Z.")
            }
            now = { fixed }
        }
        let environment = try wireMock.templateEnvironment(now: now, seed: templateSeed)
        configuration.responseTemplating = StubFiles.ResponseTemplating(
            isGlobal: globalResponseTemplating, environment: environment, escapesHTML: templateHtmlEscaping)
        configuration.responseTemplating.isEnabled = !wireMock.disableResponseTemplating
        if let proxy {
            guard let url = URL(string: proxy) else { throw ValidationError("--proxy \(proxy) is not a URL.") }
            configuration.upstream = url
        }
        configuration.https = try https.configuration()
        try wireMock.apply(to: &configuration, root: root)
        if cors, noCors { throw ValidationError("--cors and --no-cors ask for opposite things; give one.") }
        configuration.answersCrossOriginRequests = cors || (!openAPI.documents.isEmpty && !noCors)
        let servings = try openAPI.servings(deviations: strict ? .refuse : .tolerate, forwarding: proxy != nil)
        let stubber = HTTPStubber()
        stubber.eventTimeScale = eventTimeScale
        let loaded = servings.map { $0.load(into: stubber) }
        let server = HTTPStubServer(stubber: stubber, configuration: configuration)
        var files: StubFiles?
        do {
            // The bundled examples are read, never written (`POST /__admin/mappings/save` refuses).
            if let folder {
                files = try server.loadStubFiles(at: folder, displayPath: display, isReadOnly: root == nil)
            }
        } catch {
            for diagnostic in error.diagnostics {
                printError(diagnostic.description)
            }
            if error.diagnostics.isEmpty { printError("error: \(error.message)") }
            printError(
                "error: not serving: the stub files have errors (listed above); `stuntdouble check` lists them too.")
            throw ExitCode.failure
        }
        for diagnostic in files?.diagnostics ?? [] {
            printError(diagnostic.description)
        }
        let baseURL = try await ServerRun.start(server)
        for (serving, document) in zip(servings, loaded) {
            let contract = serving.contract
            let mode =
                if let forwarded = serving.checksForwarded {
                    "checking what is forwarded to \(proxy ?? "the upstream") and its answers"
                        + (forwarded.refusesAnswers
                            ? " (--errors: violations refused)"
                            : forwarded.refusesRequests
                                ? " (--validate-only: requests that break it refused)" : "")
                } else if serving.answersRequests {
                    "answering from examples and schemas"
                } else {
                    "checking requests only (--validate-only)"
                }
            say(
                "Serving OpenAPI \(contract.file) (\(contract.title), \(contract.operationCount) operation"
                    + "\(contract.operationCount == 1 ? "" : "s")) on \(baseURL.absoluteString): \(mode)")
            if serving.answering.isStateful {
                let collections = document.statefulCollections
                say(
                    collections.isEmpty
                        ? "  --stateful: no collections found (a path such as /pets/{petId} makes one)"
                        : "  --stateful, keeping resources of " + collections.joined(separator: "; "))
            }
            if serving.answersRequests, serving.checksForwarded == nil {
                let callbacks = contract.callbackTitles
                if !callbacks.isEmpty {
                    say(
                        "  callbacks sent after successful answers: " + callbacks.prefix(5).joined(separator: "; ")
                            + (callbacks.count > 5 ? "; and \(callbacks.count - 5) more" : ""))
                }
                if !contract.webhookNames.isEmpty, !admin.noAdmin {
                    say(
                        "  webhooks " + contract.webhookNames.joined(separator: ", ") + ": fire one with POST "
                            + "\(baseURL.absoluteString)/__admin/stuntdouble/openapi/webhooks/NAME {\"url\": \"...\"}")
                }
            }
            // A split document can have hundreds of deviations of one kind: the first ones, then where the rest are.
            for warning in contract.warnings.prefix(20) {
                printError("warning: \(warning)")
            }
            if contract.warnings.count > 20 {
                printError(
                    "warning: and \(contract.warnings.count - 20) more; stuntdouble check --openapi \(contract.file) "
                        + "lists them all")
            }
        }
        if let files {
            describe(files, root: root, baseURL: baseURL)
        }
        if let httpsBaseURL = server.httpsBaseURL {
            say("HTTPS on \(httpsBaseURL.absoluteString)")
            if let authority = server.certificateAuthorityFile {
                say("  its certificate (localhost, 127.0.0.1, ::1) is signed by \(authority.path): trust that file in")
                say("  clients (curl --cacert \(authority.path); the system's trust store for URLSession)")
            }
        }
        if let proxy {
            say("Requests no stub answers go to \(proxy)")
        }
        if !admin.noAdmin {
            say("Traffic page and WireMock's admin API: \(baseURL.absoluteString)/__admin/")
        }
        // The bundled examples never change; anything given is watched, but a root recorded to: the recording
        // would serve as it is written (WireMock's proxy keeps answering).
        let watchedRoot = wireMock.recordMappings ? nil : root.map { URL(fileURLWithPath: $0) }
        if let recording = configuration.mappingRecording {
            say("Recording proxied requests to \(recording.root.path)/mappings and __files (--record-mappings)")
        }
        var watching: Task<Void, Never>?
        if !noWatch, !servings.isEmpty || watchedRoot != nil {
            let watcher = self.watcher(
                servings: servings, loaded: loaded, stubber: stubber, server: server, root: watchedRoot,
                display: display)
            watching = Task { await watcher.run() }
            say(
                "Reloading on change: "
                    + (servings.map(\.contract.file) + [root].compactMap { $0 }).joined(separator: ", "))
        }
        say("Press Ctrl-C to stop.")
        let stoppedBySignal = await ServerRun.serveUntilStopped(server, gracePeriod: wireMock.stopGracePeriod)
        watching?.cancel()
        if !stoppedBySignal {
            say("stopped: shutdown asked for through the admin API")
        }
    }

    /// WireMock's root when none is given: the current folder, when it holds `mappings/` or `__files/`.
    static var wireMockRoot: String? {
        var isFolder: ObjCBool = false
        for name in ["mappings", "__files"]
        where FileManager.default.fileExists(atPath: name, isDirectory: &isFolder) && isFolder.boolValue {
            return "."
        }
        return nil
    }

    private func describe(_ files: StubFiles, root: String?, baseURL: URL) {
        let count = files.mappingCount
        say(
            "Serving \(count) stub\(count == 1 ? "" : "s") from \(root ?? "the bundled examples") on \(baseURL.absoluteString)"
        )
        let summaries = files.specs.map { "\($0.method?.rawValue ?? "ANY") \($0.urlSummary)" }
        let width = summaries.map(\.count).max() ?? 0
        for (spec, summary) in zip(files.specs, summaries) {
            let padded = summary.padding(toLength: width, withPad: " ", startingAt: 0)
            let note = spec.unsupported.isEmpty ? "" : "  answers 500: uses what StuntDouble does not support yet"
            say("  \(padded)  \(spec.name.map { "\"\($0)\" " } ?? "")(\(spec.file):\(spec.line))\(note)")
        }
        if !files.messageSpecs.isEmpty {
            let count = files.messageSpecs.count
            say("and \(count) WebSocket message stub\(count == 1 ? "" : "s") (ws:// and wss:// on any path):")
            for spec in files.messageSpecs {
                say("  \(spec.summary)  \(spec.name.map { "\"\($0)\" " } ?? "")(\(spec.file):\(spec.line))")
            }
        }
        let unsupported = files.specs.count { !$0.unsupported.isEmpty }
        if unsupported > 0 {
            say(
                "\(unsupported) stub\(unsupported == 1 ? " uses" : "s use") WireMock features StuntDouble does not "
                    + "support yet (warnings above): \(unsupported == 1 ? "it answers" : "they answer") 500 saying "
                    + "so. --strict refuses such files.")
        }
        if !files.warnings.isEmpty {
            let warnings = files.warnings.count
            say("\(warnings) warning\(warnings == 1 ? "" : "s") (above): the files serve, but probably not as meant.")
        }
    }
}

/// Writes a line to standard output, in order with the request log, without ever waiting for a reader (see
/// ``OutputSink``).
func say(_ line: String) {
    OutputSink.standardOutput.write(line)
}

/// Writes a line to standard error, without ever waiting for a reader.
func printError(_ line: String) {
    OutputSink.standardError.write(line)
}
