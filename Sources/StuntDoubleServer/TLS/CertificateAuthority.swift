import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

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

    let certificate: Certificate
    let key: P256.Signing.PrivateKey
    /// The authority's certificate file, for clients to trust.
    let certificateFile: URL

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
                let certificate = try Certificate(pemEncoded: String(contentsOf: certificateFile, encoding: .utf8))
                let key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOf: keyFile, encoding: .utf8))
                guard Certificate.PublicKey(key.publicKey) == certificate.publicKey else {
                    throw HTTPStubServerError(
                        .invalidConfiguration,
                        "\(keyFile.path) is not the key of \(certificateFile.path). Remove both to make a new "
                            + "authority (and trust it again).")
                }
                guard certificate.notValidAfter > Date().addingTimeInterval(86400) else {
                    throw HTTPStubServerError(
                        .invalidConfiguration,
                        "The certificate authority \(certificateFile.path) has expired (or does within a day). Remove "
                            + "\(certificateFileName) and \(keyFileName) in \(folder.path) to make a new one, and trust "
                            + "that.")
                }
                return CertificateAuthority(certificate: certificate, key: key, certificateFile: certificateFile)
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
            let key = P256.Signing.PrivateKey()
            let name = try DistinguishedName {
                OrganizationName("StuntDouble")
                CommonName("StuntDouble local certificate authority")
            }
            let now = Date()
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(10 * 365 * 86400),
                issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                }, issuerPrivateKey: .init(key))
            // The key first, readable by its owner alone from its first byte; the certificate last, so that a
            // half-made pair is never taken for a whole one.
            let keyStaging = folder.appendingPathComponent(".\(keyFileName).\(UUID().uuidString)")
            guard
                manager.createFile(
                    atPath: keyStaging.path, contents: Data(key.pemRepresentation.utf8),
                    attributes: [.posixPermissions: 0o600])
            else {
                throw HTTPStubServerError(.invalidConfiguration, "\(keyStaging.path) cannot be written.")
            }
            guard rename(keyStaging.path, keyFile.path) == 0 else {
                try? manager.removeItem(at: keyStaging)
                throw HTTPStubServerError(.invalidConfiguration, "\(keyFile.path) cannot be written.")
            }
            try Data(certificate.serializeAsPEM().pemString.utf8).write(to: certificateFile, options: .atomic)
            return CertificateAuthority(certificate: certificate, key: key, certificateFile: certificateFile)
        } catch {
            throw HTTPStubServerError(
                .invalidConfiguration,
                "A certificate authority cannot be made in \(folder.path): \(error). Give a folder you can write "
                    + "(--https-ca-folder), or your own certificate and key (--https-certificate, --https-key).")
        }
    }

    /// A certificate for the local server, signed by the authority: its chain (leaf, authority) and key.
    func issueServerCertificate() throws -> (chain: [NIOSSLCertificate], key: NIOSSLPrivateKey) {
        let key = P256.Signing.PrivateKey()
        let now = Date()
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: min(now.addingTimeInterval(365 * 86400), certificate.notValidAfter),
            issuer: certificate.subject,
            subject: try DistinguishedName { CommonName("localhost") }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                    .ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
                ])
            }, issuerPrivateKey: .init(self.key))
        let chain = try [leaf, certificate].map { certificate in
            try NIOSSLCertificate(bytes: Array(certificate.serializeAsPEM().pemString.utf8), format: .pem)
        }
        return (chain, try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem))
    }
}
