import ArgumentParser
import Dispatch
import StuntDoubleServer

/// `stuntdouble`: serve stubs over HTTP from WireMock-format stub files, check those files, and record them.
struct StuntDoubleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stuntdouble",
        abstract: "Serve HTTP stubs from WireMock-format stub files (mappings/ and __files/), and check those files.",
        discussion: """
            Examples:
              stuntdouble serve                       serve the bundled examples on http://127.0.0.1:8080
              stuntdouble serve --root Tests/Stubs    serve your stub files
              stuntdouble check Tests/Stubs           validate stub files without serving them
              stuntdouble record --upstream https://api.example.com --root Tests/Stubs
                                                      record real traffic as stub files, through a proxy
              stuntdouble import-har session.har --root Tests/Stubs    a HAR file's exchanges as stub files
              stuntdouble --port 8080 --root-dir stubs --verbose
                                                      WireMock's command line: serve is the default command
            """,
        version: "stuntdouble \(HTTPStubServer.version)",
        subcommands: [Serve.self, Check.self, Record.self, ImportHAR.self],
        // WireMock's command lines name no command: `stuntdouble --port 8080 --root-dir stubs` serves.
        defaultSubcommand: Serve.self)
}

/// The entry point: runs the command in a task while the main thread waits for it.
///
/// Not an `async` main: on Linux that parks the main thread in libdispatch's `dispatch_main`, which valgrind 3.19
/// cannot follow (it crashes at the first thread created afterwards), and `Benchmarks/server-instructions`
/// counts the server's instructions under valgrind. Nothing here needs the main thread or the main actor.
@main
enum Entry {
    static func main() {
        let done = DispatchSemaphore(value: 0)
        // Detached: `main` runs on the main actor, which a task started here would inherit, and wait for.
        Task.detached {
            await StuntDoubleCommand.main(WireMockCommandLine.prepare(Array(CommandLine.arguments.dropFirst())))
            done.signal()
        }
        done.wait()
    }
}
