import Foundation
import Testing

@testable import StuntDouble

/// The one-pass route of plain URLs (the request path's fast way) against the route Foundation's accessors
/// give; FuzzURLMatcher checks the same property on generated URLs.
@Suite struct RequestRouteTests {
    @Test(arguments: [
        "https://api.example.com/users/42", "HTTPS://API.Example.COM:443/a%c3%a9/b?x=%2f&y#frag",
        "http://a.test:8080", "http://a.test:80/", "https://a.test?", "https://a.test/p?q?r#s?t", "https://a.test#x",
        "https://a.test:0443/x", "http://a.test/%zz%4", "ws://h.test/x", "https://a.test/x?%aa%Bb%",
        "https://a-b.c.test/path/../x;y=1", "http://a.test:8080/x?y=%2F", "http://a.test:08080/x", "https://a.test/?",
    ])
    func plainURLsParseAsFoundationParsesThem(_ text: String) throws {
        let url = try #require(URL(string: text))
        let plain = try #require(RequestRoute(plain: url.absoluteString), "a plain URL")
        let parsed = try #require(RequestRoute(foundationParsing: url))
        #expect(plain == parsed)
        #expect(plain.exactKey == parsed.exactKey)
        #expect(plain.host == parsed.host)
        #expect(plain.authority == parsed.authority)
        #expect(plain.path == parsed.path)
        #expect(plain.query == parsed.query)
    }

    @Test(arguments: [
        "https://user:pw@a.test/", "https://[::1]:8080/x", "https://a%41.test/", "https://bücher.test/",
        "https://a.test/a b", "mailto:x@y.test", "https://:80/", "https://a.test:99999/", "file:///tmp/x",
    ])
    func otherURLsAreLeftToFoundation(_ text: String) {
        #expect(RequestRoute(plain: text) == nil)
    }
}
