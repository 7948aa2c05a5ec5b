import Foundation
import StuntDouble
import StuntDoubleTesting
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A suite whose tests share one stubber, prepared once. Serialized so that each test's request and its
/// count happen together; whichever test runs second sees what the first did to the shared stubber.
@Suite(
    .serialized,
    .stubbed(scope: .suite) { stubber in
        stubber.add(
            stub: HTTPStubRequest(name: "config").match(URL: "https://api.test/config").stub(for: .get, json: "{}"))
    })
struct PerSuiteTraitTests {
    /// The stubbers the suite's tests saw, kept alive so that no two can share an address.
    static let seen = SharedValue<[HTTPStubber]>([])

    func sharesTheSuitesStubber(adding name: String) async throws {
        let stubber = HTTPStubber.current
        Self.seen.update { $0.append(stubber) }
        #expect(Self.seen.value.allSatisfy { $0 === stubber }, "every test of the suite sees one stubber")
        HTTPStubber.current.add(
            stub: HTTPStubRequest(name: name).match(URL: "https://api.test/\(name)").stub(for: .get, code: .ok))
        _ = try await HTTPStubSession().data(from: URL(string: "https://api.test/config")!)
        let names = Set(stubber.stubs.compactMap(\.name))
        #expect(names.contains("config") && names.contains(name))
        #expect(names.count == Self.seen.value.count + 1, "the stubs the suite's tests added so far, and config")
        #expect(stubber.receivedCount == Self.seen.value.count)
    }

    @Test func first() async throws {
        try await sharesTheSuitesStubber(adding: "first")
    }

    @Test func second() async throws {
        try await sharesTheSuitesStubber(adding: "second")
    }
}
