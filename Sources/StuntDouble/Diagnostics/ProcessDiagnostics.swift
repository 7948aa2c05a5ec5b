import Foundation

/// Problems that StuntDouble finds outside any request (a late `enable()`), told where a person looks: as a
/// failure of the running test when StuntDoubleTesting is linked (it installs a reporter when the process
/// loads it), and once per process on standard error.
package enum ProcessDiagnostics {
    /// Where a call was written.
    package struct SourceLocation: Sendable {
        package let fileID: String
        package let filePath: String
        package let line: Int
        package let column: Int

        package init(fileID: String, filePath: String, line: Int, column: Int) {
            self.fileID = fileID
            self.filePath = filePath
            self.line = line
            self.column = column
        }
    }

    /// Records a failure of the running test, if any.
    package struct Reporter: Sendable {
        package let record: @Sendable (_ message: String, _ location: SourceLocation) -> Void

        package init(record: @escaping @Sendable (_ message: String, _ location: SourceLocation) -> Void) {
            self.record = record
        }
    }

    private struct State: Sendable {
        var reporter: Reporter?
        var warned = false
    }

    private static let state = Locked(State())

    /// Installs the reporter of test failures (StuntDoubleTesting does, when the process loads it).
    package static func install(_ reporter: Reporter) {
        state.withLock { $0.reporter = reporter }
    }

    /// Reports a problem: as a failure of the running test, if any, at the caller's location; and on standard
    /// error, the first time in the process.
    package static func report(_ message: String, at location: SourceLocation) {
        recordInRunningTest(message, at: location)
        let firstWarning = state.withLock { state in
            defer { state.warned = true }
            return !state.warned
        }
        if firstWarning {
            let text = "\(location.fileID):\(location.line): warning: StuntDouble: \(message)\n"
            FileHandle.standardError.write(Data(text.utf8))
        }
    }

    /// Records a problem as a failure of the running test, if a reporter is installed.
    /// - Returns: Whether a reporter is installed.
    @discardableResult
    package static func recordInRunningTest(_ message: String, at location: SourceLocation) -> Bool {
        guard let reporter = state.withLock({ $0.reporter }) else { return false }
        reporter.record(message, location)
        return true
    }
}
