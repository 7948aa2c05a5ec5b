import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import StuntDouble
import StuntDoubleServer
import TestSupport
import Testing

/// The HTTPS listener: a certificate made for localhost and signed by an authority kept in a folder (or the
/// user's own), the same stubs, and clients that trust the authority: AsyncHTTPClient, curl, URLSession.
@Suite struct HTTPSTests {
    static let curlInstalled = runsWithOutsideProgram(ChildProcess.succeeds("curl", ["--version"]))
    static let opensslInstalled = runsWithOutsideProgram(ChildProcess.succeeds("openssl", ["version"]))

    /// A temporary folder, removed with the test.
    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("https-\(UUID().uuidString)")
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    /// Runs `body` with a server on HTTP and HTTPS that answers `GET /hello` with `hi`.
    static func withServer(
        _ identity: HTTPStubServer.HTTPSConfiguration.Identity, _ body: (HTTPStubServer) async throws -> Void
    ) async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/hello").stub(for: .get, body: "hi"))
        var configuration = HTTPStubServer.Configuration()
        configuration.https = .init(identity: identity)
        try await serve(stubber, configuration) { server, _ in try await body(server) }
    }

    /// Runs `body` with a started server and its authority file (when it made its certificate), then stops it.
    static func serve(
        _ stubber: HTTPStubber, _ configuration: HTTPStubServer.Configuration,
        _ body: (HTTPStubServer, URL?) async throws -> Void
    ) async throws {
        let server = HTTPStubServer(stubber: stubber, configuration: configuration)
        try await server.start()
        do {
            try await body(server, server.certificateAuthorityFile)
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Runs `body` with a client that trusts the certificates in a PEM file (and nothing else).
    static func withClient(trusting file: URL, _ body: (HTTPClient) async throws -> Void) async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(file.path))
        var configuration = HTTPClient.Configuration()
        configuration.tlsConfiguration = tls
        // AsyncHTTPClient's connect timeout (10 s) includes the TLS handshake, which BoringSSL built with
        // ThreadSanitizer, on a loaded machine, took longer than that: a bound on the client, not a claim.
        configuration.timeout.connect = .seconds(120)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await body(client)
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// The deadline covers the TLS handshake too, so it is as generous as the connect timeout above.
    static func get(_ url: String, with client: HTTPClient) async throws -> String {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(120))
        return String(buffer: try await response.body.collect(upTo: 1 << 20))
    }

    @Test func aMadeCertificateServesTheStubsToClientsThatTrustItsAuthority() async throws {
        let folder = Folder()
        try await Self.withServer(.generated(authorityFolder: folder.url)) { server in
            let https = try #require(server.httpsBaseURL)
            let port = try #require(https.port)
            #expect(https.scheme == "https" && port != server.port)
            let authority = try #require(server.certificateAuthorityFile)
            #expect(authority.path == folder.url.appendingPathComponent("stuntdouble-ca.pem").path)
            try await Self.withClient(trusting: authority) { client in
                #expect(try await Self.get("https://127.0.0.1:\(port)/hello", with: client) == "hi")
                #expect(try await Self.get("https://localhost:\(port)/hello", with: client) == "hi", "localhost too")
                let entry = try #require(server.stubber.journal.last)
                #expect(entry.request.url.scheme == "https", "stubs see an https URL")
                // The HTTP listener serves on.
                let plain = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: try #require(server.baseURL).absoluteString + "/hello"),
                    timeout: .seconds(120))
                #expect(plain.status == .ok)
                // A client that does not trust the authority refuses the certificate: it is real TLS. (No retries:
                // AsyncHTTPClient would otherwise try again until its timeout.)
                var untrusting = HTTPClient.Configuration()
                untrusting.connectionPool.retryConnectionEstablishment = false
                let stranger = HTTPClient(eventLoopGroupProvider: .singleton, configuration: untrusting)
                await #expect {
                    _ = try await stranger.execute(
                        HTTPClientRequest(url: "https://127.0.0.1:\(port)/hello"), timeout: .seconds(120))
                } throws: { error in
                    "\(error)".contains("certificate") || "\(error)".contains("handshake")
                }
                try await stranger.shutdown()
            }
        }
    }

    @Test func theAuthorityIsMadeOnceAndKeptPrivate() async throws {
        let folder = Folder()
        var first = Data()
        try await Self.withServer(.generated(authorityFolder: folder.url)) { server in
            first = try Data(contentsOf: try #require(server.certificateAuthorityFile))
        }
        try await Self.withServer(.generated(authorityFolder: folder.url)) { server in
            let authority = try #require(server.certificateAuthorityFile)
            #expect(try Data(contentsOf: authority) == first, "reused, not remade")
            // A client that trusted the first run's authority trusts this run's certificate.
            try await Self.withClient(trusting: folder.url.appendingPathComponent("stuntdouble-ca.pem")) { client in
                let base = try #require(server.httpsBaseURL)
                #expect(try await Self.get(base.absoluteString + "/hello", with: client) == "hi")
            }
        }
        let key = folder.url.appendingPathComponent("stuntdouble-ca-key.pem").path
        let permissions = try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int
        #expect(permissions == 0o600, "the authority's key is its owner's alone")
    }

    @Test func aBrokenAuthorityFolderIsAnErrorThatSaysHowToMend() async throws {
        let folder = Folder()
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        try Data("not a certificate".utf8).write(to: folder.url.appendingPathComponent("stuntdouble-ca.pem"))
        await Self.expectRefusal(authorityFolder: folder.url) { error in
            "\(error)".contains("cannot be read")
                && "\(error)".contains("Remove stuntdouble-ca.pem and stuntdouble-ca-key.pem")
        }
    }

    /// Expects a server with the authority in `folder` not to start, with an error `matches` accepts, and nothing
    /// to listen.
    static func expectRefusal(
        authorityFolder folder: URL, sourceLocation: SourceLocation = #_sourceLocation,
        _ matches: @escaping @Sendable (any Error) -> Bool
    ) async {
        var configuration = HTTPStubServer.Configuration()
        configuration.https = .init(identity: .generated(authorityFolder: folder))
        let server = HTTPStubServer(configuration: configuration)
        await #expect(sourceLocation: sourceLocation) {
            try await server.start()
        } throws: { error in
            matches(error)
        }
        #expect(server.baseURL == nil, "nothing listens", sourceLocation: sourceLocation)
    }

    @Test(.enabled(if: curlInstalled, "curl is not installed (apt-get install curl; CI does)"))
    func curlTrustsTheAuthorityFile() async throws {
        let folder = Folder()
        try await Self.withServer(.generated(authorityFolder: folder.url)) { server in
            let authority = try #require(server.certificateAuthorityFile)
            let url = try #require(server.httpsBaseURL).absoluteString + "/hello"
            let result = try await ChildProcess.run("curl", ["-sS", "--cacert", authority.path, url])
            #expect(result.status == 0 && result.output == "hi", "\(result)")
            let untrusted = try await ChildProcess.run("curl", ["-sS", url])
            #expect(untrusted.status != 0, "curl refuses it without the authority: \(untrusted)")
        }
    }

    /// Whether a test may add a certificate authority to this machine's trust store: asked for
    /// (`STUNTDOUBLE_TRUST_STORE_TESTS=1`, as `.ci/run` on its fresh machine), as root, with Debian's tool.
    static let mayChangeTrustStore =
        ProcessInfo.processInfo.environment["STUNTDOUBLE_TRUST_STORE_TESTS"] == "1" && geteuid() == 0
        && FileManager.default.isExecutableFile(atPath: "/usr/sbin/update-ca-certificates")

    @Test(
        .enabled(
            if: mayChangeTrustStore,
            "changes the machine's trust store: set STUNTDOUBLE_TRUST_STORE_TESTS=1 and run as root (CI does)"))
    func urlSessionTrustsTheAuthorityOnceTheSystemDoes() async throws {
        let folder = Folder()
        let directory = try #require(BuiltProducts.directory)
        let probe = directory.appendingPathComponent("SharedSessionProbe")
        try #require(FileManager.default.isExecutableFile(atPath: probe.path), "build the tests first")
        try await Self.withServer(.generated(authorityFolder: folder.url)) { server in
            let authority = try #require(server.certificateAuthorityFile)
            let url = try #require(server.httpsBaseURL).absoluteString + "/hello"
            let before = try await ChildProcess.run(probe.path, ["fetch", url])
            #expect(before.output.hasPrefix("error:"), "not trusted yet: \(before)")
            // FoundationNetworking (libcurl) trusts what the system trusts, and takes no authority of its own.
            let installed = URL(
                fileURLWithPath: "/usr/local/share/ca-certificates/stuntdouble-test-\(UUID().uuidString).crt")
            try FileManager.default.copyItem(at: authority, to: installed)
            _ = try await ChildProcess.run("/usr/sbin/update-ca-certificates", [])
            let after = try await ChildProcess.run(probe.path, ["fetch", url])
            try? FileManager.default.removeItem(at: installed)
            _ = try await ChildProcess.run("/usr/sbin/update-ca-certificates", ["--fresh"])
            #expect(after.output.contains("status: 200 body: hi"), "\(after)")
        }
    }

    @Test(.enabled(if: opensslInstalled, "openssl is not installed"))
    func theUsersOwnCertificateAndKey() async throws {
        let folder = Folder()
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let certificate = folder.url.appendingPathComponent("server.pem")
        let key = folder.url.appendingPathComponent("server-key.pem")
        let made = try await ChildProcess.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key.path,
                "-out", certificate.path,
            ])
        try #require(made.status == 0, "\(made)")
        try await Self.withServer(.files(certificateChain: certificate, privateKey: key)) { server in
            #expect(server.certificateAuthorityFile == nil)
            try await Self.withClient(trusting: certificate) { client in
                let base = try #require(server.httpsBaseURL)
                #expect(try await Self.get(base.absoluteString + "/hello", with: client) == "hi")
            }
        }
        var configuration = HTTPStubServer.Configuration()
        configuration.https = .init(identity: .files(certificateChain: key, privateKey: certificate))
        await #expect {
            try await HTTPStubServer(configuration: configuration).start()
        } throws: { error in
            "\(error)".contains("server-key.pem is not a PEM certificate chain")
        }
    }
}

