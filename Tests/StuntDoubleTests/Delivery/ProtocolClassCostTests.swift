import Foundation
import TestSupport
import Testing

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Found by FuzzURLMatcher, which ran out of memory after about two million stubbers: each made a URLProtocol
/// class at once, and a class stays for the life of the process (about 1 KB). Stubbers used without
/// URLSession make none.
@Suite struct ProtocolClassCostTests {
    @Test func onlyStubbersThatMakeURLSessionsMakeAProtocolClass() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: "https://a.test/").stub(for: .get, body: "x"))
        _ = try stubber.decision(for: URLRequest(url: URL(string: "https://a.test/")!))
        _ = try await stubber.stubSession().data(from: URL(string: "https://a.test/")!)
        #expect(!stubber.hasProtocolClass)
        _ = stubber.sessionConfiguration()
        #expect(stubber.hasProtocolClass)
        let (data, _) = try await stubber.session().data(from: URL(string: "https://a.test/")!)
        #expect(data == Data("x".utf8))
    }
}
