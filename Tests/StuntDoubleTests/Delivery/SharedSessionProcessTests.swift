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

    func runProbe(_ mode: String) async throws -> Output {
        let directory = try #require(BuiltProducts.directory)
        let probe = directory.appendingPathComponent("SharedSessionProbe")
        guard FileManager.default.isExecutableFile(atPath: probe.path) else {
            Issue.record("the probe was not built at \(probe.path); build the tests with `swift build --build-tests`")
            return Output(standardOutput: "", standardError: "")
        }
        // ChildProcess, not Foundation's Process, whose run() can crash in a process with many open files.
        let result = try await ChildProcess.run(probe.path, [mode])
        return Output(standardOutput: result.output, standardError: result.error)
    }

    @Test func enablingBeforeAnySessionReachesTheSharedSession() async throws {
        let output = try await runProbe("early")
        #expect(output.standardOutput.contains("intercepts shared session: true"), "\(output)")
        #expect(output.standardOutput.contains("response: stubbed via URLSession.shared"), "\(output)")
        #expect(output.standardError.isEmpty, "\(output)")
    }

    @Test func enablingAfterSessionsExistSaysToLinkTheTestingLibrary() async throws {
        // What a test target that links StuntDouble alone sees when another suite made its own URLSession (or used
        // URLSession.shared) before a suite's init called enable(): StuntDouble registers nothing when a process
        // loads it (an app that ships it must carry no URLProtocol), so on Linux the first enable() came too late,
        // and says what to do. (StuntDoubleTesting registers the class when a test process loads: see
        // LoadTimeRegistrationTests.)
        let output = try await runProbe("late")
        #if canImport(FoundationNetworking)
        #expect(output.standardOutput.contains("intercepts shared session: false"), "\(output)")
        #expect(output.standardError.contains("the process made a session before that"), "\(output)")
        #expect(output.standardError.contains("link StuntDoubleTesting to the test target"), "\(output)")
        #else
        #expect(output.standardOutput.contains("response: stubbed via URLSession.shared"), "\(output)")
        #expect(output.standardError.isEmpty, "\(output)")
        #endif
    }

    @Test func enableSaysAtOnceWhenTheSharedSessionCannotBeReached() async throws {
        let output = try await runProbe("unreachable")
        #if canImport(FoundationNetworking)
        #expect(output.standardOutput.contains("intercepts shared session: false"), "\(output)")
        #expect(output.standardOutput.contains("error: URLSession.shared does not reach this stubber"), "\(output)")
        let warnings = output.standardError.components(separatedBy: "warning: StuntDouble: ")
        #expect(warnings.count == 2, "one warning, though enable() ran twice: \(output)")
        // The line of the probe's first enable().
        #expect(output.standardError.hasPrefix("SharedSessionProbe/main.swift:43: warning:"), "\(output)")
        #expect(output.standardError.contains("its protocol classes do not include StuntDouble's"), "\(output)")
        #expect(output.standardError.contains("stubber.session()"), "\(output)")
        #else
        #expect(output.standardOutput.contains("response: stubbed via URLSession.shared"), "\(output)")
        #endif
    }
}
