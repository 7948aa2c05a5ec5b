import Foundation
import StuntDouble
import StuntDoubleTesting
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.stubbed) struct PerTestTraitTests {
    @Test func theTestsStubberIsCurrent() async throws {
        let stubber = HTTPStubber.current
        #expect(stubber !== HTTPStubber.shared)
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/me").stub(for: .get, body: "mark"))
        #expect(try await HTTPStubSession().text(from: "https://api.test/me") == "mark")
        #expect(try await HTTPStubber.current.session().text(from: "https://api.test/me") == "mark")
    }

    @Test func childTasksShareTheTestsStubber() async throws {
        let stubber = HTTPStubber.current
        async let fromChild = HTTPStubber.current
        let fromGroup = await withTaskGroup(of: ObjectIdentifier.self) { group in
            group.addTask { ObjectIdentifier(HTTPStubber.current) }
            return await group.next()
        }
        #expect(await fromChild === stubber)
        #expect(fromGroup == ObjectIdentifier(stubber))
        let detached = await Task.detached { HTTPStubber.current }.value
        #expect(detached === HTTPStubber.shared, "detached tasks do not inherit task-local values")
    }
}
