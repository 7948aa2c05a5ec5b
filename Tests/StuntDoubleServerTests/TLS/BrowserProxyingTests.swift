import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import StuntDouble
import TestSupport
import Testing

@testable import StuntDoubleServer

/// Browser proxying (WireMock's `--enable-browser-proxying`): a client whose proxy is the server gets the stubs
/// where they match and the site where none does: a whole `http://` URL (curl's proxy request), a tunnel with
/// plain HTTP in it (AsyncHTTPClient's), and a tunnel with TLS whose certificate the server signs for the host.
@Suite struct BrowserProxyingTests {
    /// A site with two answers, and a proxy whose own stub answers one of its paths.
    static func site() -> HTTPStubber {
        let site = HTTPStubber()
        site.add(stub: HTTPStubRequest().match(URI: "/page").stub(for: .get, body: "the site's page"))
        site.add(stub: HTTPStubRequest().match(URI: "/stubbed").stub(for: .get, body: "the site's own answer"))
        return site
    }

    static func proxyStubber() -> HTTPStubber {
        let proxy = HTTPStubber()
        proxy.add(stub: HTTPStubRequest().match(URI: "/stubbed").stub(for: .get, body: "the proxy's stub"))
        return proxy
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("browser-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A client whose proxy is `proxy`, trusting the authority in `authorityFile`.
    static func client(proxy: URL, trusting authorityFile: URL) throws -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.proxy = .server(host: try #require(proxy.host), port: try #require(proxy.port))
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(authorityFile.path))
        configuration.tlsConfiguration = tls
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    static func text(_ client: HTTPClient, _ url: String) async throws -> (status: UInt, text: String) {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, String(buffer: body))
    }

    /// A request sent to `proxy` as curl sends a proxy request: its target the whole URL.
    static func proxyRequest(_ proxy: URL, _ url: String) async throws -> RawResponse? {
        let connection = try await RawConnection.connect(to: proxy)
        defer { Task { await connection.close() } }
        let host = try #require(URL(string: url)?.host)
        let port = URL(string: url)?.port.map { ":\($0)" } ?? ""
        try await connection.send("GET \(url) HTTP/1.1\r\nHost: \(host)\(port)\r\n\r\n")
        return try await connection.readResponse()
    }

    @Test func aProxyRequestGetsTheStubWhereOneMatchesAndTheSiteWhereNone() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let site = Self.site()
        try await withStubServer(stubber: site) { siteURL in
            var configuration = HTTPStubServer.Configuration()
            configuration.browserProxying = .init(authority: .generated(authorityFolder: folder))
            try await withStubServer(stubber: Self.proxyStubber(), configuration: configuration) { proxy in
                let page = try #require(try await Self.proxyRequest(proxy, "\(siteURL)/page"))
                #expect(page.status == 200 && page.text == "the site's page", "\(page.status) \(page.text)")
                let stubbed = try #require(try await Self.proxyRequest(proxy, "\(siteURL)/stubbed"))
                #expect(stubbed.text == "the proxy's stub")
                // The server's own paths are still its own.
                let own = try #require(try await Self.proxyRequest(proxy, "\(proxy)/stubbed"))
                #expect(own.text == "the proxy's stub")

                // AsyncHTTPClient tunnels a plain request (CONNECT, then HTTP in the tunnel).
                let client = try Self.client(
                    proxy: proxy, trusting: folder.appendingPathComponent("stuntdouble-ca.pem"))
                let tunnelled = try await Self.text(client, "\(siteURL)/page")
                let tunnelledStub = try await Self.text(client, "\(siteURL)/stubbed")
                try await client.shutdown()
                #expect(tunnelled.status == 200 && tunnelled.text == "the site's page", "\(tunnelled)")
                #expect(tunnelledStub.text == "the proxy's stub")
            }
        }
        #expect(site.journal.count == 2, "the site saw only the requests no stub of the proxy answered")
    }

