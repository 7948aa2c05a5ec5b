import Foundation
import StuntDouble
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

@Suite struct BodyMatcherTests {
    @Test func everyMatcherSeesABodySentAsAStream() throws {
        let stubber = HTTPStubber()
        let payload = Data(#"{"user":"mark","tags":["a","b"]}"#.utf8)
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var bodies: [Data?] = []
        }
        let seen = Seen()
        let stub = HTTPStubRequest()
            .match(body: payload)
            .match(json: #"{"tags": ["a", "b"], "user": "mark"}"#)
            .match({ request, _ in
                seen.lock.withLock { seen.bodies.append(request.body) }
                return true
            })
            .match(StreamlessBodyMatcher(expected: payload))
            .stub(
                for: .post,
                responseProvider: { request, _ in
                    HTTPStubResponse(statusCode: .ok, body: request.body)
                })
        stubber.add(stub: stub)

        var request = makeRequest("POST", "https://a.test/upload")
        request.httpBodyStream = InputStream(data: payload)
        let plan = try #require(try stubber.decision(for: request).plan)
        #expect(plan.body == payload)
        #expect(seen.bodies == [payload])
    }

    struct StreamlessBodyMatcher: HTTPStubMatcherProtocol {
        let expected: Data
        func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
            request.httpBodyStream == nil && request.httpBody == expected
        }
    }

    @Test func comparesBytesExactly() {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(body: "a=1").stub(for: .post, code: .ok))
        #expect(stubber.plan("POST", "https://a.test/", body: Data("a=1".utf8)) != nil)
        #expect(stubber.plan("POST", "https://a.test/", body: Data("a=1 ".utf8)) == nil)
        #expect(stubber.plan("POST", "https://a.test/") == nil)
    }
}

@Suite struct JSONMatcherTests {
    @Test func comparesSemantically() {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(json: #"{"a": [1, 2.5, {"b": null}], "c": "é", "d": true}"#).stub(
                for: .post, code: .ok))
        func matches(_ json: String) -> Bool {
            stubber.plan("POST", "https://a.test/", body: Data(json.utf8)) != nil
        }
        #expect(matches(#"{"d":true,"c":"\u00e9","a":[1.0,25e-1,{"b":null}]}"#))
        #expect(!matches(#"{"d":true,"c":"é","a":[2.5,1,{"b":null}]}"#), "array order matters")
        #expect(!matches(#"{"d":"true","c":"é","a":[1,2.5,{"b":null}]}"#), "types matter")
        #expect(!matches(#"{"d":true,"c":"é","a":[1,2.5,{}]}"#))
        #expect(!matches(#"{"d":true,"c":"é","a":[1,2.5,{"b":null}]"#), "invalid JSON never matches")
        #expect(!matches(""))
    }

    @Test func encodesObjectsWithTheGivenEncoder() {
        struct Event: Encodable {
            let startsAt: Date
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(object: Event(startsAt: Date(timeIntervalSince1970: 60)), encoder: encoder)
                .stub(for: .post, code: .accepted))
        #expect(stubber.plan("POST", "https://a.test/", body: Data(#"{"startsAt": 60}"#.utf8)) != nil)
    }

    @Test func reportsUnusableExpectations() {
        let invalid = HTTPStubRequest().match(json: "{not json}")
        #expect(invalid.problems.map(\.code) == [.invalidJSON])
        #expect(invalid.problems.first?.message.contains("byte 1") == true)

        struct NotANumber: Encodable {
            let value = Double.nan
        }
        let unencodable = HTTPStubRequest().match(object: NotANumber())
        #expect(unencodable.problems.map(\.code) == [.encodingFailed])
    }
}

@Suite struct HeaderAndQueryMatcherTests {
    @Test func headerNamesIgnoreCase() {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(header: "X-API-Key", value: "secret").stub(for: .get, code: .ok))
        #expect(stubber.plan("GET", "https://a.test/", headers: ["x-api-key": "secret"]) != nil)
        #expect(stubber.plan("GET", "https://a.test/", headers: ["X-Api-Key": "Secret"]) == nil, "values are exact")
        #expect(stubber.plan("GET", "https://a.test/") == nil)

        let presence = HTTPStubber()
        presence.add(stub: HTTPStubRequest().match(header: .authorization).stub(for: .get, code: .ok))
        #expect(presence.plan("GET", "https://a.test/", headers: ["AUTHORIZATION": "Bearer t"]) != nil)
    }

    /// Found by FuzzHeaders: names compared after Unicode lower-casing, so the Kelvin sign equalled "k" and
    /// "ϑ" did not equal the lower-casing of its upper-case form. HTTP names ignore ASCII case only.
    @Test func headerNamesIgnoreOnlyASCIICase() {
        #expect(HTTPHeaders.Name(rawValue: "X-Trace") == HTTPHeaders.Name(rawValue: "x-TRACE"))
        #expect(HTTPHeaders.Name(rawValue: "\u{212A}-Id") != HTTPHeaders.Name(rawValue: "k-id"))
        #expect(HTTPHeaders.Name(rawValue: "Qϑ") == HTTPHeaders.Name(rawValue: "qϑ"))
        #expect(HTTPHeaders.Name(rawValue: "É") != HTTPHeaders.Name(rawValue: "é"))
        let headers: HTTPHeaders = ["\u{212A}": "kelvin", "k": "letter"]
        #expect(headers.values(for: "K") == ["letter"])
    }

    @Test func queryItemsAreDecoded() {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(queryItem: "q", value: "a b").match(queryItem: "page").stub(
                for: .get, code: .ok))
        #expect(stubber.plan("GET", "https://a.test/s?page=2&q=a%20b") != nil)
        #expect(stubber.plan("GET", "https://a.test/s?q=a%20b") == nil)
        #expect(stubber.plan("GET", "https://a.test/s?q=ab&page=1") == nil)
    }

    @Test func matchersCombineWithAnd() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: try HTTPStubRequest()
                .match(urlRegex: "example")
                .match(URL: "https://example.com/a", options: .ignoreQueryParameters)
                .match(header: .accept, value: "application/json")
                .stub(for: .get, code: .ok))
        #expect(stubber.plan("GET", "https://example.com/a?x=1", headers: ["Accept": "application/json"]) != nil)
        #expect(stubber.plan("GET", "https://example.com/a?x=1", headers: ["Accept": "text/html"]) == nil)
        #expect(stubber.plan("GET", "https://example.com/b", headers: ["Accept": "application/json"]) == nil)
    }
}

