import StuntDouble
import Testing

/// `CookieHeader`, the one reader of `Cookie` fields that stub-file matchers, templates, the admin API and OpenAPI
/// cookie parameters share.
@Suite struct CookieHeaderTests {
    struct Example: Sendable, CustomTestStringConvertible {
        let fields: [String]
        let cookies: [String]
        var testDescription: String { fields.map { "Cookie: \($0)" }.joined(separator: " + ") }
    }

    /// Each example's cookies written `name=value`, in order.
    static let examples: [Example] = [
        Example(fields: ["a=1"], cookies: ["a=1"]),
        Example(fields: ["a=1; b=2"], cookies: ["a=1", "b=2"]),
        Example(fields: ["a=1;b=2"], cookies: ["a=1", "b=2"]),
        // Spaces and tabs around names and values are not theirs.
        Example(fields: ["  a = 1 ;\tb=2\t"], cookies: ["a=1", "b=2"]),
        // An empty value is a value (one reader dropped it, another kept it).
        Example(fields: ["units=; a=1"], cookies: ["units=", "a=1"]),
        // Only the first `=` separates: base64 padding stays in the value.
        Example(fields: ["token=YWJj=="], cookies: ["token=YWJj=="]),
        // Quotes are part of the value (RFC 6265 §4.1.1).
        Example(fields: [#"q="x y""#], cookies: [#"q="x y""#]),
        // No `=`, or no name: no cookie (a browser sends a nameless cookie's value alone).
        Example(fields: ["flag; a=1; =orphan"], cookies: ["a=1"]),
        Example(fields: [";;; a=1;;"], cookies: ["a=1"]),
        Example(fields: [""], cookies: []),
        // Every field counts, in order (HTTP/2 may send one a cookie), and repeated names are kept.
        Example(fields: ["a=1", "b=2; a=3"], cookies: ["a=1", "b=2", "a=3"]),
        // Values are not decoded: what was sent is what is seen.
        Example(fields: ["p=%20x+y"], cookies: ["p=%20x+y"]),
        Example(fields: ["é=ü"], cookies: ["é=ü"]),
    ]

    @Test(arguments: examples) func readsCookiesAsRFC6265Says(_ example: Example) {
        let pairs = CookieHeader.pairs(in: example.fields)
        #expect(pairs.map { "\($0.name)=\($0.value)" } == example.cookies)
    }

    @Test(arguments: examples) func headersAndValuesAgreeWithPairs(_ example: Example) {
        var headers = HTTPHeaders()
        for field in example.fields { headers.add(name: "cookie", value: field) }
        let pairs = headers.cookies
        #expect(pairs.map(\.name) == CookieHeader.pairs(in: example.fields).map(\.name))
        for name in Set(pairs.map(\.name)) {
            #expect(
                CookieHeader.values(named: name, in: example.fields) == pairs.filter { $0.name == name }.map(\.value))
        }
    }
}
