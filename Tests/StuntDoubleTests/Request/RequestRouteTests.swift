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
        "https://a.test/x//?q", "http://a.test:0/", "WSS://a.test:443/", "Ws://a.test:80/x/",
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
        // Comparing in place says what comparing the strings says.
        let pathAndQuery = parsed.query.map { parsed.path + "?" + $0 } ?? parsed.path
        for route in [plain, parsed] {
            #expect(route.pathKey == RequestRoute.trimmingTrailingSlash(parsed.path))
            #expect(route.pathIs(parsed.path, withQuery: false))
            #expect(route.pathIs(pathAndQuery, withQuery: true))
            #expect(!route.pathIs(parsed.path + "x", withQuery: false))
            #expect(!route.pathIs(String(parsed.path.dropLast()), withQuery: false))
            #expect(route.pathIs(parsed.path, withQuery: true) == (parsed.query == nil))
        }
    }

    @Test(arguments: [
        "https://user:pw@a.test/", "https://[::1]:8080/x", "https://a%41.test/", "https://bücher.test/",
        "https://a.test/a b", "mailto:x@y.test", "https://:80/", "https://a.test:99999/", "file:///tmp/x",
    ])
    func otherURLsAreLeftToFoundation(_ text: String) {
        #expect(RequestRoute(plain: text) == nil)
    }

    /// Whether every byte may stand in a URL as it is (RFC 3986), `%` only before two hex digits: the rule, written
    /// plainly, that `RequestRoute(plain:requiringNoEncoding:)` checks as it reads.
    static func needsNoEncoding(_ text: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#[]@!$&'()*+,;=".utf8)
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if allowed.contains(bytes[index]) {
                index += 1
            } else if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                bytes[index + 1...index + 2].allSatisfy({ PercentEncoding.isHex($0) })
            {
                index += 3
            } else {
                return false
            }
        }
        return true
    }

    /// Generated URLs (a seeded generator: every run checks the same 20,000), each taken with its bytes checked in
    /// the same pass exactly when the rule holds and the URL is plain.
    @Test func requiringNoEncodingIsTheRuleCheckedInTheSamePass() {
        var generator = SeededGenerator(seed: 0x5EED_0F_0A11)
        let pieces = [
            "http://", "https://", "a.test", ":8080", "/", "/items/", "?", "q=1", "&", "#", "%", "%4", "%41", "%zz",
            "%2f", " ", "|", "\"", "^", "`", "{", "}", "é", "~", "[", "]", "@", "!", "$", "'", "(", ")", "*", "+", ",",
            ";", "=", "<", ">", "\u{7F}", "x",
        ]
        for _ in 0..<20_000 {
            var text = generator.next() % 8 == 0 ? "" : "http://a.test"
            for _ in 0..<Int(generator.next() % 8) {
                text += pieces[Int(generator.next() % UInt64(pieces.count))]
            }
            let checked = RequestRoute(plain: text, requiringNoEncoding: true)
            let expected = Self.needsNoEncoding(text) ? RequestRoute(plain: text) : nil
            #expect(checked == expected, "\(text)")
        }
    }
}
