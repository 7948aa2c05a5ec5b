import Foundation
import TestSupport
import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

/// WireMock's request matching, as measured against WireMock 2.35.1 (see `Scripts/compare-wiremock`): each
/// case is a mapping, requests it must answer, and requests it must not.
@Suite struct StubFileMatchingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let request: String
        let matches: [Probe]
        let misses: [Probe]
        var testDescription: String { name }
    }

    struct Probe: Sendable {
        var method = "GET"
        let url: String
        var headers: [String: String] = [:]
        var body: String?
    }

    static let cases: [Case] = [
        Case(
            name: "url compares path and query as sent", request: #""url": "/q?x=1&y=2""#,
            matches: [Probe(url: "/q?x=1&y=2")], misses: [Probe(url: "/q?y=2&x=1"), Probe(url: "/q")]),
        Case(
            name: "paths compare raw", request: #""urlPath": "/health""#,
            matches: [Probe(url: "/health"), Probe(url: "/health?any=thing")],
            misses: [Probe(url: "/heal%74h"), Probe(url: "/health/")]),
        Case(
            name: "urlPattern must match all of path and query", request: #""urlPattern": "/users/[0-9]+""#,
            matches: [Probe(url: "/users/42")], misses: [Probe(url: "/users/42?x=1"), Probe(url: "/v1/users/42")]),
        Case(
            name: "urlPathPattern reads the path", request: #""urlPathPattern": "/users/[0-9]+""#,
            matches: [Probe(url: "/users/42?x=1")], misses: [Probe(url: "/users/abc")]),
        Case(
            name: "urlPathTemplate with path parameters",
            request: #""urlPathTemplate": "/users/{id}/posts/{post}", "pathParameters": {"id": {"matches": "[0-9]+"}}"#,
            matches: [Probe(url: "/users/7/posts/hello")], misses: [Probe(url: "/users/x/posts/hello")]),
        Case(
            name: "no method means any method, HEAD too", request: #""url": "/any""#,
            matches: [Probe(url: "/any"), Probe(method: "DELETE", url: "/any"), Probe(method: "HEAD", url: "/any")],
            misses: []),
        Case(
            name: "a GET stub does not answer HEAD", request: #""method": "GET", "url": "/get""#,
            matches: [Probe(url: "/get")],
            misses: [Probe(method: "HEAD", url: "/get"), Probe(method: "POST", url: "/get")]
        ),
        Case(
            name: "ANY", request: #""method": "ANY", "url": "/all""#,
            matches: [Probe(method: "PATCH", url: "/all")], misses: []),
        Case(
            name: "query parameters are decoded, + is a space",
            request: #""urlPath": "/s", "queryParameters": {"q": {"equalTo": "a b"}, "gone": {"absent": true}}"#,
            matches: [Probe(url: "/s?q=a+b"), Probe(url: "/s?q=a%20b&other=1")],
            misses: [Probe(url: "/s?q=a+b&gone=1"), Probe(url: "/s?q=ab"), Probe(url: "/s")]),
        Case(
            name: "a repeated query parameter matches when any value does",
            request: #""urlPath": "/s", "queryParameters": {"tag": {"equalTo": "b"}}"#,
            matches: [Probe(url: "/s?tag=a&tag=b")], misses: [Probe(url: "/s?tag=a")]),
        Case(
            name: "header names ignore case, values do not unless caseInsensitive",
            request:
                #""url": "/h", "headers": {"x-token": {"equalTo": "Abc"}, "Accept": {"equalTo": "TEXT/PLAIN", "caseInsensitive": true}}"#,
            matches: [Probe(url: "/h", headers: ["X-Token": "Abc", "accept": "text/plain"])],
            misses: [Probe(url: "/h", headers: ["X-Token": "abc", "Accept": "text/plain"]), Probe(url: "/h")]),
        Case(
            name: "contains, matches, doesNotMatch, doesNotContain",
            request:
                #""url": "/o", "headers": {"A": {"contains": "mid"}, "B": {"matches": "v[0-9]+"}, "C": {"doesNotMatch": "x.*"}, "D": {"doesNotContain": "no"}}"#,
            matches: [Probe(url: "/o", headers: ["A": "amidst", "B": "v12", "C": "yes", "D": "fine"])],
            misses: [
                Probe(url: "/o", headers: ["A": "amidst", "B": "v12x", "C": "yes", "D": "fine"]),
                Probe(url: "/o", headers: ["A": "amidst", "B": "v12", "C": "xray", "D": "fine"]),
                Probe(url: "/o", headers: ["A": "amidst", "B": "v12", "C": "yes", "D": "nope"]),
            ]),
        Case(
            name: "absent headers; \"absent\": false still means absent",
            request: #""url": "/a", "headers": {"X": {"absent": false}}"#,
            matches: [Probe(url: "/a")], misses: [Probe(url: "/a", headers: ["X": "1"])]),
        Case(
            name: "and, or, not",
            request:
                #""url": "/l", "headers": {"X": {"and": [{"contains": "a"}, {"or": [{"equalTo": "ab"}, {"equalTo": "ac"}]}]}, "Y": {"not": {"equalTo": "bad"}}}"#,
            matches: [Probe(url: "/l", headers: ["X": "ac", "Y": "good"])],
            misses: [
                Probe(url: "/l", headers: ["X": "ad", "Y": "good"]),
                Probe(url: "/l", headers: ["X": "ab", "Y": "bad"]),
            ]
        ),
        Case(
            name: "cookies", request: #""url": "/c", "cookies": {"session": {"matches": ".*12345.*"}}"#,
            matches: [Probe(url: "/c", headers: ["Cookie": "theme=dark; session=ab12345cd"])],
            misses: [Probe(url: "/c", headers: ["Cookie": "session=nope"]), Probe(url: "/c")]),
        Case(
            name: "basic credentials",
            request: #""url": "/b", "basicAuthCredentials": {"username": "jeff", "password": "pw"}"#,
            matches: [Probe(url: "/b", headers: ["Authorization": "Basic amVmZjpwdw=="])],
            misses: [Probe(url: "/b", headers: ["Authorization": "Basic amVmZjpwWA=="]), Probe(url: "/b")]),
        Case(
            name: "body patterns all apply; regexes match newlines",
            request:
                #""url": "/p", "bodyPatterns": [{"contains": "OK"}, {"matches": ".*status.*"}, {"doesNotMatch": ".*ERROR.*"}]"#,
            matches: [Probe(method: "POST", url: "/p", body: "<status>\nOK\n</status>")],
            misses: [
                Probe(method: "POST", url: "/p", body: "<status>OK ERROR</status>"), Probe(method: "POST", url: "/p"),
            ]),
        Case(
            name: "equalToJson compares by value, 1 equals 1.0, with placeholders",
            request:
                #""url": "/j", "bodyPatterns": [{"equalToJson": {"a": 1, "id": "${json-unit.any-string}", "n": "${json-unit.any-number}", "x": "${json-unit.ignore}"}}]"#,
            matches: [Probe(method: "POST", url: "/j", body: #"{"x": [1], "n": 3, "id": "k", "a": 1.0}"#)],
            misses: [
                Probe(method: "POST", url: "/j", body: #"{"x": 1, "n": 3, "id": 3, "a": 1}"#),
                Probe(method: "POST", url: "/j", body: #"{"x": 1, "n": 3, "id": "k", "a": 1, "extra": 0}"#),
            ]),
        Case(
            name: "equalToJson as a string; extra elements and array order",
            request:
                #""url": "/j2", "bodyPatterns": [{"equalToJson": "{\"a\": [1, 2]}", "ignoreExtraElements": true}]"#,
            matches: [Probe(method: "POST", url: "/j2", body: #"{"a": [1, 2, 3], "b": 1}"#)],
            misses: [Probe(method: "POST", url: "/j2", body: #"{"a": [2, 1]}"#)]),
        Case(
            name: "ignoreArrayOrder",
            request: #""url": "/j3", "bodyPatterns": [{"equalToJson": [1, [2, 3]], "ignoreArrayOrder": true}]"#,
            matches: [Probe(method: "POST", url: "/j3", body: "[[3, 2], 1]")],
            misses: [Probe(method: "POST", url: "/j3", body: "[[3, 2], 1, 1]")]),
        Case(
            name: "matchesJsonPath: null and empty arrays are not found, 0 is",
            request: #""url": "/jp", "bodyPatterns": [{"matchesJsonPath": "$.a"}]"#,
            matches: [Probe(method: "POST", url: "/jp", body: #"{"a": 0}"#)],
            misses: [
                Probe(method: "POST", url: "/jp", body: #"{"a": null}"#),
                Probe(method: "POST", url: "/jp", body: #"{"a": []}"#),
                Probe(method: "POST", url: "/jp", body: #"{"b": 1}"#),
                Probe(method: "POST", url: "/jp", body: "not json"),
            ]),
        Case(
            name: "matchesJsonPath filters, on an object and in an array",
            request: #""url": "/jf", "bodyPatterns": [{"matchesJsonPath": "$[?(@.total > 5)]"}]"#,
            matches: [
                Probe(method: "POST", url: "/jf", body: #"{"total": 6}"#),
                Probe(method: "POST", url: "/jf", body: #"[{"total": 6}]"#),
            ],
            misses: [Probe(method: "POST", url: "/jf", body: #"{"total": 4}"#)]),
        Case(
            name: "matchesJsonPath: a bracket after a dot, and $ in a filter is the whole document",
            request: #""url": "/jroot", "bodyPatterns": [{"matchesJsonPath": "$.[?($.username == '123456')]"}]"#,
            matches: [Probe(method: "POST", url: "/jroot", body: #"{"username": "123456"}"#)],
            misses: [Probe(method: "POST", url: "/jroot", body: #"{"username": "654321"}"#)]),
        Case(
            name: "matchesJsonPath: items compared with a value elsewhere in the document",
            request:
                #""url": "/jlimit", "bodyPatterns": [{"matchesJsonPath": "$.items[?(@.price > $.limit)]"}]"#,
            matches: [
                Probe(method: "POST", url: "/jlimit", body: #"{"limit": 5, "items": [{"price": 3}, {"price": 8}]}"#)
            ],
            misses: [
                Probe(method: "POST", url: "/jlimit", body: #"{"limit": 9, "items": [{"price": 3}, {"price": 8}]}"#)
            ]
        ),
        Case(
            name: "matchesJsonPath filter with a string and a regex",
            request:
                #""url": "/jr", "bodyPatterns": [{"matchesJsonPath": "$.things[?(@.name == 'RequiredThing' && @.code =~ /ab.*/i)]"}]"#,
            matches: [
                Probe(
                    method: "POST", url: "/jr",
                    body: #"{"things": [{"name": "x"}, {"name": "RequiredThing", "code": "ABC"}]}"#)
            ],
            misses: [
                Probe(method: "POST", url: "/jr", body: #"{"things": [{"name": "RequiredThing", "code": "zab"}]}"#)
            ]),
        Case(
            name: "matchesJsonPath with a value pattern: any element of an array",
            request: #""url": "/jv", "bodyPatterns": [{"matchesJsonPath": {"expression": "$.tags", "equalTo": "b"}}]"#,
            matches: [
                Probe(method: "POST", url: "/jv", body: #"{"tags": ["a", "b"]}"#),
                Probe(method: "POST", url: "/jv", body: #"{"tags": "b"}"#),
            ],
            misses: [Probe(method: "POST", url: "/jv", body: #"{"tags": ["a"]}"#)]),
        Case(
            name: "matchesJsonPath deep scan and numbers as Java prints them",
            request:
                #""url": "/jd", "bodyPatterns": [{"matchesJsonPath": {"expression": "$..price", "equalTo": "100.0"}}]"#,
            matches: [Probe(method: "POST", url: "/jd", body: #"{"a": {"b": [{"price": 1e2}]}}"#)],
            misses: [Probe(method: "POST", url: "/jd", body: #"{"a": {"price": 100}}"#)]),
        Case(
            name: "binaryEqualTo", request: #""url": "/bin", "bodyPatterns": [{"binaryEqualTo": "AQID"}]"#,
            matches: [Probe(method: "POST", url: "/bin", body: "\u{1}\u{2}\u{3}")],
            misses: [Probe(method: "POST", url: "/bin", body: "\u{1}\u{2}")]),
    ]

    @Test(arguments: cases)
    func matchesAsWireMockDoes(_ testCase: Case) throws {
        let root = try StubRoot(mapping: #"{"request": {\#(testCase.request)}, "response": {"body": "hit"}}"#)
        #expect(root.files.errors.isEmpty, "\(root.files.diagnostics)")
        let stubber = try root.stubber()
        for probe in testCase.matches {
            #expect(answer(stubber, probe) == "hit", "\(probe)")
        }
        for probe in testCase.misses {
            #expect(answer(stubber, probe) == nil, "\(probe)")
        }
    }

    private func answer(_ stubber: HTTPStubber, _ probe: Probe) -> String? {
        stubber.bodyText(
            probe.method, "http://127.0.0.1:8080" + probe.url, headers: probe.headers,
            body: probe.body.map { Data($0.utf8) })
    }

    @Test func priorityOneIsTheHighestAndEqualPrioritiesGoToTheLastAdded() throws {
        let root = try StubRoot([
            "mappings/1.json":
                #"{"mappings": [{"request": {"urlPath": "/p"}, "response": {"body": "first"}}, {"request": {"urlPath": "/p"}, "response": {"body": "second"}}]}"#,
            "mappings/2.json":
                #"{"priority": 1, "request": {"urlPathPattern": "/p.*"}, "response": {"body": "priority 1"}}"#,
            "mappings/3.json": #"{"priority": "9", "request": {"urlPath": "/q"}, "response": {"body": "low"}}"#,
            "mappings/4.json": #"{"request": {"urlPath": "/q"}, "response": {"body": "default"}}"#,
        ])
        let stubber = try root.stubber()
        #expect(stubber.bodyText("GET", "http://h/p") == "priority 1")
        #expect(stubber.bodyText("GET", "http://h/q") == "default")
        stubber.add(stub: HTTPStubRequest().match(URL: "http://h/q").stub(for: .get, body: "from Swift"))
        #expect(
            stubber.bodyText("GET", "http://h/q") == "from Swift", "a stub added in code later wins at equal priority")
    }

    @Test func scenariosStartInStartedAndMoveAsStubsAnswer() throws {
        let root = try StubRoot(
            mapping: """
                {"mappings": [
                  {"scenarioName": "cart", "requiredScenarioState": "Started", "request": {"method": "GET", "url": "/cart"}, "response": {"body": "[]"}},
                  {"scenarioName": "cart", "requiredScenarioState": "Started", "newScenarioState": "full", "request": {"method": "POST", "url": "/cart"}, "response": {"status": 201}},
                  {"scenarioName": "cart", "requiredScenarioState": "full", "request": {"method": "GET", "url": "/cart"}, "response": {"body": "[\\"book\\"]"}}
                ]}
                """)
        let stubber = try root.stubber()
        #expect(stubber.bodyText("GET", "http://h/cart") == "[]")
        #expect(stubber.plan("POST", "http://h/cart")?.response?.statusCode == .created)
        #expect(stubber.bodyText("GET", "http://h/cart") == #"["book"]"#)
        #expect(stubber.plan("POST", "http://h/cart") == nil, "POST needs Started")
        let scenario = stubber.scenario(named: "cart")
        #expect(stubber.state(of: scenario) == "full")
    }

    @Test func unmatchedReportsExplainWireMockMatchers() throws {
        let root = try StubRoot(
            mapping:
                #"{"name": "create user", "request": {"method": "POST", "url": "/users", "headers": {"Content-Type": {"equalTo": "application/json"}}, "bodyPatterns": [{"equalToJson": {"name": "mark"}}]}, "response": {"status": 201}}"#
        )
        let stubber = try root.stubber()
        let decision = try stubber.decision(
            for: makeRequest(
                "POST", "http://h/users", headers: ["Content-Type": "text/plain"], body: Data(#"{"name": "marc"}"#.utf8)
            ))
        let report = try #require(decision.report)
        let text = report.description
        #expect(text.contains(#"stub "create user" ("#), "\(text)")
        #expect(text.contains("✓ url is /users"), "\(text)")
        #expect(text.contains(#"✗ header Content-Type equalTo "application/json""#), "\(text)")
        #expect(text.contains(#"$.name: expected "mark", found "marc""#), "\(text)")
    }
}
