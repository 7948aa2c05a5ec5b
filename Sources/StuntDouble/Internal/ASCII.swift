extension String {
    /// The string with ASCII letters lower-cased and every other character as it is: how HTTP compares header
    /// names, schemes and hosts. Returns the string itself, without allocating, when it has no upper-case
    /// ASCII letter.
    var asciiLowercased: String {
        guard utf8.contains(where: { $0 &- UInt8(ascii: "A") < 26 }) else { return self }
        return String(decoding: utf8.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
