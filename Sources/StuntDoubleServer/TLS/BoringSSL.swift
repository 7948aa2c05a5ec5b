// The BoringSSL that NIOSSL links (its CNIOBoringSSL module): keys, certificates and digests made with the TLS
// library the server already carries, so that no second copy of BoringSSL (swift-crypto's) is compiled and linked.
internal import CNIOBoringSSL
import Foundation

/// A BoringSSL call that failed, with what BoringSSL queued about why.
struct BoringSSLFailure: Error, CustomStringConvertible {
    let description: String

    init(_ call: String) {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [UInt8](repeating: 0, count: 256)
            buffer.withUnsafeMutableBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { _ = ERR_error_string_n(code, $0.baseAddress, $0.count) }
            }
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self))
        }
        description = "\(call) failed" + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: "; ")))")
    }
}

/// An EC P-256 private key, freed with its last reference.
final class PrivateKey {
    fileprivate let pointer: OpaquePointer

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }

    /// Another reference to a key someone else owns (and frees).
    fileprivate convenience init(retaining pointer: OpaquePointer) {
        EVP_PKEY_up_ref(pointer)
        self.init(pointer: pointer)
    }

    /// A new key on P-256.
    static func generateP256() throws(BoringSSLFailure) -> PrivateKey {
        guard let ec = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1) else {
            throw BoringSSLFailure("EC_KEY_new_by_curve_name")
        }
        guard EC_KEY_generate_key(ec) == 1, let key = EVP_PKEY_new() else {
            EC_KEY_free(ec)
            throw BoringSSLFailure("EC_KEY_generate_key")
        }
        guard EVP_PKEY_assign_EC_KEY(key, ec) == 1 else {
            EC_KEY_free(ec)
            EVP_PKEY_free(key)
            throw BoringSSLFailure("EVP_PKEY_assign_EC_KEY")
        }
        return PrivateKey(pointer: key)
    }

    /// The key in a PEM file's text (`PRIVATE KEY`, `EC PRIVATE KEY` or `RSA PRIVATE KEY`), unencrypted.
    init(pem: String) throws(BoringSSLFailure) {
        guard let key = readPEM(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            throw BoringSSLFailure("reading a PEM private key")
        }
        pointer = key
    }

    /// The key as PEM (PKCS #8, `-----BEGIN PRIVATE KEY-----`).
    func pem() throws(BoringSSLFailure) -> String {
        try writePEM("writing the private key") { PEM_write_bio_PrivateKey($0, pointer, nil, nil, 0, nil, nil) }
    }
}

/// An X.509 certificate, freed with its last reference.
final class X509Certificate {
    fileprivate let pointer: OpaquePointer

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }

    /// The first certificate in a PEM file's text.
    init(pem: String) throws(BoringSSLFailure) {
        guard let certificate = readPEM(pem, { PEM_read_bio_X509($0, nil, nil, nil) }) else {
            throw BoringSSLFailure("reading a PEM certificate")
        }
        pointer = certificate
    }

    /// A version 3 certificate with a random 128-bit serial number, signed with ECDSA and SHA-256.
    /// - Parameters:
    ///   - subject: The subject's name, as `(field, value)`: `("O", "StuntDouble")`, `("CN", "localhost")`.
    ///   - key: The key the certificate is for.
    ///   - issuer: The authority that signs it, and its key; `nil` signs it with `key` itself (an authority).
    ///   - validity: When it is valid, in seconds since 1970.
    ///   - extensions: Extensions in OpenSSL's configuration syntax, in order:
    ///     `("basicConstraints", "critical,CA:TRUE")`.
    /// - Throws: ``BoringSSLFailure`` naming the step that failed (an extension BoringSSL cannot read, say).
    init(
        subject: [(String, String)], key: PrivateKey, issuer: (certificate: X509Certificate, key: PrivateKey)?,
        validity: ClosedRange<Int64>, extensions: [(String, String)]
    ) throws(BoringSSLFailure) {
        guard let certificate = X509_new() else { throw BoringSSLFailure("X509_new") }
        pointer = certificate
        guard X509_set_version(certificate, Int(X509_VERSION_3)) == 1 else {
            throw BoringSSLFailure("X509_set_version")
        }
        var serial = (0..<16).map { _ in UInt8.random(in: 0...255) }
        serial[0] = serial[0] & 0x7F | 0x40  // positive, and all 16 bytes long
        guard let number = BN_bin2bn(serial, serial.count, nil) else { throw BoringSSLFailure("BN_bin2bn") }
        defer { BN_free(number) }
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil,
            ASN1_TIME_set_posix(X509_getm_notBefore(certificate), validity.lowerBound) != nil,
            ASN1_TIME_set_posix(X509_getm_notAfter(certificate), validity.upperBound) != nil
        else { throw BoringSSLFailure("setting the serial number and validity") }
        guard let name = X509_NAME_new() else { throw BoringSSLFailure("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        for (field, value) in subject {
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, value, -1, -1, 0) == 1 else {
                throw BoringSSLFailure("adding \(field)=\(value) to the subject")
            }
        }
        guard X509_set_subject_name(certificate, name) == 1,
            X509_set_issuer_name(certificate, issuer.map { X509_get_subject_name($0.certificate.pointer) } ?? name)
                == 1,
            X509_set_pubkey(certificate, key.pointer) == 1
        else { throw BoringSSLFailure("setting the names and public key") }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.certificate.pointer ?? certificate, certificate, nil, nil, 0)
        for (field, value) in extensions {
            guard let made = X509V3_EXT_nconf(nil, &context, field, value) else {
                throw BoringSSLFailure("making the extension \(field)=\(value)")
            }
            defer { X509_EXTENSION_free(made) }
            guard X509_add_ext(certificate, made, -1) == 1 else { throw BoringSSLFailure("adding \(field)") }
        }
        guard X509_sign(certificate, (issuer?.key ?? key).pointer, EVP_sha256()) > 0 else {
            throw BoringSSLFailure("X509_sign")
        }
    }

    /// The certificate as PEM (`-----BEGIN CERTIFICATE-----`).
    func pem() throws(BoringSSLFailure) -> String {
        try writePEM("writing the certificate") { PEM_write_bio_X509($0, pointer) }
    }

    /// The end of its validity, in seconds since 1970.
    func notValidAfter() throws(BoringSSLFailure) -> Int64 {
        var seconds: Int64 = 0
        guard ASN1_TIME_to_posix(X509_get0_notAfter(pointer), &seconds) == 1 else {
            throw BoringSSLFailure("reading the certificate's validity")
        }
        return seconds
    }

    /// Whether `key` is the private key of this certificate's public key.
    func belongs(to key: PrivateKey) -> Bool {
        defer { ERR_clear_error() }
        return X509_check_private_key(pointer, key.pointer) == 1
    }
}

