import Foundation
import StuntDoubleServer
import TestSupport
import Testing

/// The certificates the server makes, read by a TLS implementation that is not the server's (OpenSSL's command
/// line), and authorities the server did not make (an earlier version's, openssl's) in its folder.
@Suite(.enabled(if: HTTPSTests.opensslInstalled, "openssl is not installed"))
struct CertificateAuthorityTests {
    typealias HTTPS = HTTPSTests

    /// `openssl s_client`'s verdict on the server's certificate, checked against `authority`.
    static func verify(_ server: HTTPStubServer, authority: URL, extra: [String]) async throws -> String {
        let base = try #require(server.httpsBaseURL)
        let port = try #require(base.port)
        let result = try await ChildProcess.run(
            "openssl",
            [
                "s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", authority.path, "-verify_return_error",
                "-showcerts",
            ] + extra)
        return result.output + result.error
    }

    @Test func theMadeCertificatesPassOpenSSLsStrictChecksForEveryName() async throws {
        let folder = HTTPS.Folder()
        try await HTTPS.withServer(.generated(authorityFolder: folder.url)) { server in
            let authority = try #require(server.certificateAuthorityFile)
            // Strict: RFC 5280's rules, key identifiers included, as OpenSSL 3 reads them.
            for name in [["-verify_hostname", "localhost"], ["-verify_ip", "127.0.0.1"]] {
                let verdict = try await Self.verify(server, authority: authority, extra: name + ["-x509_strict"])
                #expect(verdict.contains("Verify return code: 0 (ok)"), "\(name): \(verdict)")
            }
            let wrongName = try await Self.verify(
                server, authority: authority, extra: ["-verify_hostname", "example.com"])
            #expect(!wrongName.contains("Verify return code: 0 (ok)"), "the certificate names localhost only")
            let text = try await ChildProcess.run("openssl", ["x509", "-in", authority.path, "-noout", "-text"])
            for expected in ["CA:TRUE, pathlen:0", "Certificate Sign, CRL Sign", "ecdsa-with-SHA256", "P-256"] {
                #expect(text.output.contains(expected), "the authority has \(expected): \(text.output)")
            }
        }
    }

    /// An authority in the folder that the server did not make: no subject key identifier (earlier versions, which
    /// made theirs with swift-certificates, wrote none) and its key in SEC 1's `EC PRIVATE KEY` form, as openssl
    /// writes it.
    @Test func anAuthorityMadeElsewhereSignsTheServersCertificates() async throws {
        let folder = HTTPS.Folder()
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let certificate = folder.url.appendingPathComponent("stuntdouble-ca.pem")
        let key = folder.url.appendingPathComponent("stuntdouble-ca-key.pem")
        let parameters = try await ChildProcess.run(
            "openssl", ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key.path])
        try #require(parameters.status == 0, "\(parameters)")
        let made = try await ChildProcess.run(
            "openssl",
            [
                "req", "-x509", "-new", "-key", key.path, "-days", "30", "-subj", "/O=Elsewhere/CN=An older authority",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
                "-addext", "subjectKeyIdentifier=none", "-addext", "authorityKeyIdentifier=none",
                "-out", certificate.path,
            ])
        try #require(made.status == 0, "\(made)")
        let keyText = try String(contentsOf: key, encoding: .utf8)
        try #require(keyText.hasPrefix("-----BEGIN EC PRIVATE KEY-----"), "SEC 1, not PKCS #8")
        let before = try Data(contentsOf: certificate)
        try await HTTPS.withServer(.generated(authorityFolder: folder.url)) { server in
            #expect(server.certificateAuthorityFile?.path == certificate.path)
            let verdict = try await Self.verify(
                server, authority: certificate, extra: ["-verify_hostname", "localhost"])
            #expect(verdict.contains("Verify return code: 0 (ok)"), "\(verdict)")
            #expect(verdict.contains("An older authority"), "the chain ends at the authority in the folder")
            try await HTTPS.withClient(trusting: certificate) { client in
                let base = try #require(server.httpsBaseURL)
                #expect(try await HTTPS.get(base.absoluteString + "/hello", with: client) == "hi")
            }
        }
        #expect(try Data(contentsOf: certificate) == before, "kept, not remade")
    }

    @Test func aKeyThatIsNotTheAuthoritysIsAnErrorThatSaysHowToMend() async throws {
        let folder = HTTPS.Folder()
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        // A whole authority made by the server, then its key replaced with another.
        try await HTTPS.withServer(.generated(authorityFolder: folder.url)) { _ in }
        let key = folder.url.appendingPathComponent("stuntdouble-ca-key.pem")
        try FileManager.default.removeItem(at: key)
        let other = try await ChildProcess.run(
            "openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key.path])
        try #require(other.status == 0, "\(other)")
        await HTTPS.expectRefusal(authorityFolder: folder.url) { error in
            "\(error)".contains("stuntdouble-ca-key.pem is not the key of") && "\(error)".contains("Remove both")
        }
    }
}
