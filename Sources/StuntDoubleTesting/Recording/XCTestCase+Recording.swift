import Foundation
import StuntDouble
import StuntDoubleWireMock
import XCTest

extension XCTestCase {
    /// A stubber for this test with a recording attached: the first run records the test's real exchanges as
    /// stub files next to the test file, later runs replay them. The recording is saved when the test ends (a
    /// failure to save fails the test), and requests that nothing answered fail it.
    ///
    /// ```swift
    /// func testListsRepositories() async throws {
    ///     let stubber = try makeRecordingStubber()
    ///     let client = GitHubClient(session: stubber.session())
    ///     XCTAssertFalse(try await client.repositories(of: "mark").isEmpty)
    /// }
    /// ```
    /// The files go to `__Recordings__/<class>/<test>/` beside the test file, unless a folder is given.
    /// - Parameters:
    ///   - mode: The mode, unless `STUNTDOUBLE_RECORD_MODE` says otherwise.
    ///   - options: Redaction and replay matching.
    ///   - directory: The folder for recordings, or `nil` for `__Recordings__` beside the test file.
    ///   - file: The test file, and where failures are reported; leave the default.
    ///   - line: Where failures are reported; leave the default.
    /// - Returns: The stubber.
    /// - Throws: The recording's error when it cannot be attached (a bad `STUNTDOUBLE_RECORD_MODE`, stub files
    ///   with errors, replaying a recording that does not exist).
    public func makeRecordingStubber(
        mode: HTTPRecording.Mode = .once, options: HTTPRecording.Options = HTTPRecording.Options(),
        directory: URL? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws -> HTTPStubber {
        let stubber = HTTPStubber()
        // "-[GitHubTests testListsRepositories]" on Apple platforms, "GitHubTests.testListsRepositories" on Linux.
        let parts = name.trimmingCharacters(in: CharacterSet(charactersIn: "-[]")).split(whereSeparator: {
            $0 == " " || $0 == "."
        })
        let className = parts.count > 1 ? String(parts[parts.count - 2]) : String(describing: type(of: self))
        let testName = parts.last.map(String.init) ?? name
        let base =
            directory
            ?? URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("__Recordings__")
        let folder = base.appendingPathComponent(RecordingTrait.folderName(className))
            .appendingPathComponent(RecordingTrait.folderName(testName))
        let recording = try stubber.record(to: folder, mode: mode, options: options)
        let name = self.name
        addTeardownBlock {
            do {
                try recording.save()
            } catch {
                XCTFail("\(error)", file: file, line: line)
            }
            for message in UnmatchedRequests.messages(of: stubber, scope: "test \(name)", excluding: nil) {
                XCTFail(message, file: file, line: line)
            }
        }
        return stubber
    }
}