/// HTTP/2 on the HTTPS listener, negotiated by ALPN: the same stubs on each stream, many streams at once.
@Suite struct HTTP2Tests {
    typealias HTTPS = HTTPSTests

    static func withServer(_ body: (HTTPStubServer, URL) async throws -> Void) async throws {
        let folder = HTTPS.Folder()
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/hello").stub(for: .get, body: "hi").stub(for: .head, body: "hi"))
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/echo").stub(for: .post) { response in
                response.statusCode = .created
                response.body = Data("echoed".utf8)
            })
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/dribble").stub(for: .get) { response in
                response.body = Data("0123456789".utf8)
                response.responseTime = .dribbled(chunks: 5, over: 0.2)
            })
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/broken").stub(for: .get) { response in
                response.fault = .randomDataThenClose
            })
        var configuration = HTTPStubServer.Configuration()
        configuration.https = .init(identity: .generated(authorityFolder: folder.url))
        try await HTTPS.serve(stubber, configuration) { server, authority in
            try await body(server, try #require(authority))
        }
    }

    @Test func asyncHTTPClientGetsHTTP2AndEveryKindOfAnswer() async throws {
        try await Self.withServer { server, authority in
            let base = try #require(server.httpsBaseURL).absoluteString
            try await HTTPS.withClient(trusting: authority) { client in
                let hello = try await client.execute(HTTPClientRequest(url: base + "/hello"), timeout: .seconds(120))
                #expect(hello.version == .http2, "negotiated by ALPN")
                #expect(hello.headers["content-length"] == ["2"] && hello.headers["connection"].isEmpty)
                #expect(String(buffer: try await hello.body.collect(upTo: 1 << 20)) == "hi")

                var head = HTTPClientRequest(url: base + "/hello")
                head.method = .HEAD
                let headResponse = try await client.execute(head, timeout: .seconds(120))
                #expect(headResponse.status == .ok)
                #expect(try await headResponse.body.collect(upTo: 1 << 20).readableBytes == 0)

                var post = HTTPClientRequest(url: base + "/echo")
                post.method = .POST
                post.body = .bytes(ByteBuffer(string: "payload"))
                let posted = try await client.execute(post, timeout: .seconds(120))
                #expect(posted.status == .created)
                #expect(String(buffer: try await posted.body.collect(upTo: 1 << 20)) == "echoed")

                let dribbled = try await client.execute(
                    HTTPClientRequest(url: base + "/dribble"), timeout: .seconds(120))
                #expect(String(buffer: try await dribbled.body.collect(upTo: 1 << 20)) == "0123456789")

                // A fault resets its stream: the client sees an error, and the connection serves on.
                await #expect(throws: (any Error).self) {
                    let broken = try await client.execute(
                        HTTPClientRequest(url: base + "/broken"), timeout: .seconds(120))
                    _ = try await broken.body.collect(upTo: 1 << 20)
                }

                // Many streams at once on the connection.
                let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<20 {
                        group.addTask {
                            let response = try await client.execute(
                                HTTPClientRequest(url: base + "/hello"), timeout: .seconds(120))
                            return String(buffer: try await response.body.collect(upTo: 1 << 20))
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(bodies == Array(repeating: "hi", count: 20))
            }
            #expect(server.stubber.journal.count == 25)
            #expect(server.stubber.journal.allSatisfy { $0.request.url.scheme == "https" })
        }
    }

    @Test(.enabled(if: HTTPS.curlInstalled, "curl is not installed (apt-get install curl; CI does)"))
    func curlSpeaksHTTP2OrHTTP1AsItAsks() async throws {
        try await Self.withServer { server, authority in
            let url = try #require(server.httpsBaseURL).absoluteString + "/hello"
            for (flag, version) in [("--http2", "2"), ("--http1.1", "1.1")] {
                let result = try await ChildProcess.run(
                    "curl", ["-sS", flag, "--cacert", authority.path, "-w", " %{http_version}", url])
                #expect(result.status == 0 && result.output == "hi \(version)", "\(flag): \(result)")
            }
        }
    }
}

