import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
