import Foundation
import StuntDouble
import StuntDoubleServer
import TestSupport
import Testing

/// Mutual TLS, as WireMock's `--https-require-client-cert` and `--https-truststore`: a client with a certificate
/// an authority of the trust store signed is served; one without, or signed by another, fails the handshake.
/// The certificates are openssl's, the client curl.
@Suite(.enabled(if: HTTPSTests.opensslInstalled && HTTPSTests.curlInstalled, "openssl or curl is not installed"))
struct ClientCertificateTests {
    static let keytoolInstalled = runsWithOutsideProgram(ChildProcess.succeeds("keytool", ["-help"]))

    /// A folder with an authority (`ca.pem`) that signed `client.pem` (key `client-key.pem`), a stranger
    /// (`other.pem`, `other-key.pem`) signed by no one trusted, and `ca.pem` as an openssl PKCS #12 trust store
    /// (`trust.p12`, password `pw`).
    static func certificates() async throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mtls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ec = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
        let script = """
            set -e
            cd '\(folder.path)'
            openssl req -x509 \(ec) -keyout ca-key.pem -out ca.pem -days 2 -subj /CN=test-authority
            openssl req \(ec) -keyout client-key.pem -out client.csr -subj /CN=test-client
            openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -out client.pem -days 2
            openssl req -x509 \(ec) -keyout other-key.pem -out other.pem -days 2 -subj /CN=stranger
            openssl pkcs12 -export -nokeys -in ca.pem -out trust.p12 -passout pass:pw
            """
        let made = try await ChildProcess.run("/bin/sh", ["-c", script])
        #expect(made.status == 0, "\(made.error)")
        return folder
    }

    /// curl's status code for `url` presenting `certificate` (a file stem in `folder`), or `000` when the
    /// handshake failed.
    static func status(_ url: URL, _ folder: URL, presenting certificate: String?) async throws -> String {
        var arguments = ["-sk", "-o", "/dev/null", "-w", "%{http_code}", url.absoluteString + "/__admin/health"]
        if let certificate {
            arguments += [
                "--cert", folder.appendingPathComponent("\(certificate).pem").path,
                "--key", folder.appendingPathComponent("\(certificate)-key.pem").path,
            ]
        }
        return try await ChildProcess.run("curl", arguments).output
    }

    @Test(arguments: ["pem", "pkcs12"])
    func onlyClientsWithATrustedCertificateAreServed(store: String) async throws {
        let folder = try await Self.certificates()
        defer { try? FileManager.default.removeItem(at: folder) }
        var https = HTTPStubServer.HTTPSConfiguration(
            identity: .generated(authorityFolder: folder.appendingPathComponent("server-ca")))
        https.clientCertificateAuthorities =
            store == "pem"
            ? .pem(folder.appendingPathComponent("ca.pem"))
            : .keystore(folder.appendingPathComponent("trust.p12"), password: "pw")
        var configuration = HTTPStubServer.Configuration()
        configuration.https = https
        let server = HTTPStubServer(configuration: configuration)
        try await server.start()
        let url = try #require(server.httpsBaseURL)
        let trusted = try await Self.status(url, folder, presenting: "client")
        let none = try await Self.status(url, folder, presenting: nil)
        let stranger = try await Self.status(url, folder, presenting: "other")
        let plain = try await Self.status(try #require(server.baseURL), folder, presenting: nil)
        await server.stop()
        #expect(trusted == "200")
        #expect(none == "000", "a client without a certificate fails the handshake")
        #expect(stranger == "000", "a certificate no trusted authority signed fails the handshake")
        #expect(plain == "200", "plain HTTP asks for no certificate")
    }

    @Test func aWrongPasswordOrAnEmptyStoreIsAnErrorSayingWhy() async throws {
        let folder = try await Self.certificates()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (store, expected) in [
            (
                HTTPStubServer.HTTPSConfiguration.TrustStore.keystore(
                    folder.appendingPathComponent("trust.p12"), password: "nope"), "--truststore-password"
            ),
            (.pem(folder.appendingPathComponent("client.csr")), "is not PEM certificates"),
            (.keystore(folder.appendingPathComponent("missing.p12"), password: "pw"), "cannot be read"),
        ] {
            var https = HTTPStubServer.HTTPSConfiguration(
                identity: .generated(authorityFolder: folder.appendingPathComponent("server-ca")))
            https.clientCertificateAuthorities = store
            var configuration = HTTPStubServer.Configuration()
            configuration.https = https
            let error = await #expect(throws: HTTPStubServerError.self) {
                try await HTTPStubServer(configuration: configuration).start()
            }
            #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
        }
    }

    /// WireMock's command line, with a trust store as Java's keytool writes one.
    @Test(.enabled(if: keytoolInstalled, "keytool is not installed (a JDK's)"))
    func wireMocksOptionsTakeAKeytoolTrustStore() async throws {
        let folder = try await Self.certificates()
        defer { try? FileManager.default.removeItem(at: folder) }
        let made = try await ChildProcess.run(
            "keytool",
            [
                "-importcert", "-noprompt", "-alias", "authority", "-file",
                folder.appendingPathComponent("ca.pem").path,
                "-keystore", folder.appendingPathComponent("java-trust.p12").path, "-storetype", "pkcs12",
                "-storepass", "password",
            ])
        #expect(made.status == 0, "\(made.error)")
        let (serve, _) = try await WireMockOptionsTests.serve([
            "--port", "0", "--https-port", "0", "--https-ca-folder", folder.appendingPathComponent("server-ca").path,
            "--https-require-client-cert", "--https-truststore", folder.appendingPathComponent("java-trust.p12").path,
        ])
        let match = try #require(serve.standardOutput.firstMatch(of: /https:\/\/127\.0\.0\.1:\d+/))
        let url = try #require(URL(string: String(match.0)))
        #expect(try await Self.status(url, folder, presenting: "client") == "200")
        #expect(try await Self.status(url, folder, presenting: nil) == "000")
        try await WireMockOptionsTests.stop(serve)
    }
}