    @Test func anHTTPSTunnelPresentsACertificateForTheHostSignedByTheAuthority() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The site's own certificate comes from an authority nobody here trusts.
        var siteConfiguration = HTTPStubServer.Configuration()
        siteConfiguration.https = .init(identity: .generated(authorityFolder: folder.appendingPathComponent("site")))
        let site = HTTPStubServer(stubber: Self.site(), configuration: siteConfiguration)
        try await site.start()
        let sitePort = try #require(site.httpsBaseURL?.port)
        var configuration = HTTPStubServer.Configuration()
        var proxying = HTTPStubServer.BrowserProxying(
            authority: .generated(authorityFolder: folder.appendingPathComponent("proxy")))
        proxying.trustedTargets = ["LOCALHOST"]
        configuration.browserProxying = proxying
        let proxyServer = HTTPStubServer(stubber: Self.proxyStubber(), configuration: configuration)
        let proxy = try await proxyServer.start()
        let authorityFile = folder.appendingPathComponent("proxy/stuntdouble-ca.pem")
        let client = try Self.client(proxy: proxy, trusting: authorityFile)
        // The client checks the tunnel's certificate against the proxy's authority and the host it asked for.
        let page = try await Self.text(client, "https://localhost:\(sitePort)/page")
        let stubbed = try await Self.text(client, "https://localhost:\(sitePort)/stubbed")
        let byAddress = try await Self.text(client, "https://127.0.0.1:\(sitePort)/stubbed")
        // 127.0.0.1 is not a trusted target: the site's certificate is checked, and fails.
        let untrusted = try await Self.text(client, "https://127.0.0.1:\(sitePort)/page")
        let authority = try await Self.text(HTTPClient.shared, "\(proxy)/__admin/certs/wiremock-ca.crt")
        try await client.shutdown()
        await proxyServer.stop()
        await site.stop()
        #expect(page.status == 200 && page.text == "the site's page", "\(page)")
        #expect(stubbed.text == "the proxy's stub")
        #expect(byAddress.text == "the proxy's stub", "a certificate for an address")
        #expect(untrusted.status == 500, "\(untrusted)")
        #expect(authority.text == (try String(contentsOf: authorityFile, encoding: .utf8)))
    }

    @Test func withPassThroughOffAnUnmatchedProxyRequestGetsTheNearMissReport() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let site = Self.site()
        try await withStubServer(stubber: site) { siteURL in
            var configuration = HTTPStubServer.Configuration()
            var proxying = HTTPStubServer.BrowserProxying(authority: .generated(authorityFolder: folder))
            proxying.passesThrough = false
            configuration.browserProxying = proxying
            try await withStubServer(stubber: Self.proxyStubber(), configuration: configuration) { proxy in
                let page = try #require(try await Self.proxyRequest(proxy, "\(siteURL)/page"))
                #expect(page.status == 404 && page.text.hasPrefix("Request was not matched"), "\(page.text)")
                let stubbed = try #require(try await Self.proxyRequest(proxy, "\(siteURL)/stubbed"))
                #expect(stubbed.text == "the proxy's stub")
            }
        }
        #expect(site.journal.count == 0)
    }

    @Test(arguments: [
        ("nonsense", "is not a host and port"), ("a,DNS:bank.example:443", "is not a host name or an IP address"),
    ])
    func aCONNECTToWhatIsNotAHostIsRefusedSayingWhy(target: String, reason: String) async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = HTTPStubServer.Configuration()
        configuration.browserProxying = .init(authority: .generated(authorityFolder: folder))
        try await withStubServer(configuration: configuration) { proxy in
            let connection = try await RawConnection.connect(to: proxy)
            try await connection.send("CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n")
            let answer = try #require(try await connection.readResponse())
            await connection.close()
            #expect(answer.status == 400)
            #expect(answer.text.contains(reason), "\(answer.text)")
        }
    }

    @Test func withoutBrowserProxyingTheAuthorityIsNotGiven() async throws {
        try await withStubServer { server in
            let answer = try await Self.text(HTTPClient.shared, "\(server)/__admin/certs/wiremock-ca.crt")
            #expect(answer.status == 404)
            #expect(answer.text.contains("--enable-browser-proxying"), "\(answer.text)")
        }
    }

    @Test(.enabled(if: HTTPSTests.opensslInstalled, "openssl is not installed"))
    func anAuthorityFromAPKCS12KeystoreSignsTheTunnels() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = """
            set -e
            cd '\(folder.path)'
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca-key.pem -out ca.pem \
                -days 2 -subj /CN=keystore-authority
            openssl pkcs12 -export -in ca.pem -inkey ca-key.pem -out ca.p12 -passout pass:secret
            """
        let made = try await ChildProcess.run("/bin/sh", ["-c", script])
        try #require(made.status == 0, "\(made.error)")
        let keystore = folder.appendingPathComponent("ca.p12")
        var configuration = HTTPStubServer.Configuration()
        configuration.browserProxying = .init(authority: .keystore(keystore, password: "secret"))
        let site = HTTPStubServer(stubber: Self.site())
        let siteURL = try await site.start()
        let proxyServer = HTTPStubServer(stubber: Self.proxyStubber(), configuration: configuration)
        let proxy = try await proxyServer.start()
        let client = try Self.client(proxy: proxy, trusting: folder.appendingPathComponent("ca.pem"))
        // The tunnel's certificate is checked against the keystore's authority; the proxy's stub answers.
        let stubbed = try await Self.text(client, "https://localhost:\(try #require(siteURL.port))/stubbed")
        try await client.shutdown()
        await proxyServer.stop()
        await site.stop()
        #expect(stubbed.status == 200 && stubbed.text == "the proxy's stub", "\(stubbed)")

        configuration.browserProxying = .init(authority: .keystore(keystore, password: "wrong"))
        await #expect {
            try await HTTPStubServer(configuration: configuration).start()
        } throws: { error in
            "\(error)".contains("--ca-keystore-password")
        }
    }

    /// The command line as a WireMock user gives it, with curl as the client: `--proxy` for an `http://` URL (a
    /// whole-URL request) and an `https://` one (a tunnel, its certificate checked against the authority the
    /// server keeps in `$XDG_DATA_HOME/stuntdouble`).
    @Test(.enabled(if: HTTPSTests.curlInstalled, "curl is not installed"))
    func theCommandLineProxiesForCurl() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = try AdminAPITests.root([
            "mappings/stubbed.json": #"{"request": {"url": "/stubbed"}, "response": {"body": "the proxy's stub"}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        var siteConfiguration = HTTPStubServer.Configuration()
        siteConfiguration.https = .init(identity: .generated(authorityFolder: folder.appendingPathComponent("site")))
        let site = HTTPStubServer(stubber: Self.site(), configuration: siteConfiguration)
        let siteURL = try await site.start()
        let siteHTTPS = try #require(site.httpsBaseURL?.port)
        let serve = try CommandProcess(
            shell: "XDG_DATA_HOME='\(folder.path)' exec \"$STUNTDOUBLE\" --port 0 --root-dir '\(root.path)' "
                + "--enable-browser-proxying --trust-proxy-target localhost")
        #expect(
            try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") },
            "\(serve.standardOutput)\(serve.standardError)")
        let proxy = String(try #require(serve.standardOutput.firstMatch(of: /http:\/\/127\.0\.0\.1:\d+/)).0)
        let authority = folder.appendingPathComponent("stuntdouble/stuntdouble-ca.pem").path
        func curl(_ url: String) async throws -> String {
            try await ChildProcess.run(
                "curl", ["-s", "--max-time", "60", "--proxy", proxy, "--cacert", authority, url]
            ).output
        }
        let plain = try await curl("\(siteURL)/page")
        let plainStub = try await curl("\(siteURL)/stubbed")
        let secure = try await curl("https://localhost:\(siteHTTPS)/page")
        let secureStub = try await curl("https://localhost:\(siteHTTPS)/stubbed")
        serve.signal(SIGTERM)
        _ = try await serve.waitForExit()
        await site.stop()
        #expect(plain == "the site's page")
        #expect(plainStub == "the proxy's stub")
        #expect(secure == "the site's page", "\(serve.standardError)")
        #expect(secureStub == "the proxy's stub")
    }
}
