import Foundation
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A certificate authority for local HTTPS: made once and kept in a folder, so that a client trusts it once;
/// it signs a certificate for `localhost`, `127.0.0.1` and `::1` each time a server starts.
struct CertificateAuthority {
    static let certificateFileName = "stuntdouble-ca.pem"
    static let keyFileName = "stuntdouble-ca-key.pem"

    /// The authority's certificate and key, as PEM.
    let certificatePEM: String
    let keyPEM: String
    /// The authority's certificate file, for clients to trust (`nil` for one read from a keystore).
    let certificateFile: URL?

    /// The authority kept in `folder`, made there when it has none.
    /// - Throws: ``HTTPStubServerError`` naming the file and what is wrong (unreadable, not a certificate, a key
    ///   that does not belong to it, a folder that cannot be written).
    static func loadOrCreate(in folder: URL) throws(HTTPStubServerError) -> CertificateAuthority {
        let certificateFile = folder.appendingPathComponent(certificateFileName)
        let keyFile = folder.appendingPathComponent(keyFileName)
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw HTTPStubServerError(
                .invalidConfiguration,
                "The folder \(folder.path) for the certificate authority cannot be made: \(error). Give a folder you can "
                    + "write (--https-ca-folder), or your own certificate and key (--https-certificate, --https-key).")
        }
        // Servers starting at once make one authority, not one each.
        let lock = open(folder.appendingPathComponent(".stuntdouble-ca.lock").path, O_CREAT | O_RDWR, 0o600)
        if lock >= 0 { flock(lock, LOCK_EX) }
        defer {
            if lock >= 0 {
                flock(lock, LOCK_UN)
                close(lock)
            }
        }
        if manager.fileExists(atPath: certificateFile.path) || manager.fileExists(atPath: keyFile.path) {
            do {
                let certificatePEM = try String(contentsOf: certificateFile, encoding: .utf8)
                let keyPEM = try String(contentsOf: keyFile, encoding: .utf8)
                let certificate = try X509Certificate(pem: certificatePEM)
                guard certificate.belongs(to: try PrivateKey(pem: keyPEM)) else {
                    throw HTTPStubServerError(
                        .invalidConfiguration,
                        "\(keyFile.path) is not the key of \(certificateFile.path). Remove both to make a new "
                            + "authority (and trust it again).")
                }
                guard try certificate.notValidAfter() > Int64(Date().timeIntervalSince1970) + 86400 else {
                    throw HTTPStubServerError(
                        .invalidConfiguration,
                        "The certificate authority \(certificateFile.path) has expired (or does within a day). Remove "
                            + "\(certificateFileName) and \(keyFileName) in \(folder.path) to make a new one, and trust "
                            + "that.")
                }
                return CertificateAuthority(
                    certificatePEM: certificatePEM, keyPEM: keyPEM, certificateFile: certificateFile)
            } catch let error as HTTPStubServerError {
                throw error
            } catch {
                throw HTTPStubServerError(
                    .invalidConfiguration,
                    "The certificate authority in \(folder.path) cannot be read (\(error)). Remove "
                        + "\(certificateFileName) and \(keyFileName) there to make a new one (and trust it again).")
            }
        }
        do {
            let key = try PrivateKey.generateP256()
            let now = Int64(Date().timeIntervalSince1970)
            let certificate = try X509Certificate(
                subject: [("O", "StuntDouble"), ("CN", "StuntDouble local certificate authority")], key: key,
                issuer: nil, validity: (now - 3600)...(now + 10 * 365 * 86400),
                extensions: [
                    ("basicConstraints", "critical,CA:TRUE,pathlen:0"), ("keyUsage", "critical,keyCertSign,cRLSign"),
                    ("subjectKeyIdentifier", "hash"),
                ])
            let keyPEM = try key.pem()
            let certificatePEM = try certificate.pem()
            // The key first, readable by its owner alone from its first byte; the certificate last, so that a
            // half-made pair is never taken for a whole one.
            let keyStaging = folder.appendingPathComponent(".\(keyFileName).\(UUID().uuidString)")
            guard
                manager.createFile(
                    atPath: keyStaging.path, contents: Data(keyPEM.utf8),
                    attributes: [.posixPermissions: 0o600])
            else {
                throw HTTPStubServerError(.invalidConfiguration, "\(keyStaging.path) cannot be written.")
            }
            guard rename(keyStaging.path, keyFile.path) == 0 else {
                try? manager.removeItem(at: keyStaging)
                throw HTTPStubServerError(.invalidConfiguration, "\(keyFile.path) cannot be written.")
            }
            try Data(certificatePEM.utf8).write(to: certificateFile, options: .atomic)
            return CertificateAuthority(
                certificatePEM: certificatePEM, keyPEM: keyPEM, certificateFile: certificateFile)
        } catch {
            throw HTTPStubServerError(
                .invalidConfiguration,
                "A certificate authority cannot be made in \(folder.path): \(error). Give a folder you can write "
                    + "(--https-ca-folder), or your own certificate and key (--https-certificate, --https-key).")
        }
    }

    /// The authority in a PKCS #12 keystore (WireMock's `--ca-keystore`): its certificate and key.
    /// - Throws: ``HTTPStubServerError`` naming the file and what is wrong (a Java keystore, a wrong password, no
    ///   key, a certificate that is not an authority's).
    static func load(keystore file: URL, password: String) throws(HTTPStubServerError) -> CertificateAuthority {
        let bytes = try HTTPStubServer.pkcs12Bytes(file, kind: "CA keystore")
        let contents: (certificates: [String], key: String?)
        do {
            contents = try pkcs12Contents(bytes, password: password)
        } catch {
            throw HTTPStubServerError(
                .invalidConfiguration,
                "The CA keystore \(file.path) cannot be opened (\(error)): it must be PKCS #12 with the authority's "
                    + "certificate and key, and the password must be its own (--ca-keystore-password; WireMock's "
                    + "default is \"password\").")
        }
        guard let keyPEM = contents.key, let certificatePEM = contents.certificates.first else {
            throw HTTPStubServerError(
                .invalidConfiguration,
                "The CA keystore \(file.path) holds no certificate with its key: it must hold the authority's own "
                    + "certificate and private key, to sign a certificate for each host a browser asks for.")
        }
        return CertificateAuthority(certificatePEM: certificatePEM, keyPEM: keyPEM, certificateFile: nil)
    }

    /// A certificate for the local server, signed by the authority: its chain (leaf, authority) and key.
    func issueServerCertificate() throws -> (chain: [NIOSSLCertificate], key: NIOSSLPrivateKey) {
        try issue(commonName: "localhost", alternativeNames: "DNS:localhost,IP:127.0.0.1,IP:::1", key: .generateP256())
    }

    /// A certificate for `host` (a name, or an IPv4 or IPv6 address), signed by the authority, for `key`; `nil`
    /// when `host` is neither (it is written into the certificate: nothing else may stand in it).
    func issueCertificate(for host: String, key: PrivateKey) throws -> (
        chain: [NIOSSLCertificate], key: NIOSSLPrivateKey
    )? {
        let name: String
        if Self.isAddress(host) {
            name = "IP:\(host)"
        } else if !host.isEmpty, host.count <= 253,
            host.utf8.allSatisfy({ byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            })
        {
            name = "DNS:\(host)"
        } else {
            return nil
        }
        return try issue(commonName: host, alternativeNames: name, key: key)
    }

    /// Whether `text` is an IPv4 or IPv6 address.
    static func isAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    private func issue(commonName: String, alternativeNames: String, key: PrivateKey) throws -> (
        chain: [NIOSSLCertificate], key: NIOSSLPrivateKey
    ) {
        let authority = (certificate: try X509Certificate(pem: certificatePEM), key: try PrivateKey(pem: keyPEM))
        let now = Int64(Date().timeIntervalSince1970)
        let leaf = try X509Certificate(
            subject: [("CN", commonName)], key: key, issuer: authority,
            validity: (now - 3600)...min(now + 365 * 86400, try authority.certificate.notValidAfter()),
            extensions: [
                ("basicConstraints", "critical,CA:FALSE"), ("keyUsage", "critical,digitalSignature"),
                ("extendedKeyUsage", "serverAuth"), ("subjectAltName", alternativeNames),
                // The authority's key identifier when it has one (an authority made by openssl, or by this server).
                ("subjectKeyIdentifier", "hash"), ("authorityKeyIdentifier", "keyid"),
            ])
        let chain = try [leaf.pem(), certificatePEM].map { pem in
            try NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem)
        }
        return (chain, try NIOSSLPrivateKey(bytes: Array(key.pem().utf8), format: .pem))
    }
}
