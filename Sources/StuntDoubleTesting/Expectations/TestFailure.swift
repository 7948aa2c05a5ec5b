import StuntDouble
import Testing
import XCTest

/// Where an assertion was written, in both the forms Swift Testing and XCTest take.
struct CallSite: Sendable {
    let fileID: String
    let filePath: StaticString
    let line: UInt
    let column: Int

    var sourceLocation: SourceLocation {
        SourceLocation(fileID: fileID, filePath: "\(filePath)", line: Int(line), column: column)
    }
}

/// Records a failure in the running test: a Swift Testing issue when a Swift Testing test is running, an
/// XCTest failure otherwise.
enum TestFailure {
    static func record(_ message: String, at site: CallSite) {
        if Test.current != nil {
            Issue.record(Comment(rawValue: message), sourceLocation: site.sourceLocation)
        } else {
            XCTFail(message, file: site.filePath, line: site.line)
        }
    }
}

extension TestFailure {
    /// Records a failure at a location known only at run time (XCTest, which takes no such location, gets it
    /// in the message).
    static func record(_ message: String, at location: ProcessDiagnostics.SourceLocation) {
        if Test.current != nil {
            let site = SourceLocation(
                fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column)
            Issue.record(Comment(rawValue: message), sourceLocation: site)
        } else {
            XCTFail("\(location.fileID):\(location.line): \(message)")
        }
    }
}

/// Called by CStuntDoubleTesting's `load.c` when the process loads StuntDoubleTesting, before any test runs:
/// problems StuntDouble finds outside a request (a late `HTTPStubber.enable()`) then fail the running test, and
/// StuntDouble's global URLProtocol class is registered before anything can make `URLSession.shared` (on Linux,
/// where that session copies the registered classes once), so that `enable()` reaches it whenever a test calls
/// it. A test process only: StuntDouble itself runs nothing when a process loads it.
@_cdecl("stuntdouble_testing_load")
func loadStuntDoubleTesting() {
    ProcessDiagnostics.install(.init { message, location in TestFailure.record(message, at: location) })
    HTTPStubber.registerGlobalProtocolAtLoad()
}
