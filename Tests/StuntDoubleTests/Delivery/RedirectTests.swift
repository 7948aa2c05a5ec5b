import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct RedirectTests {
    /// A stubber whose `/from` redirects with `code` to `location`, and whose `/to` echoes the request.
    func stubber(_ code: HTTPStatusCode, to location: String = "/to") throws -> HTTPStubber {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://a.test/from")
                .stubEcho()  // every method
                .stub(for: .get) {
                    $0.statusCode = code; $0.headers[.location] = location
                }
                .stub(for: .post) {
                    $0.statusCode = code; $0.headers[.location] = location
                }
                .stub(for: .head) {
                    $0.statusCode = code; $0.headers[.location] = location
                })
        stubber.add(stub: HTTPStubRequest().match(URI: "https://{host}/to").stubEcho())
        return stubber
    }

    func post(_ stubber: HTTPStubber) async throws -> (body: String, method: String?, url: URL?, status: Int?) {
        var request = URLRequest(url: URL(string: "https://a.test/from")!)
        request.httpMethod = "POST"
        request.httpBody = Data("payload".utf8)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await stubber.session().data(for: request)
        let http = response as? HTTPURLResponse
        return (
            String(decoding: data, as: UTF8.self), http?.value(forHTTPHeaderField: "X-Echo-Method"), http?.url,
            http?.statusCode
        )
    }

    @Test(arguments: [301, 302, 303] as [HTTPStatusCode])
    func aPostRedirectedWith301To303BecomesAGetWithoutBody(code: HTTPStatusCode) async throws {
        let result = try await post(try stubber(code))
        #expect(result.method == "GET")
        #expect(result.body == "")
        #expect(result.url == URL(string: "https://a.test/to"), "the caller sees the final URL")
        #expect(result.status == 200)
    }

    @Test(arguments: [307, 308] as [HTTPStatusCode])
    func a307Or308KeepsTheMethodAndBody(code: HTTPStatusCode) async throws {
        let result = try await post(try stubber(code))
        #expect(result.method == "POST")
        #expect(result.body == "payload")
        #expect(result.url == URL(string: "https://a.test/to"))
    }

    @Test func absoluteLocationsAndCrossOriginRules() async throws {
        let stubber = try stubber(.found, to: "https://b.test/to")
        var request = URLRequest(url: URL(string: "https://a.test/from")!)
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        request.setValue("kept", forHTTPHeaderField: "X-Trace")
        let (_, response) = try await stubber.session().data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.url == URL(string: "https://b.test/to"))
        #expect(http.value(forHTTPHeaderField: "Authorization") == nil, "credentials stay with their origin")
        #expect(http.value(forHTTPHeaderField: "X-Trace") == "kept")
    }

    @Test(arguments: [false, true])
    func aRedirectLoopEndsAndTheJournalSaysHow(stubSession: Bool) async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://a.test/a").stub(for: .get) {
                $0.statusCode = 302; $0.headers[.location] = "/b"
            })
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://a.test/b").stub(for: .get) {
                $0.statusCode = 302; $0.headers[.location] = "/a"
            })
        let session: any AsyncURLSessionProtocol = stubSession ? stubber.stubSession() : stubber.session()
        await #expect {
            try await session.data(from: URL(string: "https://a.test/a")!)
        } throws: { ($0 as? URLError)?.code == .httpTooManyRedirects }
        let journal = stubber.journal
        #expect(journal.count > 2)
        #expect(journal.dropLast().allSatisfy { $0.completion != nil && $0.completion?.error == nil })
        #expect((journal.last?.completion?.error as? URLError)?.code == .httpTooManyRedirects)
    }

    @Test func aRedirectWithoutLocationIsDeliveredAsItIs() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get, code: .notModified))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://a.test/moved").stub(
                for: .get, code: .movedPermanently, body: "gone"))
        let (data, response) = try await stubber.session().data(from: URL(string: "https://a.test/moved")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 301)
        #expect(String(decoding: data, as: UTF8.self) == "gone")
    }

    @Test func redirectDelaysAddUp() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://a.test/first").stub(for: .get) {
                $0.statusCode = .temporaryRedirect
                $0.headers[.location] = "/second"
                $0.responseDelay = 0.2
            })
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://a.test/second").stub(for: .get) {
                $0.responseDelay = 0.2
                $0.body = Data("arrived".utf8)
            })
        let start = ContinuousClock.now
        let (data, _) = try await stubber.session().data(from: URL(string: "https://a.test/first")!)
        #expect(String(decoding: data, as: UTF8.self) == "arrived")
        #expect(secondsSince(start) >= 0.4)
    }
}
