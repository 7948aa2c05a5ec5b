import Foundation

/// Hands out identifiers that are unique for the life of the process.
enum UniqueID {
    private static let counter = Locked<UInt64>(0)

    static func next() -> UInt64 {
        counter.withLock { value in
            value += 1
            return value
        }
    }
}

/// Identifiers that depend only on a name: the same on every run and every machine, so that files written
/// twice from the same input are the same, and a mapping without an `id` keeps one across loads.
package enum StableID {
    /// A version 8 (custom) UUID made of two 64-bit FNV-1a hashes of `key`.
    package static func uuid(for key: String) -> UUID {
        func fnv(seed: UInt64) -> UInt64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
            for byte in key.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            return hash
        }
        let high = fnv(seed: 0)
        let low = fnv(seed: 0x9E37_79B9_7F4A_7C15)
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
            bytes[index + 8] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
        // Version 8: a valid UUID that says it was not drawn at random.
        return UUID(bytes: bytes, version: 8)
    }
}

extension UUID {
    /// A UUID of 16 bytes, with its version (4 for random, 8 for made otherwise) and RFC 9562's variant set.
    package init(bytes: [UInt8], version: UInt8) {
        var bytes = bytes
        bytes[6] = (bytes[6] & 0x0F) | (version << 4)
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        self.init(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
