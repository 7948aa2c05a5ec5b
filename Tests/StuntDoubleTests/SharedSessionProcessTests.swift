import Foundation
import Testing

/// `HTTPStubber.shared.enable()` and `URLSession.shared`, in fresh processes (see `SharedSessionProbe`).
@Suite struct SharedSessionProcessTests {
    func runProbe(_ mode: String) throws -> String {
        let directory = try #require(Bundle.main.executableURL?.deletingLastPathComponent())
        let probe = directory.appendingPathComponent("SharedSessionProbe")
        guard FileManager.default.isExecutableFile(atPath: probe.path) else {
            Issue.record("the probe was not built at \(probe.path); build the tests with `swift build --build-tests`")
            return ""
        }
        let process = Process()
        process.executableURL = probe
        process.arguments = [mode]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func enablingBeforeAnySessionReachesTheSharedSession() throws {
        let output = try runProbe("early")
        #expect(output.contains("intercepts shared session: true"), "\(output)")
        #expect(output.contains("response: stubbed via URLSession.shared"), "\(output)")
    }

    @Test func enablingAfterASessionExistsSaysSo() throws {
        let output = try runProbe("late")
        #if canImport(FoundationNetworking)
        #expect(output.contains("intercepts shared session: false"), "\(output)")
        #expect(output.contains("error: URLSession.shared cannot be intercepted"), "\(output)")
        #else
        #expect(output.contains("response: stubbed via URLSession.shared"), "\(output)")
        #endif
    }
}
