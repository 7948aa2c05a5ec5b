import ArgumentParser
import Dispatch
import Foundation
import Logging
import StuntDouble
import StuntDoubleServer

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
            Without --root, serves the bundled examples: seed 000's GitHub repositories, a JSON API with a URI \
            template, and slow, dribbled, failing and flaky endpoints. Try:

              stuntdouble serve &
              curl http://127.0.0.1:8080/users/mark/repos

            Each request is logged on one line: method, path, status, the stub that answered (or \
            "unmatched") and the time taken. An unmatched request gets 404 with a report of the closest stubs.
            """)

    @Option(help: "The folder holding mappings/ and __files/ (WireMock's layout). Default: the bundled examples.")
    var root: String?

    @Option(help: "The address to listen on. Anything but loopback lets other machines reach the stubs.")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one.")
    var port = 8080

    @Option(help: "The largest request body accepted, in bytes; larger ones get 413.")
    var maxBodySize = 64 << 20

    @Option(help: "How many threads serve connections. Default: one per processor core.")
    var threads: Int?

    @Flag(help: "Log details of each request (headers, the decision) as well.")
    var verbose = false

    @Flag(help: "Do not log each request (for benchmarks).")
    var quiet = false

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = LineLogHandler(label: label)
            handler.logLevel = verbose ? .debug : quiet ? .warning : .info
            return handler
        }
        let files: StubFiles
        if let root {
            files = StubFiles(path: root)
        } else {
            guard let examples = Bundle.module.url(forResource: "Examples", withExtension: nil) else {
                throw ValidationError("The bundled examples are missing from this build; pass --root DIR.")
            }
            files = StubFiles(root: examples, displayPath: "examples")
        }
        for diagnostic in files.diagnostics {
            printError(diagnostic.description)
        }
        let stubber = HTTPStubber()
        let mappings: [StubMapping]
        do {
            mappings = try stubber.load(files)
        } catch {
            printError(
                "error: not serving: the stub files have errors (listed above); `stuntdouble check` lists them too.")
            throw ExitCode.failure
        }
        var configuration = HTTPStubServer.Configuration(
            host: host, port: port, maximumRequestBodySize: maxBodySize, threads: threads)
        configuration.logger = Logger(label: "stuntdouble")
        let server = HTTPStubServer(stubber: stubber, configuration: configuration)
        let baseURL: URL
        do {
            baseURL = try await server.start()
        } catch {
            printError("error: \(error.message)")
            throw ExitCode.failure
        }
        say(
            "Serving \(mappings.count) stub\(mappings.count == 1 ? "" : "s") from \(root ?? "the bundled examples") on \(baseURL.absoluteString)"
        )
        let width = mappings.map(\.requestSummary.count).max() ?? 0
        for mapping in mappings {
            let summary = mapping.requestSummary.padding(toLength: width, withPad: " ", startingAt: 0)
            say("  \(summary)  \(mapping.name.map { "\"\($0)\" " } ?? "")(\(mapping.file):\(mapping.line))")
        }
        if !files.warnings.isEmpty {
            say(
                "\(files.warnings.count) warning\(files.warnings.count == 1 ? "" : "s") (above): the files serve, but probably not as meant."
            )
        }
        say("Press Ctrl-C to stop.")
        let signal = await Self.waitForTermination()
        say("\(signal): stopping (responses in progress get up to 5 seconds)")
        await server.stop(gracePeriod: .seconds(5))
    }

    /// Waits for SIGINT or SIGTERM; returns its name.
    static func waitForTermination() async -> String {
        let (signals, continuation) = AsyncStream<String>.makeStream()
        let queue = DispatchQueue(label: "stuntdouble.signals")
        var sources: [any DispatchSourceSignal] = []
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(name) }
            source.resume()
            sources.append(source)
        }
        var iterator = signals.makeAsyncIterator()
        let name = await iterator.next() ?? "SIGTERM"
        withExtendedLifetime(sources) {}
        return name
    }
}

/// Writes a line to standard output at once (`print` buffers when the output is a pipe or a file, which would
/// put the listing after the request lines).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
