extension String {
    /// The string with ASCII letters lower-cased and every other character as it is: how HTTP compares header
    /// names, schemes and hosts. Returns the string itself, without allocating, when it has no upper-case
    /// ASCII letter.
    var asciiLowercased: String {
        var text = self
        return text.withUTF8 { bytes -> String in
            guard bytes.contains(where: { $0 &- UInt8(ascii: "A") < 26 }) else { return self }
            // Written in place: no intermediate array (header names are lower-cased on every request).
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for index in 0..<bytes.count {
                    let byte = bytes[index]
                    buffer[index] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
                }
                return bytes.count
            }
        }
    }
}