/// SHA-1 of `bytes` (for WebSocket's accept key, which RFC 6455 defines with it).
func sha1(_ bytes: some Collection<UInt8>) -> [UInt8] {
    let input = Array(bytes)
    var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
    _ = SHA1(input, input.count, &digest)
    return digest
}

private func readPEM(_ text: String, _ reader: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBytes { buffer in
        guard let bio = BIO_new_mem_buf(buffer.baseAddress, buffer.count) else { return nil }
        defer { BIO_free(bio) }
        return reader(bio)
    }
}

private func writePEM(_ what: String, _ write: (OpaquePointer) -> Int32) throws(BoringSSLFailure) -> String {
    guard let bio = BIO_new(BIO_s_mem()) else { throw BoringSSLFailure("BIO_new") }
    defer { BIO_free(bio) }
    var contents: UnsafePointer<UInt8>?
    var length = 0
    guard write(bio) == 1, BIO_mem_contents(bio, &contents, &length) == 1, let contents else {
        throw BoringSSLFailure(what)
    }
    return String(decoding: UnsafeBufferPointer(start: contents, count: length), as: UTF8.self)
}

/// The certificates in a PKCS #12 file, as PEM: a trust store's (certificates without keys, as `keytool
/// -importcert -storetype pkcs12` writes them), or a keystore's.
/// - Throws: ``BoringSSLFailure`` when the bytes are not PKCS #12 or the password is not theirs.
func pkcs12Certificates(_ bytes: [UInt8], password: String) throws(BoringSSLFailure) -> [String] {
    try pkcs12Contents(bytes, password: password).certificates
}

/// What a PKCS #12 file holds, as PEM: its certificates (the key's own first, when it has a key) and its private
/// key, if any.
/// - Throws: ``BoringSSLFailure`` when the bytes are not PKCS #12 or the password is not theirs.
func pkcs12Contents(_ bytes: [UInt8], password: String) throws(BoringSSLFailure) -> (
    certificates: [String], key: String?
) {
    guard let stack = sk_X509_new_null() else { throw BoringSSLFailure("sk_X509_new_null") }
    defer { sk_X509_pop_free(stack, X509_free) }
    var key: OpaquePointer?
    let status = bytes.withUnsafeBufferPointer { buffer -> Int32 in
        var input = CBS()
        CBS_init(&input, buffer.baseAddress, buffer.count)
        return PKCS12_get_key_and_certs(&key, stack, &input, password)
    }
    defer { if let key { EVP_PKEY_free(key) } }
    guard status == 1 else { throw BoringSSLFailure("reading PKCS #12") }
    var certificates: [String] = []
    for index in 0..<sk_X509_num(stack) {
        guard let certificate = sk_X509_value(stack, index) else { continue }
        certificates.append(
            try writePEM("writing a certificate") { PEM_write_bio_X509($0, certificate) })
    }
    guard let key else { return (certificates, nil) }
    // The certificate that goes with the key first (a keystore may list the authorities above it before it).
    if let own = certificates.firstIndex(where: { pem in
        (try? X509Certificate(pem: pem))?.belongs(to: PrivateKey(retaining: key)) == true
    }), own > 0 {
        certificates.insert(certificates.remove(at: own), at: 0)
    }
    return (
        certificates,
        try writePEM("writing the private key") { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
    )
}
