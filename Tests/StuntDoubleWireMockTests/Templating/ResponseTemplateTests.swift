import Foundation
import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Response templates alone: Handlebars' syntax and the request model, rendered as WireMock renders them.
@Suite struct ResponseTemplateTests {
    /// A request: `method url`, with headers and a body.
    func request(
        _ method: String = "GET", _ url: String = "http://localhost:8080/users/42/orders?status=open&tag=a&tag=b",
        headers: [String: String] = [:], body: String? = nil
    ) throws -> HTTPIncomingRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.map { Data($0.utf8) }
        return try HTTPIncomingRequest(request)
    }

    /// Renders with `{{value}}` escaped for HTML, as WireMock 2 does (the corpus's oracle); `plain` renders as
    /// WireMock 3 (and StuntDouble by default) do.
    func render(_ text: String, _ request: HTTPIncomingRequest? = nil) throws -> String {
        try ResponseTemplate(text, escapesHTML: true).render(for: try request ?? self.request())
    }

    func plain(_ text: String, _ request: HTTPIncomingRequest? = nil) throws -> String {
        try ResponseTemplate(text).render(for: try request ?? self.request())
    }

    @Test func theRequestModel() throws {
        let request = try request(headers: ["X-Trace": "t-1", "Cookie": "session=abc; theme=dark"])
        #expect(
            try render("{{request.url}}", request) == "/users/42/orders?status&#x3D;open&amp;tag&#x3D;a&amp;tag&#x3D;b",
            "escaped for HTML, as {{...}} is in WireMock 2")
        #expect(
            try plain("{{request.url}} {{{request.url}}}", request)
                == "/users/42/orders?status=open&tag=a&tag=b /users/42/orders?status=open&tag=a&tag=b",
            "as it is, as in WireMock 3 (the default)")
        #expect(try render("{{{request.url}}}", request) == "/users/42/orders?status=open&tag=a&tag=b")
        #expect(try render("{{request.path}}", request) == "/users/42/orders")
        #expect(try render("{{request.path.[1]}} {{request.pathSegments.[2]}}", request) == "42 orders")
        #expect(
            try render("{{request.query.status}} {{request.query.tag}} {{request.query.tag.[1]}}", request)
                == "open a b")
        #expect(try render("{{request.headers.x-trace}} {{request.headers.X-TRACE}}", request) == "t-1 t-1")
        #expect(try render("{{request.cookies.theme}}", request) == "dark")
        #expect(
            try render("{{request.method}} {{request.host}} {{request.port}} {{request.scheme}}", request)
                == "GET localhost 8080 http")
        #expect(try render("{{request.baseUrl}}", request) == "http://localhost:8080")
        #expect(
            try render("{{request.requestLine.path}} {{request.requestLine.method}}", request) == "/users/42/orders GET"
        )
        #expect(try render("[{{request.query.missing}}]", request) == "[]")
    }

    @Test func blocksAndConditions() throws {
        let request = try request()
        #expect(
            try render("{{#each request.query.tag}}{{@index}}:{{this}}{{#unless @last}},{{/unless}}{{/each}}", request)
                == "0:a,1:b")
        #expect(try render("{{#if (eq request.query.status.[0] 'open')}}yes{{else}}no{{/if}}", request) == "yes")
        #expect(
            try render("{{#if (eq request.query.status 'open')}}yes{{else}}no{{/if}}", request) == "no",
            "as in WireMock 2.35.1, a query parameter (which can repeat) equals no single value")
        #expect(try render("{{#eq request.method 'POST'}}post{{else}}other{{/eq}}", request) == "other")
        #expect(
            try render("{{#if request.query.missing}}a{{else if request.query.status}}b{{else}}c{{/if}}", request)
                == "b")
        #expect(try render("{{#with request.query}}{{status}}{{/with}}", request) == "open")
        #expect(try render("{{#each request.query.tag as |tag i|}}{{i}}{{tag}}{{/each}}", request) == "0a1b")
        #expect(try render("{{#assign 'who'}}user {{request.path.[1]}}{{/assign}}[{{who}}]", request) == "[user 42]")
        #expect(try render("{{#if (and (gt 3 2) (not false) (or false 1))}}ok{{/if}}", request) == "ok")
        // As WireMock: the text before the first `{{` is written as it is (a `~` does not strip it).
        #expect(try render("a  {{~ 'b' ~}}  c {{! a comment }}{{!-- another --}}\\{{x}}", request) == "a  bc {{x}}")
        #expect(try render("\\{{request.method}} {{request.method}}", request) == "\\GET GET")
        #expect(try render("a {{ b", request) == "a {{ b", "no }} after it: no template")
    }

    @Test func helpers() throws {
        let body = #"{"user": {"name": "Ada", "roles": ["admin", "dev"]}, "total": 3}"#
        let request = try request("POST", "http://h/x", body: body)
        #expect(try render("{{jsonPath request.body '$.user.name'}}", request) == "Ada")
        #expect(try render("{{jsonPath request.body '$.total'}}", request) == "3")
        #expect(
            try render("{{#each (jsonPath request.body '$.user.roles')}}<{{this}}>{{/each}}", request) == "<admin><dev>"
        )
        #expect(try render("{{{jsonPath request.body '$.user.roles'}}}", request) == #"["admin","dev"]"#)
        #expect(try render("{{size (jsonPath request.body '$.user.roles')}}", request) == "2")
        #expect(
            try render("{{size (parseJson '[]')}} {{size (jsonPath request.body '$.user.name')}}", request) == "0 3")
        #expect(try render("{{regexExtract 'order-123-x' '[0-9]+'}}", request) == "123")
        #expect(try render("{{regexExtract 'a1b2' '([a-z])([0-9])' 'parts'}}{{parts.0}}{{parts.1}}", request) == "a1")
        #expect(try render("{{upper 'ab'}}{{lower 'CD'}}{{capitalize 'ef gh'}}", request) == "ABcdEf Gh")
        #expect(try render("[{{trim '  x  '}}]{{#trim}}  y  {{/trim}}", request) == "[x]y")
        #expect(try render("{{substring 'abcdef' 1 3}} {{substring 'abcdef' 4}}", request) == "bc ef")
        #expect(try render("{{base64 'hello'}} {{base64 'aGVsbG8=' decode=true}}", request) == "aGVsbG8&#x3D; hello")
        #expect(
            try render("{{{urlEncode 'a b&c'}}} {{urlEncode 'a+b%26c' decode=true}}", request) == "a+b%26c a b&amp;c")
        #expect(
            try render("{{math 1 '+' 2}} {{math 7 '/' 2}} {{math 6 '*' 1.5}} {{math 7 '%' 4}}", request)
                == "3 4 9.0 3", "BigDecimal's: a quotient keeps the scale of the number divided, rounded half up")
        #expect(try render("{{math '0.1' '+' '0.2'}} {{math '7.0' '/' 2}} {{math -7 '%' 3}}", request) == "0.3 3.5 -1")
        #expect(
            try render("{{size 'four'}} {{contains 'abc' 'b'}} {{matches 'abc' '[a-c]+'}}", request) == "4 true true")
        #expect(try render("{{val request.query.nope or='fallback'}}", request) == "fallback")
        #expect(try render("{{join (array 1 2 3) '-'}}", request) == "1-2-3")
        #expect(try render("{{formData 'a=1&b=x+y' 'form' urlDecode=true}}{{form.b}}", request) == "x y")
        #expect(try render("{{{jsonMerge '{\"a\": 1}' '{\"b\": 2}'}}}", request) == #"{"a":1,"b":2}"#)
        #expect(try render("{{{jsonArrayAdd '[1]' '2'}}}", request) == "[1,2]")
        #expect(try render(#"{{#parseJson 'data'}}{"a": {"b": 2}}{{/parseJson}}{{data.a.b}}"#, request) == "2")
    }

    /// The query and headers as maps, at 20,000 names each: grouped by name in one pass, first order and spelling
    /// kept (a name looked up among those seen so far took seconds at 6,000).
    @Test func manyParametersAndHeadersGroupByName() throws {
        let count = 20_000
        let query = (0..<count).map { "p\($0)=\($0)" }.joined(separator: "&") + "&p1=again"
        // Made directly: URLRequest's setValue looks each name up among those it has.
        let headers = HTTPHeaders(
            (0..<count).map { HTTPHeaders.Element(name: .init(rawValue: "X-H\($0)"), value: "\($0)") })
        let request = try HTTPIncomingRequest(
            method: .get, url: URL(string: "http://localhost/q?" + query)!, headers: headers, body: nil)
        #expect(try plain("{{size request.query}} {{request.query.p1.[1]}}", request) == "\(count) again")
        #expect(try plain("{{request.query}}", request).hasPrefix("{p0=0, p1=1, p2=2, "))
        #expect(try plain("{{size request.headers}}", request) == "\(count)")
        #expect(try plain("{{request.headers}}", request).hasPrefix("{X-H0=0, X-H1=1, X-H10=10, "))
    }

    /// Java's DecimalFormat writes digits other than 0, `@` and `*` as text, where ICU reads rounding increments,
    /// significant digits and padding; with a rounding increment, Foundation's formatter crashed on a large number
    /// (FuzzTemplate found `55` with 3.3e70). Expected values are Java 17's `new DecimalFormat(pattern).format(n)`.
    @Test(arguments: [
        ("55", "1", "551"),
        ("55", String(repeating: "3", count: 71), "55" + "33333333333333335" + String(repeating: "0", count: 54)),
        ("#,##0.05", "1", "1.05"), ("#,##0.05", "1234.5", "1,234.55"), ("a5#", "1234.5", "a51234"),
        ("@@#", "1", "@@1"), ("*x#,##0", "1234.5", "*x1,234"), ("0.0'5'", "1", "1.05"), ("S551615", "1", "S5516151"),
    ])
    func patternDigitsAreTextAsInJava(pattern: String, number: String, expected: String) throws {
        let text = try render("{{numberFormat \(number) \"\(pattern)\" 'en_US'}}", try request())
        #expect(text == expected)
    }

    /// A locale that is no Java tag formats as `en_US_POSIX`; Foundation on Linux trapped on non-ASCII identifiers
    /// inside DateFormatter (FuzzTemplate found `dateFormat` with one; `numberFormat` refuses such a locale).
    @Test(arguments: ["\u{E9}", "\u{1F600}", "en US", "en@calendar=x", String(repeating: "a", count: 100)])
    func aLocaleThatIsNoTagFormatsAsPOSIX(locale: String) throws {
        let environment = TemplateEnvironment(now: { Date(timeIntervalSince1970: 1_767_225_600) })
        let template = try ResponseTemplate(
            "{{dateFormat (parseDate '2026-01-01T00:00:00Z') 'MMM d' '\(locale)'}}|"
                + "{{now format='MMM' locale='\(locale)'}}|"
                + "{{dateFormat (parseDate '2026-01-01T00:00:00Z') 'full' '\(locale)'}}")
        let text = template.render(for: try request(), environment: environment)
        #expect(text.hasPrefix("Jan 1|Jan|"), "\(text)")
    }

    @Test func datesAndRandomValuesAreRepeatableWithAnEnvironment() throws {
        let fixed = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
        let environment = TemplateEnvironment(now: { fixed }, seed: 7)
        let template = try ResponseTemplate(
            "{{now}} {{now offset='3 days' format='yyyy-MM-dd'}} {{now format='epoch'}} "
                + "{{date (parseDate '2026-02-03T04:05:06Z') format='HH:mm'}} {{now timezone='Asia/Tokyo' format='HH'}}"
        )
        #expect(
            template.render(for: try request(), environment: environment)
                == "2026-01-01T00:00:00Z 2026-01-04 1767225600000 04:05 09")
        // Foundation's DateFormatter traps when its parse stops inside a character of several scalars.
        let combining = try ResponseTemplate(
            "{{parseDate '2026-02-03T0\u{033D}05:06Z'}}|{{date '2026-02-03\u{1F44D}\u{1F3FD}'}}")
        #expect(
            combining.render(for: try request(), environment: environment)
                == "[ERROR: date needs a date, such as (parseDate '2026-01-01T00:00:00Z')]")
        // ICU divides by zero on a fraction of a hundred digits (FuzzTemplate): read as no date, like any text
        // that is not one, instead of a crash.
        let longFraction = try ResponseTemplate(
            "{{parseDate '2024-02-29T13:45:30.\(String(repeating: "3", count: 110))Z'}}|{{parseDate 'no date'}}")
        #expect(longFraction.render(for: try request(), environment: environment) == "|")
        let random = try ResponseTemplate(
            "{{randomValue length=8 type='ALPHANUMERIC'}} {{randomValue type='UUID'}} {{randomInt lower=1 upper=10}} "
                + "{{pickRandom 'a' 'b' 'c'}}")
        let first = random.render(for: try request(), environment: TemplateEnvironment(seed: 42))
        let second = random.render(for: try request(), environment: TemplateEnvironment(seed: 42))
        #expect(first == second, "the same seed, the same values")
        #expect(first != random.render(for: try request(), environment: TemplateEnvironment(seed: 43)))
        let parts = first.split(separator: " ")
        #expect(parts[0].count == 8 && UUID(uuidString: String(parts[1])) != nil)
        #expect((1..<10).contains(Int(parts[2]) ?? 0) && ["a", "b", "c"].contains(String(parts[3])))
    }

    @Test(arguments: [
        ("{{#if x}}never closed", "{{#if}} is never closed"),
        ("{{#if x}}{{/each}}", "{{/each}} closes {{#if}}"),
        ("{{nosuch 1}}", "there is no helper \"nosuch\""),
        ("{{#nosuch}}{{/nosuch}}", "there is no helper \"nosuch\""),
        ("{{file 'a.txt'}}", "the file helper is not supported yet"),
        ("{{#*decorator}}{{/decorator}}", "the only decorator is {{#*inline"),
        ("{{dateFormat now 'yyyy'MM'}}", "a string ends inside a value"),
        ("{{upper 'unclosed}}", "a string is never closed"),
        ("a\n  {{/if}}", "{{/if}} closes nothing"),
    ])
    func errorsNameWhatIsWrongAndWhere(template: String, expected: String) {
        #expect {
            _ = try ResponseTemplate(template)
        } throws: { error in
            guard let error = error as? ResponseTemplate.SyntaxError else { return false }
            return error.message.contains(expected) && error.line >= 1
        }
    }

    @Test func numbersOutOfRangeAreErrorsNotTraps() throws {
        let request = try request()
        #expect(try render("{{substring 'abc' 1e300}}", request).hasPrefix("[ERROR:"))
        #expect(try render("{{substring 'abc' 2 1}}", request).hasPrefix("[ERROR:"))
        #expect(
            try render("{{abbreviate 'abcdefgh' 1e300}}", request).hasPrefix("[ERROR:"),
            "not a whole number: Java's cast fails, and the response with it")
        #expect(
            try render("{{randomValue length=1e300}}", request).count == 36, "a length that fits no Int: the default")
        #expect(try render("{{randomDecimal lower=-1e999 upper=1e999}}", request).hasPrefix("[ERROR:"))
        #expect(try render("{{randomInt lower=5 upper=5}}", request).hasPrefix("[ERROR:"))
        #expect(try render("{{math 1e308 '*' 10}}", request) == "Infinity")
        #expect(try render("{{math 1 '/' 0}}", request).hasPrefix("[ERROR:"))
    }

    @Test func aSyntaxErrorKnowsItsLineAndColumn() {
        let error = #expect(throws: ResponseTemplate.SyntaxError.self) { try ResponseTemplate("ok\nok {{nosuch 1}}") }
        #expect(error?.line == 2 && error?.column == 4)
    }
}
