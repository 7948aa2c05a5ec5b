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
