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

@Suite struct CookieTests {
    let shop = Self.makeStubber()

    static func makeStubber() -> HTTPStubber {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://shop.test/login").stub(for: .post) {
                $0.headers = ["Set-Cookie": "session=abc123; Path=/; HttpOnly"]
                $0.body = Data("welcome".utf8)
            })
        stubber.add(stub: HTTPStubRequest().match(URL: "https://shop.test/cart").stubEcho())
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://shop.test/sso").stub(for: .get) {
                $0.statusCode = .found
                $0.headers = ["Location": "/cart", "Set-Cookie": "sso=token1; Path=/"]
            })
        return stubber
    }

    @Test func setCookieIsStoredAndSentBack() async throws {
        let session = shop.session()
        var login = URLRequest(url: URL(string: "https://shop.test/login")!)
        login.httpMethod = "POST"
        _ = try await session.data(for: login)
        let stored = session.configuration.httpCookieStorage?.cookies(for: URL(string: "https://shop.test/")!) ?? []
        #expect(stored.map(\.name) == ["session"])
        let (_, response) = try await session.data(from: URL(string: "https://shop.test/cart")!)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Cookie") == "session=abc123")
    }

    @Test func cookiesSetByARedirectReachItsTarget() async throws {
        let session = shop.session()
        let (_, response) = try await session.data(from: URL(string: "https://shop.test/sso")!)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Cookie") == "sso=token1")
    }

    @Test func aSessionThatRefusesCookiesStoresNone() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        let session = shop.session(configuration: configuration)
        var login = URLRequest(url: URL(string: "https://shop.test/login")!)
        login.httpMethod = "POST"
        _ = try await session.data(for: login)
        #expect(
            session.configuration.httpCookieStorage?.cookies(for: URL(string: "https://shop.test/")!)?.isEmpty ?? true)
    }

    @Test func sessionsDoNotShareCookies() async throws {
        let first = shop.session()
        let second = shop.session()
        var login = URLRequest(url: URL(string: "https://shop.test/login")!)
        login.httpMethod = "POST"
        _ = try await first.data(for: login)
        let (_, response) = try await second.data(from: URL(string: "https://shop.test/cart")!)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Cookie") == nil)
    }
}

/// What a client's session delegate hears about stubbed requests: redirects to decide, upload progress.
@Suite struct DelegateCallbackTests {
    let stubber: HTTPStubber

    init() {
        stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "https://a.test/{path}").stubEcho())
        let redirect = HTTPStubRequest().match(URL: "https://a.test/from").stub(for: .get) {
            $0.statusCode = .found
            $0.headers[.location] = "/to"
            $0.body = Data("moved".utf8)
        }
        redirect.priority = 1
        stubber.add(stub: redirect)
    }

    @Test func aDelegateThatRefusesARedirectReceivesThe3xx() async throws {
        let delegate = RecordingDelegate(redirect: { _ in nil })
        let session = stubber.session(delegate: delegate)
        session.dataTask(with: URL(string: "https://a.test/from")!).resume()
        #expect(await delegate.completed() == nil)
        let response = try #require(delegate.response as? HTTPURLResponse)
        #expect(response.statusCode == 302)
        #expect(response.value(forHTTPHeaderField: "Location") == "/to")
        #expect(String(decoding: delegate.body, as: UTF8.self) == "moved")
        #expect(delegate.redirectsAsked.map(\.status) == [302])
        #expect(delegate.redirectsAsked.map(\.target) == [URL(string: "https://a.test/to")])
        #expect(stubber.journal.count == 1, "the target was never requested")
        #expect(stubber.journal.first?.completion?.statusCode == .found)
    }

    @Test func aDelegateCanChangeWhereARedirectGoes() async throws {
        let delegate = RecordingDelegate(redirect: { request in
            var changed = request
            changed.url = URL(string: "https://a.test/elsewhere")
            changed.setValue("yes", forHTTPHeaderField: "X-Changed")
            return changed
        })
        let session = stubber.session(delegate: delegate)
        session.dataTask(with: URL(string: "https://a.test/from")!).resume()
        #expect(await delegate.completed() == nil)
        let response = try #require(delegate.response as? HTTPURLResponse)
        #expect(response.statusCode == 200)
        #expect(response.url == URL(string: "https://a.test/elsewhere"))
        #expect(response.value(forHTTPHeaderField: "X-Echo-URL") == "https://a.test/elsewhere")
        #expect(stubber.journal.map { $0.request.headers["X-Changed"] } == [nil, "yes"])
    }

    @Test func aSessionWithoutADelegateFollowsRedirects() async throws {
        let (_, response) = try await stubber.session().data(from: URL(string: "https://a.test/from")!)
        #expect(response.url == URL(string: "https://a.test/to"))
    }

    @Test func anUploadTellsItsDelegateTheBodyWasSent() async throws {
        #if canImport(FoundationNetworking)
        let delegate = RecordingDelegate()
        var request = URLRequest(url: URL(string: "https://a.test/upload")!)
        request.httpMethod = "POST"
        stubber.session(delegate: delegate).uploadTask(with: request, from: Data(repeating: 1, count: 5_000))
            .resume()
        #expect(await delegate.completed() == nil)
        #expect(delegate.bytesSent == [5_000], "once, with the whole body, before the response")
        #endif
    }
}
