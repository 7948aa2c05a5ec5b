import ArgumentParser
import Dispatch
import Foundation
import Logging
import StuntDoubleServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `serve` and `record` do alike to run a server: its log, starting it (a failure ends the command with what
/// was wrong), and serving until a signal or the admin API stops it.
enum ServerRun {
    /// Sends the server's log, one line a request, to standard output at `level`.
    static func bootstrapLogging(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = LineLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// Starts the server; when it cannot (a port in use, an address it may not listen on), prints why and ends
    /// the command with a failure.
    /// - Returns: Its base URL.
    static func start(_ server: HTTPStubServer) async throws -> URL {
        do {
            return try await server.start()
        } catch {
            printError("error: \(error.message)")
            throw ExitCode.failure
        }
    }

    /// Waits for whichever comes first: SIGINT or SIGTERM, which stops the server (responses in progress get
    /// up to `gracePeriod`), or a shutdown through the admin API, which stops the server itself.
    /// - Parameters:
    ///   - server: The running server.
    ///   - gracePeriod: How long responses in progress get to finish after a signal; 5 seconds by default.
    /// - Returns: Whether a signal stopped it.
    static func serveUntilStopped(_ server: HTTPStubServer, gracePeriod: Duration = .seconds(5)) async -> Bool {
        await withTaskGroup(of: String?.self) { group in
            group.addTask { await waitForTermination() }
            group.addTask {
                await server.waitUntilStopped()
                return nil
            }
            defer { group.cancelAll() }
            guard let signal = await group.next() ?? nil else { return false }
            say("\(signal): stopping (responses in progress get up to \(seconds(gracePeriod)))")
            await server.stop(gracePeriod: gracePeriod)
            return true
        }
    }

    /// "5 seconds", "1 second", or "250 ms" for a time that is not whole seconds.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        guard milliseconds % 1000 == 0 else { return "\(milliseconds) ms" }
        return milliseconds == 1000 ? "1 second" : "\(milliseconds / 1000) seconds"
    }

    /// Waits for SIGINT or SIGTERM; returns its name.
    static func waitForTermination() async -> String? {
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
        // Run by `swift package stuntdouble` (the plugin names its process): stop when it is gone, as SwiftPM
        // ends the plugin on Ctrl-C without a word to what the plugin runs.
        var watch: (any DispatchSourceTimer)?
        if let text = ProcessInfo.processInfo.environment[parentVariable], let parent = Int32(text) {
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
            timer.setEventHandler {
                if getppid() != parent { continuation.yield("swift package ended") }
            }
            timer.resume()
            watch = timer
        }
        var iterator = signals.makeAsyncIterator()
        // nil when the task is cancelled (the server stopped first).
        let name = await iterator.next()
        withExtendedLifetime(sources) {}
        watch?.cancel()
        return name
    }

    /// The environment variable by which `swift package stuntdouble` names its process, to be stopped with it.
    static let parentVariable = "STUNTDOUBLE_PARENT_PID"
}
