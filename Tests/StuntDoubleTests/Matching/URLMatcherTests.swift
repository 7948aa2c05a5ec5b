import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct URLMatcherTests {
    func stubber(_ url: String, _ options: HTTPStubURLMatcher.Options = []) -> HTTPStubber {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: url, options: options).stub(for: .get, body: "hit"))
        return stubber
    }

    @Test func comparesNormalizedURLs() {
        let stubber = stubber("https://api.example.com/users?id=1")
        #expect(stubber.bodyText("GET", "https://api.example.com/users?id=1") == "hit")
        #expect(stubber.bodyText("GET", "HTTPS://API.Example.COM:443/users?id=1#section") == "hit")
        #expect(stubber.plan("GET", "https://api.example.com/users?id=2") == nil)
        #expect(stubber.plan("GET", "https://api.example.com/users") == nil)
        #expect(stubber.plan("GET", "https://api.example.com/Users?id=1") == nil, "paths are case-sensitive")
        #expect(stubber.plan("GET", "http://api.example.com/users?id=1") == nil)
        #expect(stubber.plan("GET", "https://api.example.com:8443/users?id=1") == nil)
        #expect(stubber.plan("GET", "https://other.example.com/users?id=1") == nil)
        #expect(self.stubber("https://api.example.com").bodyText("GET", "https://api.example.com/") == "hit")
        #expect(self.stubber("https://x.test/caf%c3%a9").bodyText("GET", "https://x.test/caf%C3%A9") == "hit")
    }

    @Test func ignoresWhatTheOptionsSay() {
        let query = stubber("https://x.test/login", .ignoreQueryParameters)
        #expect(query.bodyText("GET", "https://x.test/login?a=1&b=2") == "hit")
        #expect(query.plan("GET", "https://x.test/logout?a=1") == nil)

        let path = stubber("https://x.test/", [.ignorePath, .ignoreQueryParameters])
        #expect(path.bodyText("GET", "https://x.test/deep/path?q=1") == "hit")
        #expect(path.plan("GET", "https://y.test/deep/path") == nil)

        let scheme = stubber("http://x.test/a", .ignoreScheme)
        #expect(scheme.bodyText("GET", "https://x.test/a") == "hit")

        let order = stubber("https://x.test/a?b=2&a=1", .ignoreQueryParameterOrder)
        #expect(order.bodyText("GET", "https://x.test/a?a=1&b=2") == "hit")
        #expect(order.plan("GET", "https://x.test/a?a=1&b=3") == nil)
        #expect(order.plan("GET", "https://x.test/a?a=1") == nil)

        let slash = stubber("https://x.test/users/", .ignoreTrailingSlash)
        #expect(slash.bodyText("GET", "https://x.test/users") == "hit")
        #expect(slash.bodyText("GET", "https://x.test/users/") == "hit")
        #expect(stubber("https://x.test/users/").plan("GET", "https://x.test/users") == nil)
    }

    @Test func matchesAPathOnAnyHost() {
        let stubber = stubber("/login?next=home")
        #expect(stubber.bodyText("GET", "https://a.test/login?next=home") == "hit")
        #expect(stubber.bodyText("GET", "http://b.test:8080/login?next=home") == "hit")
        #expect(stubber.plan("GET", "https://a.test/login") == nil)
    }

    @Test func hostsAreComparedInOneCanonicalForm() {
        #expect(stubber("http://a/b/c").plan("GET", "http://a%2Fb/c") == nil, "an encoded slash is not a path")
        #expect(stubber("http://example.com/").bodyText("GET", "HTTP://Ex%41mple.com/") == "hit")
        #expect(stubber("https://bücher.de/x").bodyText("GET", "https://xn--bcher-kva.de/x") == "hit")
    }

    @Test func reportsAnUnusableURL() throws {
        let stub = HTTPStubRequest().match(URL: "not a url").stub(for: .get, code: .ok)
        #expect(stub.problems.map(\.code) == [.invalidURL])
        #expect(stub.problems.first?.message.contains("\"not a url\"") == true)
        #expect(throws: HTTPStubberError.self) { try stub.validate() }
        #expect(HTTPStubRequest().match(URL: "https://ok.test/").problems.isEmpty)
        #expect(HTTPStubRequest().match(URL: "//api.example.com/login").problems.map(\.code) == [.invalidURL])
    }
}
