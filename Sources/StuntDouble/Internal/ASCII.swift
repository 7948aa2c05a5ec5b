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

extension String {
    /// The text with `prefix` inserted after each line break: a multi-line description nested in a report.
    /// Swift only (Foundation's `replacingOccurrences` bridges through NSString, the larger part of an
    /// unmatched request's cost when it was used here).
    func indentingLines(with prefix: String) -> String {
        var text = self
        var indent = prefix
        return text.withUTF8 { source in
            let breaks = source.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            guard breaks > 0 else { return self }
            return indent.withUTF8 { indent in
                String(unsafeUninitializedCapacity: source.count + breaks * indent.count) { buffer in
                    var written = 0
                    for byte in source {
                        buffer[written] = byte
                        written += 1
                        if byte == UInt8(ascii: "\n") {
                            for piece in indent {
                                buffer[written] = piece
                                written += 1
                            }
                        }
                    }
                    return written
                }
            }
        }
    }
}
