import Foundation
import StuntDouble
import TestSupport
import Testing

@Suite struct LiveStubTests {
    let url = "https://api.example.com/profile"

    @Test func changesAfterAddingTakeEffect() throws {
        let stubber = HTTPStubber()
        let stub = HTTPStubRequest().match(URL: url)
        stubber.add(stub: stub)
        #expect(stubber.plan("GET", url) == nil, "no response yet")

        stub.stub(for: .get, body: "v1")
        #expect(stubber.bodyText("GET", url) == "v1")

        stub.match(header: "X-Version", value: "2")
        #expect(stubber.plan("GET", url) == nil, "the new matcher applies")
        #expect(stubber.bodyText("GET", url, headers: ["x-version": "2"]) == "v1")

        stub.removeResponse(for: .get)
        #expect(stubber.plan("GET", url, headers: ["x-version": "2"]) == nil)
    }

    @Test func changingTheKeyMatcherReindexesTheStub() {
        let stubber = HTTPStubber()
        let stub = HTTPStubRequest().match(URI: "/v1/{thing}").stub(for: .get, body: "found")
        stubber.add(stub: stub)
        #expect(stubber.bodyText("GET", "https://a.test/v1/x") == "found")
        stub.match(URL: "https://a.test/v1/x")  // more selective: the stub moves to the exact-URL index
        #expect(stubber.bodyText("GET", "https://a.test/v1/x") == "found")
        #expect(stubber.plan("GET", "https://a.test/v1/y") == nil)
    }

    @Test func changingPriorityReordersStubs() {
        let stubber = HTTPStubber()
        let older = HTTPStubRequest(name: "older").match(URL: url).stub(for: .get, body: "older")
        stubber.add(stub: older)
        stubber.add(stub: HTTPStubRequest(name: "newer").match(URL: url).stub(for: .get, body: "newer"))
        #expect(stubber.bodyText("GET", url) == "newer")
        older.priority = 5
        #expect(stubber.bodyText("GET", url) == "older")
        older.priority(-1)
        #expect(stubber.bodyText("GET", url) == "newer")
    }

    @Test func responsesAreReadWhenARequestArrives() {
        let stubber = HTTPStubber()
        let response = HTTPStubResponse(statusCode: .ok, body: Data("first".utf8))
        stubber.add(stub: HTTPStubRequest().match(URL: url).stub(for: .get, response: response))
        #expect(stubber.bodyText("GET", url) == "first")
        response.body = Data("second".utf8)
        response.statusCode = .accepted
        #expect(stubber.bodyText("GET", url) == "second")
        #expect(stubber.plan("GET", url)?.response?.statusCode == .accepted)
    }

    @Test func stubbersSharingAStubStayIndependent() {
        let first = HTTPStubber()
        let second = HTTPStubber()
        let stub = HTTPStubRequest().match(URL: url).stub(for: .get, body: "shared")
        first.add(stub: stub)
        second.add(stub: stub)
        first.remove(stub: stub)
        #expect(first.plan("GET", url) == nil)
        #expect(second.bodyText("GET", url) == "shared")
        stub.stub(for: .get, body: "changed")
        #expect(second.bodyText("GET", url) == "changed")
        #expect(first.plan("GET", url) == nil, "a removed stub's changes do not bring it back")
    }

    @Test func twoStubbersNeverSeeEachOthersStubs() {
        let first = HTTPStubber()
        let second = HTTPStubber()
        first.add(stub: HTTPStubRequest().match(URL: url).stub(for: .get, body: "first"))
        #expect(first.bodyText("GET", url) == "first")
        #expect(second.plan("GET", url) == nil)
        second.add(stub: HTTPStubRequest().match(URL: url).stub(for: .get, body: "second"))
        #expect(first.bodyText("GET", url) == "first")
        #expect(second.bodyText("GET", url) == "second")
        first.removeAllStubs()
        #expect(second.bodyText("GET", url) == "second")
    }
}
