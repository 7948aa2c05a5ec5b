import Foundation
import StuntDouble
import StuntDoubleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The report the README shows for a request no stub matches.
@Suite struct ReadmeReportTests {
    @Test func theUnmatchedReport() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "https://api.example.com/users/{id}").stub(for: .get, json: "{}"))
        let report = try #require(
            try stubber.decision(for: URLRequest(url: URL(string: "https://api.example.com/user/42")!)).report)
        let expected = """
            No stub matched GET https://api.example.com/user/42
              body: (empty)

            Closest stubs (1 of 1):
              1. stub at StuntDoubleTestingTests/ReadmeReportTests.swift:15: 1 of 2 checks failed
                 ✓ method GET has a response
                 ✗ URL matches template https://api.example.com/users/{id}
                    expected: https://api.example.com/users/{id}
                    actual:   https://api.example.com/user/42
            """
        #expect(report.description.hasPrefix(expected), "\(report.description)")
    }
}
