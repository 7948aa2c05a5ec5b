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
            let newline = UInt8(ascii: "\n")
            let breaks = source.reduce(0) { $0 + ($1 == newline ? 1 : 0) }
            guard breaks > 0, let base = source.baseAddress else { return self }
            return indent.withUTF8 { indent in
                String(unsafeUninitializedCapacity: source.count + breaks * indent.count) { buffer in
                    // Line by line, each copied whole: a report is kilobytes of text on every unmatched request.
                    guard let target = buffer.baseAddress else { return 0 }
                    var written = 0
                    var start = 0
                    while start < source.count {
                        let end = source[start...].firstIndex(of: newline).map { $0 + 1 } ?? source.count
                        (target + written).update(from: base + start, count: end - start)
                        written += end - start
                        if source[end - 1] == newline, let indentBase = indent.baseAddress {
                            (target + written).update(from: indentBase, count: indent.count)
                            written += indent.count
                        }
                        start = end
                    }
                    return written
                }
            }
        }
    }
}
