import Foundation
import StuntDouble
import StuntDoubleTesting
import TestSupport
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The XCTest helpers are tested with XCTest, the way their users run them: Swift Testing cannot host an
// XCTestCase's lifecycle (invokeTest, teardown blocks, recorded failures).

final class StubbedTestCaseTests: StubbedTestCase {
    func testTheStubberIsNewAndCurrent() {
        XCTAssertTrue(HTTPStubber.current === stubber)
        XCTAssertFalse(stubber === HTTPStubber.shared)
        XCTAssertTrue(stubber.stubs.isEmpty)
        XCTAssertEqual(stubber.receivedCount, 0)
    }

    func testAsyncTestsAnswerFromTheirStubber() async throws {
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/me").stub(for: .get, body: "mark"))
        let text = try await HTTPStubSession().text(from: "https://api.test/me")
        XCTAssertEqual(text, "mark")
        XCTAssertTrue(stubber.expect(HTTPRequestPattern(.get), called: .once))
    }
}

/// Captures the failures a test records, so that a test can assert that a failure was recorded.
class FailureCapturingTestCase: StubbedTestCase {
    var captured: [(description: String, line: Int)] = []

    #if canImport(Darwin)
    override func record(_ issue: XCTIssue) {
        captured.append((issue.compactDescription, issue.sourceCodeContext.location?.lineNumber ?? 0))
    }
    #else
    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
    ) {
        captured.append((description, lineNumber))
    }
    #endif

    /// Fails for real (past the capture) unless `check` accepts what was captured.
    func requireCaptured(_ check: ([(description: String, line: Int)]) -> Bool, _ message: String) {
        let captured = self.captured
        self.captured = []
        guard !check(captured) else { return }
        #if canImport(Darwin)
        super.record(XCTIssue(type: .assertionFailure, compactDescription: "\(message); captured: \(captured)"))
        #else
        super.recordFailure(
            withDescription: "\(message); captured: \(captured)", inFile: #filePath, atLine: #line, expected: true)
        #endif
    }
}

final class UnmatchedRequestFailureTests: FailureCapturingTestCase {
    override func invokeTest() {
        super.invokeTest()
        requireCaptured(
            { $0.count == 1 && $0[0].description.contains("No stub matched GET https://api.test/nothing") },
            "expected the unmatched request to fail the test once, with its report")
    }

    func testASwallowedUnmatchedRequestFailsTheTest() async {
        _ = try? await stubber.stubSession().data(from: URL(string: "https://api.test/nothing")!)
    }
}

final class ExpectFailureTests: FailureCapturingTestCase {
    private var expectLine = 0

    override func invokeTest() {
        super.invokeTest()
        requireCaptured(
            { $0.count == 1 && $0[0].line == expectLine && $0[0].description.contains("answered 0 requests") },
            "expected one failure at the expect(...) line")
    }

    func testAnUnmetExpectationFailsAtTheCaller() {
        let stub = HTTPStubRequest().stub(for: .get, code: .ok)
        stubber.add(stub: stub)
        expectLine = #line + 1
        stubber.expect(stub, called: .once)
    }
}

final class MakeStubberTests: XCTestCase {
    private var captured: [(description: String, line: Int)] = []
    private var makeLine = 0

    #if canImport(Darwin)
    override func record(_ issue: XCTIssue) {
        captured.append((issue.compactDescription, issue.sourceCodeContext.location?.lineNumber ?? 0))
    }
    #else
    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
    ) {
        captured.append((description, lineNumber))
    }
    #endif

    override func invokeTest() {
        super.invokeTest()
        let ok =
            captured.count == 1 && captured[0].line == makeLine
            && captured[0].description.contains("No stub matched GET https://api.test/nothing")
        if !ok {
            #if canImport(Darwin)
            super.record(
                XCTIssue(
                    type: .assertionFailure,
                    compactDescription: "expected one failure at makeStubber(); captured: \(captured)"))
            #else
            super.recordFailure(
                withDescription: "expected one failure at makeStubber(); captured: \(captured)", inFile: #filePath,
                atLine: #line, expected: true)
            #endif
        }
    }

    func testTheTeardownReportsUnmatchedRequestsAtTheStubbersLine() async {
        makeLine = #line + 1
        let stubber = makeStubber()
        XCTAssertFalse(stubber === HTTPStubber.current, "makeStubber() does not make it current")
        _ = try? await stubber.stubSession().data(from: URL(string: "https://api.test/nothing")!)
    }
}

final class RecordingStubberTests: XCTestCase {
    func testTheFirstRunRecordsAndTheSecondReplays() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xct-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try TestHTTPServer { _ in .init(body: Data("from the upstream".utf8)) }
        let url = upstream.baseURL.appendingPathComponent("hello")
        let folder = directory.appendingPathComponent("RecordingStubberTests")
            .appendingPathComponent("testTheFirstRunRecordsAndTheSecondReplays")

        let recorder = try makeRecordingStubber(mode: .record, directory: directory)
        _ = try await recorder.stubSession().data(from: url)
        try XCTUnwrap(recorder.recording).save()
        upstream.stop()
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("mappings").path),
            ["get-hello.json"])

        let replayer = try makeRecordingStubber(mode: .replay, directory: directory)
        let (data, _) = try await replayer.stubSession().data(from: url)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "from the upstream")
    }
}
