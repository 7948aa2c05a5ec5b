import Foundation
import StuntDouble
import StuntDoubleTesting
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A suite whose tests get their own stubber with default stubs; one test asks for different options.
@Suite(
    .stubbed { stubber in
        stubber.add(
            stub: HTTPStubRequest(name: "default").match(URL: "https://api.test/config").stub(for: .get, json: "{}"))
    })
struct NestedTraitTests {
    @Test func theSuitesSetUpPreparesEachTest() {
        #expect(HTTPStubber.current.stubs.map(\.name) == ["default"])
        #expect(HTTPStubber.current.unhandledMode == .optout)
    }

    @Test(
        .stubbed(unhandledMode: .optin) { stubber in
            stubber.add(stub: HTTPStubRequest(name: "own").stub(for: .get, code: .ok))
        })
    func aTestsOwnTraitAddsToTheSuitesSetUp() {
        #expect(HTTPStubber.current.stubs.map(\.name) == ["own", "default"], "the suite's set-up ran first")
        #expect(HTTPStubber.current.unhandledMode == .optin, "the test's own options apply")
    }
}
