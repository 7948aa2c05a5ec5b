import Foundation
import TestSupport
import Testing

/// `HTTPStubber.shared.enable()` and `URLSession.shared`, in fresh processes (see `SharedSessionProbe`): what
/// happened before `enable()` in the process decided, on Linux, whether it could work.
@Suite struct SharedSessionProcessTests {
    struct Output {
        let standardOutput: String
        let standardError: String
    }

    func runProbe(_ mode: String) throws -> Output {
        let directory = try #require(Bundle.main.executableURL?.deletingLastPathComponent())
        let probe = directory.appendingPathComponent("SharedSessionProbe")
        guard FileManager.default.isExecutableFile(atPath: probe.path) else {
            Issue.record("the probe was not built at \(probe.path); build the tests with `swift build --build-tests`")
            return Output(standardOutput: "", standardError: "")
        }
        let process = Process()
        process.executableURL = probe
        process.arguments = [mode]
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Read standard error on another thread, so that neither pipe can fill up and stall the probe.
        let errorText = SharedValue(Data())
        let errorRead = DispatchSemaphore(value: 0)
        let errorHandle = error.fileHandleForReading
        DispatchQueue.global().async {
            let data = errorHandle.readDataToEndOfFile()
            errorText.update { $0 = data }
            errorRead.signal()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        errorRead.wait()
        process.waitUntilExit()
        return Output(
            standardOutput: String(decoding: data, as: UTF8.self),
            standardError: String(decoding: errorText.value, as: UTF8.self))
    }

    @Test func enablingBeforeAnySessionReachesTheSharedSession() throws {
        let output = try runProbe("early")
        #expect(output.standardOutput.contains("intercepts shared session: true"), "\(output)")
        #expect(output.standardOutput.contains("response: stubbed via URLSession.shared"), "\(output)")
        #expect(output.standardError.isEmpty, "\(output)")
    }

    @Test func enablingAfterSessionsExistReachesTheSharedSession() throws {
        // What a test target does when another suite made its own URLSession (or used URLSession.shared) before
        // a suite's init called enable(): StuntDouble registered its class when the process loaded it.
        let output = try runProbe("late")
        #expect(output.standardOutput.contains("intercepts shared session: true"), "\(output)")
        #expect(output.standardOutput.contains("response: stubbed via URLSession.shared"), "\(output)")
        #expect(output.standardError.isEmpty, "\(output)")
    }

    @Test func enableSaysAtOnceWhenTheSharedSessionCannotBeReached() throws {
        let output = try runProbe("unreachable")
        #if canImport(FoundationNetworking)
        #expect(output.standardOutput.contains("intercepts shared session: false"), "\(output)")
        #expect(output.standardOutput.contains("error: URLSession.shared does not reach this stubber"), "\(output)")
        let warnings = output.standardError.components(separatedBy: "warning: StuntDouble: ")
        #expect(warnings.count == 2, "one warning, though enable() ran twice: \(output)")
        #expect(output.standardError.hasPrefix("SharedSessionProbe/main.swift:31: warning:"), "\(output)")
        #expect(output.standardError.contains("its protocol classes do not include StuntDouble's"), "\(output)")
        #expect(output.standardError.contains("stubber.session()"), "\(output)")
        #else
        #expect(output.standardOutput.contains("response: stubbed via URLSession.shared"), "\(output)")
        #endif
    }
}
