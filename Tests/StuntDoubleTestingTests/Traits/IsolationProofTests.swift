import Foundation
import StuntDouble
import StuntDoubleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The proof of per-test isolation: 200 tests, run in parallel, each stubbing the same URL with its own body
/// and reading its own body back, through an `HTTPStubSession`, a `URLSession` and a child task. Not one
/// request may reach another test's stubber. CI runs this suite 20 times over (`--repetitions 20`).
@Suite(.stubbed) struct IsolationProofTests {
    static let url = "https://api.test/same"

    @Test(arguments: 0..<200)
    func eachTestSeesOnlyItsOwnStub(index: Int) async throws {
        let stubber = HTTPStubber.current
        #expect(stubber !== HTTPStubber.shared)
        #expect(stubber.stubs.isEmpty, "a new stubber for each test")
        stubber.add(stub: HTTPStubRequest().match(URL: Self.url).stub(for: .get, body: "test \(index)"))
        await Task.yield()  // let the other tests interleave between adding the stub and using it

        let stubSession = HTTPStubSession()
        let urlSession = HTTPStubber.current.session()
        defer { urlSession.finishTasksAndInvalidate() }
        async let fromChild = HTTPStubSession().text(from: Self.url)
        let direct = try await stubSession.text(from: Self.url)
        let throughURLSession = try await urlSession.text(from: Self.url)

        let expected = "test \(index)"
        #expect(direct == expected)
        #expect(throughURLSession == expected)
        #expect(try await fromChild == expected)
        #expect(stubber.receivedCount == 3, "only this test's requests reached its stubber")
        #expect(stubber.journal.allSatisfy { !$0.isUnmatched })
    }
}
