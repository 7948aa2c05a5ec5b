import CNIOBoringSSL
import Foundation
import Testing

/// SHA-256, fed piece by piece (a body as it arrives), from the BoringSSL that NIOSSL links.
struct SHA256Hasher {
    private var context = SHA256_CTX()

    init() {
        SHA256_Init(&context)
    }

    /// Adds `bytes` to what is hashed.
    mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) {
        _ = SHA256_Update(&context, bytes.baseAddress, bytes.count)
    }

    /// The digest of everything added, in hexadecimal.
    mutating func finalize() -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = SHA256_Final(&digest, &context)
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}

extension Data {
    /// SHA-256 of the bytes, in hexadecimal.
    var sha256: String {
        var hasher = SHA256Hasher()
        withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return hasher.finalize()
    }
}

/// The response matrix's digests are SHA-256's: FIPS 180-2's test vectors, whole and piece by piece.
@Suite struct SHA256HasherTests {
    @Test func fipsVectors() {
        #expect(Data("abc".utf8).sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Data().sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let million = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        var hasher = SHA256Hasher()
        for start in stride(from: 0, to: million.count, by: 4093) {
            million[start..<min(start + 4093, million.count)].withUnsafeBytes { hasher.update(bufferPointer: $0) }
        }
        #expect(hasher.finalize() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
