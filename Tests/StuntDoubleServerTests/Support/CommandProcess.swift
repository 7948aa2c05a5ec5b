import Foundation
import NIOConcurrencyHelpers
import Testing

/// The `stuntdouble` command, run as a process the way a user runs it.
final class CommandProcess: Sendable {
    private let process: Process
    private let output = NIOLockedValueBox((standardOutput: Data(), standardError: Data()))

    /// The built command, next to the test bundle.
    static var executable: URL? {
        let url = Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("stuntdouble")
        return url.flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }
    }

    /// Starts `stuntdouble` with arguments.
    init(_ arguments: [String]) throws {
        guard let executable = Self.executable else {
            throw CommandMissing()
        }
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let standardOutput = Pipe()
        let standardError = Pipe()
        process.standardOutput = standardOutput
        process.standardError = standardError
        let output = self.output
        standardOutput.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.withLockedValue { $0.standardOutput.append(data) }
        }
        standardError.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.withLockedValue { $0.standardError.append(data) }
        }
        try process.run()
    }

    struct CommandMissing: Error, CustomStringConvertible {
        var description: String { "stuntdouble was not built next to the tests; run `swift build --build-tests`" }
    }

    var standardOutput: String { output.withLockedValue { String(decoding: $0.standardOutput, as: UTF8.self) } }
    var standardError: String { output.withLockedValue { String(decoding: $0.standardError, as: UTF8.self) } }

    /// Waits until standard output satisfies `done`, or the timeout passes.
    @discardableResult
    func waitForOutput(timeout: Duration = .seconds(60), _ done: (String) -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if done(standardOutput) { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return done(standardOutput)
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the process to end; returns its exit status.
    func waitForExit(timeout: Duration = .seconds(60)) async throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning {
            process.terminate()
            return nil
        }
        // Let the last output arrive.
        try await Task.sleep(for: .milliseconds(50))
        return process.terminationStatus
    }

    /// Runs `stuntdouble` to its end.
    static func run(_ arguments: [String]) async throws -> (status: Int32?, output: String, error: String) {
        let process = try CommandProcess(arguments)
        let status = try await process.waitForExit()
        return (status, process.standardOutput, process.standardError)
    }
}
