import Foundation
import TestSupport
import Testing

@testable import StuntDouble

/// The literal prefix that lets an anchored URL regex reject most URLs without running the expression: it
/// must never reject a URL the expression would match.
@Suite struct RegexPrefixTests {
    @Test(
        arguments: [
            (#"^https://api\.test/users/[0-9]+$"#, "https://api.test/users/"),
            (#"^https://api\.test/a?"#, "https://api.test/"),
            (#"^https://api\.test/a*b"#, "https://api.test/"),
            (#"^https://api\.test/\.+"#, "https://api.test/"),
            (#"^https://api\.test/x{2}"#, "https://api.test/"),
            (#"^https://(api|www)\.test/"#, nil),
            (#"^https://api\.test/\d+"#, "https://api.test/"),
            (#"^abc|^def"#, nil),
            (#"https://api\.test/"#, nil),
            (#"^(?i)https://"#, nil),
            (#"^.*"#, nil),
            (#"^\Qa.b\E"#, nil),
            (#"^h"#, "h"),
            (#"^h?"#, nil),
        ] as [(String, String?)])
    func literalPrefixes(_ pattern: String, _ prefix: String?) {
        #expect(HTTPStubRegExMatcher.literalPrefix(ofAnchored: pattern) == prefix)
    }

    @Test func thePrefilterAgreesWithTheExpression() throws {
        let patterns = [
            #"^https://api\.test/users/[0-9]+$"#, #"^https://api\.test/a?b"#, #"^https://api\.test/x+"#,
            #"^https://api\.test/\.well-known"#, #"^http:"#, #"^https?://"#, #"^HTTPS://"#, #"^https://api\.test/é"#,
        ]
        let urls = [
            "https://api.test/users/42", "https://api.test/b", "https://api.test/ab", "https://api.test/xxx",
            "https://api.test/.well-known/openid", "http://api.test/", "https://api.test/%C3%A9",
            "https://api.test/users/x", "https://other.test/users/1",
        ]
        for pattern in patterns {
            let matcher = try HTTPStubRegExMatcher(regex: pattern)
            let expression = try NSRegularExpression(pattern: pattern)
            for url in urls {
                let request = try HTTPIncomingRequest(url: URL(string: url)!)
                let string = request.matchableURLString
                let expected =
                    expression.firstMatch(in: string, range: NSRange(location: 0, length: string.utf16.count)) != nil
                var variables: [String: URITemplate.Value] = [:]
                let actual = matcher.evaluate(request, source: HTTPStubRequest(), variables: &variables)
                #expect(actual == expected, "\(pattern) on \(url)")
            }
        }
    }

    /// Found by FuzzRegexPrefix: a `|` followed by a combining mark is one Character, so the check for an
    /// alternation (by Character) missed it and the prefix "|\u{64F}" was read from "^|\u{64F}", which ICU
    /// reads as "nothing, or \u{64F}": the index then hid the stub from every URL.
    @Test func aCombiningMarkDoesNotHideAnAlternation() throws {
        #expect(HTTPStubRegExMatcher.literalPrefix(ofAnchored: "^|\u{64F}") == nil)
        #expect(HTTPStubRegExMatcher.literalPrefix(ofAnchored: "^ab\u{301}?") == "ab", "a quantifier takes one scalar")
        #expect(
            HTTPStubRegExMatcher.literalPrefix(ofAnchored: "^a\\\u{301}") == "a\u{301}", "an escaped mark is literal")
        let stubber = HTTPStubber()
        stubber.add(stub: try HTTPStubRequest().match(urlRegex: "^|\u{64F}").stub(for: .get, body: "any"))
        #expect(stubber.bodyText("GET", "https://a.test/") == "any")
    }
}
