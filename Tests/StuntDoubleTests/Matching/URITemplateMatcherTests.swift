import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
