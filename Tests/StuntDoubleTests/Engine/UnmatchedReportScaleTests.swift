import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An unmatched request among thousands of stubs: its report compares a bounded number of them (the nearest by
/// the stubber's index), so that unmatched traffic costs about what matched traffic does, and still finds the
/// stub that came closest.
@Suite struct UnmatchedReportScaleTests {
    @Test func aReportAmongTenThousandStubsComparesFewAndFindsTheClosest() throws {
        let stubber = HTTPStubber()
        for index in 0..<10_000 {
            stubber.add(
                stub: HTTPStubRequest().match(URL: "https://api.test/items/\(index)").stub(for: .post, body: "x"))
        }
        stubber.add(
            stub: HTTPStubRequest(name: "the one").match(URL: "https://api.test/orders/42").match(
                header: .authorization
            )
            .stub(for: .get, body: "x"))
        for index in 0..<200 {
            stubber.add(stub: try HTTPStubRequest().match(urlRegex: "^https://other\\.test/\(index)$").stub(for: .get))
        }
        let report = try #require(
            try stubber.decision(for: URLRequest(url: URL(string: "https://api.test/orders/42")!)).report)
        #expect(report.stubCount == 10_201)
        #expect(report.comparedStubCount <= HTTPUnmatchedRequestReport.maximumComparedStubs)
        #expect(report.candidates.first?.stub.name == "the one", "same URL and method, without the header")
        #expect(report.description.contains("nearest by URL compared"))
        // A near-miss path is compared with its neighbours, not with stubs picked at random.
        let near = try #require(
            try stubber.decision(for: URLRequest(url: URL(string: "https://api.test/items/50x")!)).report)
        #expect(near.comparedStubCount <= HTTPUnmatchedRequestReport.maximumComparedStubs)
        for candidate in near.candidates {
            let expected = try #require(candidate.checks.last?.expected)
            #expect(expected.hasPrefix("https://api.test/items/5"), "\(near.description)")
        }
    }

    @Test func fewStubsAreAllCompared() throws {
        let stubber = HTTPStubber()
        for index in 0..<30 {
            stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/\(index)").stub(for: .get))
        }
        let report = try #require(try stubber.decision(for: URLRequest(url: URL(string: "https://x.test/")!)).report)
        #expect(report.comparedStubCount == 30)
        #expect(!report.description.contains("nearest by URL compared"))
    }
}
