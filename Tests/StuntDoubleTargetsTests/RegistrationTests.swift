import Foundation
import TestSupport
import Testing

/// A process that links StuntDoubleTargets alone (as an app ships it) carries nothing of StuntDouble it did not
/// ask for: no URLProtocol class registered, so URLSession.shared is Foundation's own. Run in a fresh process
/// (`TargetsOnlyProbe`): this test process links StuntDoubleTesting, which registers StuntDouble's class on
/// purpose.
@Suite struct RegistrationTests {
    @Test func aProcessLinkingOnlyTheTargetsLayerRegistersNoProtocolClass() async throws {
        let directory = try #require(BuiltProducts.directory)
        let probe = directory.appendingPathComponent("TargetsOnlyProbe")
        try #require(
            FileManager.default.isExecutableFile(atPath: probe.path),
            "the probe was not built at \(probe.path); build the tests with `swift build --build-tests`")
        let result = try await ChildProcess.run(probe.path, [])
        #expect(result.status == 0, "\(result)")
        let lines = result.output.split(separator: "\n").map(String.init)
        // The provider worked (StuntDouble's engine ran in the process), and the process ran to its end.
        #expect(lines.contains("stubbed: Practicality beats purity."), "\(result)")
        #expect(lines.last == "done", "\(result)")
        // URLSession.shared went to the network (a refused connection), not to a stub.
        #expect(lines.contains { $0.hasPrefix("shared: ") && $0 != "shared: answered" }, "\(result)")
        // And its list of protocol classes (FoundationNetworking's own, or none when nothing was registered) names
        // nothing of StuntDouble's.
        let classes = lines.filter { $0.hasPrefix("protocol class: ") }
        #expect(!classes.contains { $0.contains("StuntDouble") }, "\(classes)")
    }
}
