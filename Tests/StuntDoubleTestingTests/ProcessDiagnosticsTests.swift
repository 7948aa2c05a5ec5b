import Foundation
import StuntDouble
import StuntDoubleTesting
import Testing

/// Problems that StuntDouble finds outside any request (a late `HTTPStubber.enable()`, which imports no test
/// library) fail the running test, because StuntDoubleTesting installs a reporter when the process loads it.
/// The whole path, from `enable()` to the warning, runs in `SharedSessionProcessTests`.
@Suite struct ProcessDiagnosticsTests {
    @Test func aProblemFailsTheRunningTestAtTheCallersLine() {
        let line = #line
        let location = ProcessDiagnostics.SourceLocation(
            fileID: #fileID, filePath: #filePath, line: line, column: 9)
        withKnownIssue {
            #expect(
                ProcessDiagnostics.recordInRunningTest("URLSession.shared does not reach this stubber", at: location),
                "StuntDoubleTesting installed its reporter when the process loaded it")
        } matching: { issue in
            issue.sourceLocation?.fileID == #fileID && issue.sourceLocation?.line == line
                && issue.sourceLocation?.column == 9
                && issue.comments.contains { $0.rawValue == "URLSession.shared does not reach this stubber" }
        }
    }
}