@Suite struct URITemplateMatcherTests {
    func stubber(_ template: String) -> HTTPStubber {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: template)
                .stub(
                    for: .get,
                    responseProvider: { request, _ in
                        let variables = request.templateVariables.sorted { $0.key < $1.key }
                            .map { "\($0.key)=\($0.value)" }.joined(separator: "&")
                        return HTTPStubResponse(statusCode: .ok, body: Data(variables.utf8))
                    }))
        return stubber
    }

    @Test func absoluteTemplatesMatchTheWholeURL() {
        let stubber = stubber("https://API.example.com/users/{id}/posts/{post}")
        #expect(stubber.bodyText("GET", "https://api.example.com/users/7/posts/99") == "id=7&post=99")
        #expect(stubber.bodyText("GET", "HTTPS://api.EXAMPLE.com:443/users/7/posts/99") == "id=7&post=99")
        #expect(stubber.plan("GET", "http://api.example.com/users/7/posts/99") == nil)
        #expect(stubber.plan("GET", "https://www.example.com/users/7/posts/99") == nil)
    }

    @Test func pathTemplatesMatchAnyHost() {
        let stubber = stubber("/users/{id}")
        #expect(stubber.bodyText("GET", "https://a.test/users/1") == "id=1")
        #expect(stubber.bodyText("GET", "http://b.test:8080/users/2") == "id=2")
        #expect(stubber.plan("GET", "https://a.test/v2/users/1") == nil)
    }

    @Test func templatesWithoutAQueryIgnoreTheQuery() {
        #expect(stubber("/users/{id}").bodyText("GET", "https://a.test/users/1?expand=true") == "id=1")
    }

    @Test func queryExpressionsReadParametersInAnyOrder() {
        let stubber = stubber("/search{?q,page}")
        #expect(stubber.bodyText("GET", "https://a.test/search?page=3&q=swift%20testing") == "page=3&q=swift testing")
        #expect(stubber.bodyText("GET", "https://a.test/search?q=x&debug=1") == "q=x", "other parameters are allowed")
        #expect(stubber.bodyText("GET", "https://a.test/search") == "")
        #expect(
            self.stubber("/items{?ids*}{&sort}").bodyText("GET", "https://a.test/items?sort=asc&ids=1&ids=2")
                == "ids=1,2&sort=asc")
        let list = self.stubber("/items{?ids*}")
        #expect(list.bodyText("GET", "https://a.test/items?ids=1&ids=2&page=3") == "ids=1,2")
    }

    @Test func aLiteralQueryMatchesAsWritten() {
        let stubber = stubber("/search?q={q}&page={page}")
        #expect(stubber.bodyText("GET", "https://a.test/search?q=swift&page=2") == "page=2&q=swift")
        #expect(stubber.plan("GET", "https://a.test/search?page=2&q=swift") == nil)

        let continued = self.stubber("/search?fixed=yes{&x}")
        #expect(continued.bodyText("GET", "https://a.test/search?fixed=yes&x=1") == "x=1")
        #expect(continued.bodyText("GET", "https://a.test/search?fixed=yes") == "")
        #expect(continued.plan("GET", "https://a.test/search?fixed=no&x=1") == nil)
    }

    @Test func hostOnlyAndQueryOnlyTemplates() {
        let host = stubber("https://API.example.com:443{?key}")
        #expect(host.bodyText("GET", "https://api.example.com?key=1") == "key=1")
        #expect(host.bodyText("GET", "https://api.example.com/?key=2") == "key=2")
        #expect(host.plan("GET", "https://api.example.com/other?key=2") == nil)
        #expect(stubber("https://api.example.com").bodyText("GET", "https://api.example.com") == "")
        #expect(stubber("{?q}").bodyText("GET", "https://anything.test/at/all?q=1&x=2") == "q=1")
        #expect(stubber("https://bücher.de/{x}").bodyText("GET", "https://bücher.de/1") == "x=1")
        #expect(stubber("https://bücher.de/{x}").bodyText("GET", "https://xn--bcher-kva.de/2") == "x=2")
    }

    @Test func expressionsCanCoverTheHostOrTheWholeURL() {
        #expect(
            stubber("https://{tenant}.example.com/me").bodyText("GET", "https://acme.example.com/me") == "tenant=acme")
        #expect(stubber("{+base}/v1/me").bodyText("GET", "https://a.test/v1/me") == "base=https://a.test")
        #expect(stubber("{/segments*}").bodyText("GET", "https://a.test/a/b") == "segments=a,b")
    }

    @Test func invalidTemplatesReportTheirProblem() {
        let stub = HTTPStubRequest().match(URI: "/users/{id").stub(for: .get, code: .ok)
        #expect(stub.problems.map(\.code) == [.invalidURITemplate])
        let relative = HTTPStubRequest().match(URI: "github.com/{owner}")
        #expect(relative.problems.first?.message.contains("must start with a scheme") == true)
    }
}
