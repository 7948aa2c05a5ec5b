import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct RegexMatcherTests {
    @Test func searchesTheURL() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: try HTTPStubRequest().match(urlRegex: "/users/[0-9]+$").stub(for: .get, body: "user"))
        #expect(stubber.bodyText("GET", "https://a.test/v1/users/42") == "user")
        #expect(stubber.plan("GET", "https://a.test/v1/users/42/posts") == nil)
        #expect(stubber.plan("GET", "https://a.test/v1/USERS/42") == nil)
        #expect(stubber.bodyText("GET", "https://a.test/v1/users/42#top") == "user", "fragments are not searched")
    }

    @Test func takesOptions() throws {
        let stubber = HTTPStubber()
        let stub = try HTTPStubRequest().match(urlRegex: "/USERS/", options: .caseInsensitive).stub(
            for: .get, code: 204)
        stubber.add(stub: stub)
        #expect(stubber.plan("GET", "https://a.test/users/1")?.response?.statusCode == .noContent)
    }

    @Test(arguments: ["(unclosed", "[a-", "a{2,1}", "+start", "\\"])
    func throwsOnAnInvalidPattern(pattern: String) {
        #expect {
            try HTTPStubRequest().match(urlRegex: pattern)
        } throws: { error in
            let error = error as? HTTPStubberError
            return error?.code == .invalidRegularExpression && error?.message.contains("\"\(pattern)\"") == true
        }
    }

    @Test func starAloneMatchesAnyURL() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: try HTTPStubRequest().match(urlRegex: "*").stub(for: .get, code: .ok))
        #expect(stubber.plan("GET", "https://anything.test/at/all?x") != nil)
    }
}