/// The HTTPS listener's connections end as HTTP ones do: idle ones close after the idle timeout (in the TLS
/// handshake, between HTTP/1.1 requests, with no HTTP/2 stream open), and stopping does not wait for idle ones.
@Suite struct HTTPSConnectionLifetimeTests {
    typealias HTTPS = HTTPSTests

    static func withServer(idleTimeout: Duration, _ body: (HTTPStubServer, URL) async throws -> Void) async throws {
        let folder = HTTPS.Folder()
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/hello").stub(for: .get, body: "hi"))
        var configuration = HTTPStubServer.Configuration(idleTimeout: idleTimeout)
        configuration.https = .init(identity: .generated(authorityFolder: folder.url))
        try await HTTPS.serve(stubber, configuration) { server, authority in
            try await body(server, try #require(authority))
        }
    }

    /// Waits (120 s at most) until the server has no connection open.
    static func connectionsClose(_ server: HTTPStubServer) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while server.openConnectionCount > 0 {
            if ContinuousClock.now > deadline { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    @Test func aClientThatNeverStartsTLSIsClosed() async throws {
        try await Self.withServer(idleTimeout: .seconds(2)) { server, _ in
            let connection = try await RawConnection.connect(to: try #require(server.httpsBaseURL))
            #expect(try await connection.readToClose(), "closed by the server, not by the test's timeout")
            await connection.close()
        }
    }

    /// The connection must still be open after the response (so that it is the server's idle timeout that closes
    /// it, not the client); that is checked only while less than the idle timeout has passed since before the
    /// request, when the timeout cannot have fired: a fresh-clone CI stalled this test for over 10 s between the
    /// response and the check, and the server had rightly closed the connection by then. The timeout's exact time
    /// is tested on a clock the test moves (`ConnectionStateMachineTests`, `StubRequestHandlerTests`).
    @Test(arguments: [HTTPClient.Configuration.HTTPVersion.http1Only, .automatic])
    func anIdleConnectionIsClosedWhicheverHTTPItSpeaks(version: HTTPClient.Configuration.HTTPVersion) async throws {
        try await Self.withServer(idleTimeout: .seconds(10)) { server, authority in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(authority.path))
            var configuration = HTTPClient.Configuration()
            configuration.tlsConfiguration = tls
            configuration.httpVersion = version
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            do {
                let beforeTheRequest = ContinuousClock.now
                let response = try await client.execute(
                    HTTPClientRequest(url: try #require(server.httpsBaseURL).absoluteString + "/hello"),
                    timeout: .seconds(120))
                #expect(response.version == (version == .http1Only ? .http1_1 : .http2))
                _ = try await response.body.collect(upTo: 1 << 20)
                let openConnections = server.openConnectionCount
                if ContinuousClock.now - beforeTheRequest < .seconds(10) {
                    #expect(openConnections == 1, "the client keeps its connection")
                }
                #expect(try await Self.connectionsClose(server), "the server closed the idle connection")
                try await client.shutdown()
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }

    @Test func stoppingDoesNotWaitForAnIdleHTTP2Connection() async throws {
        try await Self.withServer(idleTimeout: .seconds(120)) { server, authority in
            try await HTTPS.withClient(trusting: authority) { client in
                let response = try await client.execute(
                    HTTPClientRequest(url: try #require(server.httpsBaseURL).absoluteString + "/hello"),
                    timeout: .seconds(120))
                #expect(response.version == .http2)
                _ = try await response.body.collect(upTo: 1 << 20)
                let started = ContinuousClock.now
                await server.stop(gracePeriod: .seconds(60))
                #expect(ContinuousClock.now - started < .seconds(30), "no stream open: closed at once, not after 60 s")
            }
        }
    }
}
