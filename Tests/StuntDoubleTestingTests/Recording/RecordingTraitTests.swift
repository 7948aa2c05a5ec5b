import Foundation
import StuntDouble
import StuntDoubleTesting
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `.recorded` trait, run the way Swift Testing runs it (its `provideScope`) inside a test, twice: the
/// first run records from a real upstream, the second replays with the upstream gone.
@Suite struct RecordingTraitTests {
    @Test(arguments: ["mark", "anna"])
    func theFirstRunRecordsAndTheSecondReplays(user: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trait-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try TestHTTPServer { request in
            .init(headers: ["Content-Type": "application/json"], body: Data(#"{"path":"\#(request.target)"}"#.utf8))
        }
        let url = URL(string: "\(upstream.baseURL)/users/\(user)")!
        let trait = RecordingTrait.recorded(.once, directory: directory)
        let test = try #require(Test.current)

        let recorded = SharedValue(Data())
        try await trait.provideScope(for: test, testCase: Test.Case.current) {
            let (data, _) = try await HTTPStubber.current.stubSession().data(from: url)
            recorded.update { $0 = data }
        }
        upstream.stop()
        #expect(String(decoding: recorded.value, as: UTF8.self) == #"{"path":"/users/\#(user)"}"#)

        // A folder per suite, one per test (and per case of a parameterized test).
        let folder = directory.appendingPathComponent("RecordingTraitTests")
            .appendingPathComponent("theFirstRunRecordsAndTheSecondReplays-\(user)")
        let mappings = try FileManager.default.contentsOfDirectory(
            atPath: folder.appendingPathComponent("mappings").path)
        #expect(mappings == ["get-users-\(user).json"], "\(folder.path)")

        let replayed = SharedValue(Data())
        try await trait.provideScope(for: test, testCase: Test.Case.current) {
            let (data, _) = try await HTTPStubber.current.session().data(from: url)
            replayed.update { $0 = data }
        }
        #expect(replayed.value == recorded.value)
    }

    @Test func byDefaultRecordingsGoBesideTheTestFile() async throws {
        let expected = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("__Recordings__/RecordingTraitTests/byDefaultRecordingsGoBesideTheTestFile")
        defer {
            try? FileManager.default.removeItem(at: expected)
            let suite = expected.deletingLastPathComponent()
            if (try? FileManager.default.contentsOfDirectory(atPath: suite.path))?.isEmpty == true {
                try? FileManager.default.removeItem(at: suite)
                try? FileManager.default.removeItem(at: suite.deletingLastPathComponent())
            }
        }
        let upstream = try TestHTTPServer { _ in .init(body: Data("ok".utf8)) }
        defer { upstream.stop() }
        try await RecordingTrait.recorded(.record).provideScope(for: try #require(Test.current), testCase: nil) {
            _ = try await HTTPStubber.current.stubSession().data(from: upstream.baseURL.appendingPathComponent("ok"))
        }
        #expect(FileManager.default.fileExists(atPath: expected.appendingPathComponent("mappings/get-ok.json").path))
    }
}
