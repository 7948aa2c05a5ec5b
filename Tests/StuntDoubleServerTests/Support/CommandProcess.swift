import Foundation
import TestSupport
import Testing

/// The `stuntdouble` command, run as a process the way a user runs it.
final class CommandProcess: Sendable {
    private let process: ChildProcess

    /// The built command, next to the test bundle.
    static var executable: URL? {
        let url = BuiltProducts.directory?.appendingPathComponent("stuntdouble")
        return url.flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }
    }

    /// Starts `stuntdouble` with arguments.
    /// - Parameters:
    ///   - arguments: The arguments.
    ///   - standardOutput: What becomes of its standard output: collected by default.
    /// - Throws: When the command was not built, or cannot start.
    init(_ arguments: [String], standardOutput: ChildProcess.OutputReader = .collected) throws {
        guard let executable = Self.executable else {
            throw CommandMissing()
        }
        process = try ChildProcess(executable.path, arguments, standardOutput: standardOutput)
    }

    /// Runs a shell script that starts `stuntdouble` as `"$STUNTDOUBLE"` (in a folder of its own, with an
    /// environment of its own, as a container's entrypoint does); its folder is on `PATH` as well.
    /// - Parameter script: The script, for `/bin/sh -c`.
    /// - Throws: When the command was not built, or cannot start.
    init(shell script: String) throws {
        guard let executable = Self.executable else {
            throw CommandMissing()
        }
        let folder = executable.deletingLastPathComponent().path
        process = try ChildProcess(
            "/bin/sh",
            ["-c", "STUNTDOUBLE='\(executable.path)'; PATH='\(folder)':\"$PATH\"; export PATH; \(script)"])
    }

    /// Whether the command still runs.
    var isRunning: Bool { process.isRunning }
    /// The command's process id.
    var processIdentifier: pid_t { process.processIdentifier }

    struct CommandMissing: Error, CustomStringConvertible {
        var description: String { "stuntdouble was not built next to the tests; run `swift build --build-tests`" }
    }

    var standardOutput: String { process.standardOutput }
    var standardError: String { process.standardError }

    /// Waits until standard output satisfies `done`, or the timeout passes.
    @discardableResult
    func waitForOutput(timeout: Duration = .seconds(60), _ done: (String) -> Bool) async throws -> Bool {
        try await wait(for: \.standardOutput, timeout: timeout, done)
    }

    /// Waits until standard error satisfies `done`, or the timeout passes.
    ///
    /// The two streams are read apart, so a line the command wrote to standard error before a line on standard
    /// output may be read after it: a running command's standard error is waited for, never read at once.
    @discardableResult
    func waitForError(timeout: Duration = .seconds(60), _ done: (String) -> Bool) async throws -> Bool {
        try await wait(for: \.standardError, timeout: timeout, done)
    }

    private func wait(
        for stream: KeyPath<CommandProcess, String>, timeout: Duration, _ done: (String) -> Bool
    ) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if done(self[keyPath: stream]) { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return done(self[keyPath: stream])
    }

    func signal(_ number: Int32) {
        process.signal(number)
    }

    /// Waits for the process to end; returns its exit status (`nil` when it had to be killed).
    func waitForExit(timeout: Duration = .seconds(60)) async throws -> Int32? {
        try await process.waitForExit(timeout: timeout)
    }

    /// Runs `stuntdouble` to its end.
    static func run(_ arguments: [String]) async throws -> (status: Int32?, output: String, error: String) {
        let process = try CommandProcess(arguments)
        let status = try await process.waitForExit()
        return (status, process.standardOutput, process.standardError)
    }
}
