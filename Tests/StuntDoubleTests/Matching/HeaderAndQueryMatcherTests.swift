import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
