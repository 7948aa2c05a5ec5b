import Foundation
import NIOSSL

extension HTTPStubServer {
    /// The bytes of a keystore or trust store (`kind`); a Java keystore (its first bytes `FEEDFEED`) is an error
    /// with the `keytool` command that converts it to PKCS #12.
    static func pkcs12Bytes(_ file: URL, kind: String) throws(HTTPStubServerError) -> [UInt8] {
        guard let bytes = FileManager.default.contents(atPath: file.path) else {
            throw HTTPStubServerError(.invalidConfiguration, "The \(kind) \(file.path) cannot be read.")
        }
        if bytes.prefix(4) == Data([0xFE, 0xED, 0xFE, 0xED]) {
            let converted = kind.replacingOccurrences(of: " ", with: "") + ".p12"
            throw HTTPStubServerError(
                .invalidConfiguration,
                "\(file.path) is a Java keystore (JKS), which only Java reads: convert it to PKCS #12 with "
                    + "keytool -importkeystore -srckeystore \(file.path) -destkeystore \(converted) "
                    + "-deststoretype pkcs12 (keytool asks for both passwords), then give \(converted).")
        }
        return Array(bytes)
    }

    /// The certificate chain and key in a PKCS #12 keystore; a Java keystore (its first bytes `FEEDFEED`) or a
    /// wrong password is an error saying what to do.
    static func keystoreIdentity(_ file: URL, password: String) throws(HTTPStubServerError) -> (
        [NIOSSLCertificate], NIOSSLPrivateKey
    ) {
        let bytes = try pkcs12Bytes(file, kind: "keystore")
        do {
            let bundle = try NIOSSLPKCS12Bundle(buffer: bytes, passphrase: Array(password.utf8))
            guard !bundle.certificateChain.isEmpty else {
                throw HTTPStubServerError(.invalidConfiguration, "The keystore \(file.path) holds no certificate.")
            }
            return (bundle.certificateChain, bundle.privateKey)
        } catch let error as HTTPStubServerError {
            throw error
        } catch {
            throw HTTPStubServerError(
                .invalidConfiguration,
                "The keystore \(file.path) cannot be opened (\(error)): it must be PKCS #12 with a certificate and its "
                    + "key, and the password must be its own (--keystore-password; WireMock's default is \"password\")."
            )
        }
    }

    /// The certificates of a trust store, as NIOSSL's trust roots.
    static func trustRoots(_ store: HTTPSConfiguration.TrustStore) throws(HTTPStubServerError) -> NIOSSLTrustRoots {
        let certificates: [NIOSSLCertificate]
        let file: URL
        switch store {
        case .system:
            return .default
        case .pem(let url):
            file = url
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(url.path)
            } catch {
                throw HTTPStubServerError(
                    .invalidConfiguration,
                    "The trust store \(url.path) is not PEM certificates (\(error)): give each authority's "
                        + "certificate as -----BEGIN CERTIFICATE-----, or a PKCS #12 trust store.")
            }
        case .keystore(let url, let password):
            file = url
            let bytes = try pkcs12Bytes(url, kind: "trust store")
            do {
                certificates = try pkcs12Certificates(bytes, password: password).map {
                    try NIOSSLCertificate(bytes: Array($0.utf8), format: .pem)
                }
            } catch {
                throw HTTPStubServerError(
                    .invalidConfiguration,
                    "The trust store \(url.path) cannot be opened (\(error)): it must be PKCS #12 (or PEM), and the "
                        + "password must be its own (--truststore-password; WireMock's default is \"password\").")
            }
        }
        guard !certificates.isEmpty else {
            throw HTTPStubServerError(
                .invalidConfiguration, "The trust store \(file.path) holds no certificate: no client could be let in.")
        }
        return .certificates(certificates)
    }

    /// The TLS context of the HTTPS listener: its certificate (made, or the user's) and ALPN's `h2` and `http/1.1`.
    static func makeTLS(_ https: HTTPSConfiguration) throws(HTTPStubServerError) -> (
        context: NIOSSLContext, authorityFile: URL?
    ) {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        var authorityFile: URL?
        switch https.identity {
        case .generated(let folder):
            let authority = try CertificateAuthority.loadOrCreate(in: folder)
            do {
                (chain, key) = try authority.issueServerCertificate()
            } catch {
                throw HTTPStubServerError(.invalidConfiguration, "The server's certificate cannot be made: \(error).")
            }
            authorityFile = authority.certificateFile
        case .files(let chainFile, let keyFile):
            do {
                chain = try NIOSSLCertificate.fromPEMFile(chainFile.path)
            } catch {
                throw HTTPStubServerError(
                    .invalidConfiguration,
                    "\(chainFile.path) is not a PEM certificate chain (\(error)): give the server's certificate, then "
                        + "any intermediates, each as -----BEGIN CERTIFICATE-----.")
            }
            guard !chain.isEmpty else {
                throw HTTPStubServerError(.invalidConfiguration, "\(chainFile.path) holds no certificate.")
            }
            do {
                key = try NIOSSLPrivateKey(file: keyFile.path, format: .pem)
            } catch {
                throw HTTPStubServerError(
                    .invalidConfiguration,
                    "\(keyFile.path) is not an unencrypted PEM private key (\(error)): give the key of the first "
                        + "certificate in \(chainFile.lastPathComponent).")
            }
        case .keystore(let file, let password):
            (chain, key) = try keystoreIdentity(file, password: password)
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        if let authorities = https.clientCertificateAuthorities {
            // Verified, and required: a client without a certificate fails the handshake.
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = try trustRoots(authorities)
        }
        // ALPN: HTTP/2 for the clients that offer it, HTTP/1.1 for the rest.
        configuration.applicationProtocols = https.offersHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
        do {
            return (try NIOSSLContext(configuration: configuration), authorityFile)
        } catch {
            throw HTTPStubServerError(
                .invalidConfiguration,
                "TLS cannot be set up with that certificate and key (\(error)): check that the key belongs to the "
                    + "first certificate.")
        }
    }
}
