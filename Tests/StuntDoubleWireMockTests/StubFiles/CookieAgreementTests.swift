import Foundation
import StuntDouble
import StuntDoubleWireMock
import TestSupport
import Testing

/// A stub file's `cookies` matcher and a template's `request.cookies` read a `Cookie` header alike (they once had
/// readers of their own, which disagreed on empty values and on pieces with no `=`).
@Suite struct CookieAgreementTests {
    @Test(arguments: [
        ("session=abc; units=; theme = dark ", ["session": "abc", "units": "", "theme": "dark"]),
        ("flag; token=YWJj==; q=\"x y\"", ["token": "YWJj==", "q": "\"x y\""]),
        (";; a=1 ;\tb=%20", ["a": "1", "b": "%20"]),
    ])
    func matchersAndTemplatesSeeTheSameCookies(header: String, cookies: [String: String]) throws {
        var mappings: [String] = []
        for (index, name) in cookies.keys.sorted().enumerated() {
            let value = try #require(cookies[name])
            let pattern = String(decoding: try JSONEncoder().encode(["equalTo": value]), as: UTF8.self)
            mappings.append(
                #"{"request": {"urlPath": "/c\#(index)", "cookies": {"\#(name)": \#(pattern)}}, "#
                    + #""response": {"body": "[{{{request.cookies.\#(name)}}}]", "transformers": ["response-template"]}}"#
            )
        }
        let root = try StubRoot(mapping: #"{"mappings": [\#(mappings.joined(separator: ", "))]}"#)
        let stubber = try root.stubber()
        for (index, name) in cookies.keys.sorted().enumerated() {
            let body = stubber.bodyText("GET", "http://localhost/c\(index)", headers: ["Cookie": header])
            #expect(body == "[\(cookies[name] ?? "")]", "cookie \(name) of \(header)")
        }
        // A cookie the header does not send matches nothing.
        #expect(stubber.bodyText("GET", "http://localhost/c0", headers: ["Cookie": "other=1"]) == nil)
    }
}
