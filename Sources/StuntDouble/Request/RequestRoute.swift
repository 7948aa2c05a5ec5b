import Foundation

/// The parts of a URL that matching and the stub index use, normalized once per request: scheme and host
/// lower-cased, default ports dropped, an empty path written `/`, percent-encoding hex upper-cased, and the
/// fragment (never sent to a server) dropped.
package struct RequestRoute: Sendable, Hashable {
    /// `scheme://authority/path?query`: the key of exact-URL stubs, and where every other part is read from.
    let exactKey: String
    /// Where the scheme's `:` is in `exactKey`, in UTF-8 bytes.
    private let schemeEnd: Int
    /// Where the host ends (and the port's `:` or the path starts) in `exactKey`, in UTF-8 bytes.
    private let hostEnd: Int
    /// Where the path starts in `exactKey`, in UTF-8 bytes.
    let pathStart: Int
    /// Where the query (its `?`) starts in `exactKey`, or its length, in UTF-8 bytes.
    let queryStart: Int

    /// The scheme, lower-cased.
    var scheme: String { text(0, schemeEnd) }
    /// The host, lower-cased; an IPv6 address is written in brackets.
    var host: String { text(schemeEnd + 3, hostEnd) }
    /// The host and, when it is not the scheme's default, the port.
    var authority: String { text(schemeEnd + 3, pathStart) }
    /// The percent-encoded path.
    package var path: String { text(pathStart, queryStart) }
    /// The path, as a part of `exactKey` (no copy).
    var pathSlice: Substring { slice(pathStart, queryStart) }
    /// The percent-encoded query, without `?`, or `nil`.
    package var query: String? {
        let count = exactKey.utf8.count
        return queryStart < count ? text(queryStart + 1, count) : nil
    }
    /// `host/path` with any trailing slash removed: the key of host-and-path stubs (computed when asked:
    /// most requests never need it).
    var hostPathKey: String { host + Self.trimmingTrailingSlash(path) }

    private func text(_ start: Int, _ end: Int) -> String {
        String(slice(start, end))
    }

    private func slice(_ start: Int, _ end: Int) -> Substring {
        let bytes = exactKey.utf8
        return Substring(
            bytes[bytes.index(bytes.startIndex, offsetBy: start)..<bytes.index(bytes.startIndex, offsetBy: end)])
    }

    init?(_ url: URL) {
        if let route = Self(plain: url.absoluteString) {
            self = route
        } else {
            self.init(foundationParsing: url)
        }
    }

    /// The route as Foundation's URL accessors give its parts: for every URL, at a few microseconds.
    init?(foundationParsing url: URL) {
        guard let scheme = url.scheme.map(\.asciiLowercased), let rawHost = Self.canonicalHost(of: url) else {
            return nil
        }
        self.init(
            scheme: scheme, host: rawHost, port: url.port, path: url.path(percentEncoded: true),
            query: url.query(percentEncoded: true))
    }

    init(scheme: String, host rawHost: String, port: Int?, path rawPath: String, query rawQuery: String?) {
        let lowered = rawHost.asciiLowercased
        let host = lowered.utf8.contains(UInt8(ascii: ":")) && !lowered.hasPrefix("[") ? "[\(lowered)]" : lowered
        let path = rawPath.isEmpty ? "/" : PercentEncoding.normalize(rawPath)
        let query = rawQuery.flatMap { $0.isEmpty ? nil : PercentEncoding.normalize($0) }
        var key = scheme
        key += "://"
        key += host
        hostEnd = key.utf8.count
        if let port, port != Self.defaultPort(for: scheme) {
            key += ":\(port)"
        }
        pathStart = key.utf8.count
        key += path
        queryStart = key.utf8.count
        if let query {
            key += "?"
            key += query
        }
        schemeEnd = scheme.utf8.count
        exactKey = key
    }

    private init(exactKey: String, schemeEnd: Int, hostEnd: Int, pathStart: Int, queryStart: Int) {
        self.exactKey = exactKey
        self.schemeEnd = schemeEnd
        self.hostEnd = hostEnd
        self.pathStart = pathStart
        self.queryStart = queryStart
    }

    /// The route of a plain absolute URL string, read and written in one pass over its bytes:
    /// `scheme://host[:port]` with a host of ASCII letters, digits, `-` and `.`, then a path and query of
    /// visible ASCII. `nil` for anything else (user info, IPv6, percent-encoded or Unicode hosts, spaces ...),
    /// which Foundation parses instead. Both give the same route for every URL this accepts (the fuzzer
    /// `FuzzURLMatcher` checks it).
    ///
    /// With `requiringNoEncoding`, also `nil` when a byte of the path, query or fragment could not stand in a URL
    /// as it is (RFC 3986: unreserved, reserved, or `%` before two hex digits), checked in the same pass.
    init?(plain string: String, requiringNoEncoding: Bool = false) {
        var contiguous = string
        guard
            let route = contiguous.withUTF8({
                Self.parsePlain($0, original: string, requiringNoEncoding: requiringNoEncoding)
            })
        else { return nil }
        self = route
    }

    /// Whether the byte at `position` may stand in a URL as it is: unreserved or reserved (RFC 3986), or a `%`
    /// before two hex digits.
    @inline(__always)
    private static func needsNoEncoding(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Bool {
        switch bytes[position] {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"),
            UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"),
            UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"),
            UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        case UInt8(ascii: "%"):
            position + 2 < bytes.count && PercentEncoding.isHex(bytes[position + 1])
                && PercentEncoding.isHex(bytes[position + 2])
        default:
            false
        }
    }

    /// Parses a plain URL's bytes; a URL already in canonical form (the usual case) keeps `original` as its
    /// key, so that nothing is allocated.
    private static func parsePlain(
        _ bytes: UnsafeBufferPointer<UInt8>, original: String, requiringNoEncoding: Bool
    ) -> RequestRoute? {
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) &- UInt8(ascii: "a") < 26 }
        func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
        func isHostByte(_ byte: UInt8) -> Bool {
            isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        let count = bytes.count
        // scheme ":" "//"
        guard count > 0, isLetter(bytes[0]) else { return nil }
        // What makes the URL other than its key, noted as it is read (not read again): an upper-case letter in
        // the scheme or host, a percent escape with lower-case hex digits.
        var hasUppercase = bytes[0] &- UInt8(ascii: "A") < 26
        var hasLowercaseEscape = false
        var index = 1
        while index < count, bytes[index] != UInt8(ascii: ":") {
            guard isHostByte(bytes[index]) || bytes[index] == UInt8(ascii: "+") else { return nil }
            hasUppercase = hasUppercase || bytes[index] &- UInt8(ascii: "A") < 26
            index += 1
        }
        let schemeEnd = index
        guard index + 2 < count, bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") else {
            return nil
        }
        index += 3
        // host [":" port]
        let hostStart = index
        while index < count, isHostByte(bytes[index]) {
            hasUppercase = hasUppercase || bytes[index] &- UInt8(ascii: "A") < 26
            index += 1
        }
        let hostEnd = index
        guard hostEnd > hostStart else { return nil }
        var port: Int?
        var portDigits = 0..<0
        if index < count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            var value = 0
            let digitsStart = index
            while index < count, isDigit(bytes[index]) {
                value = value * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
                guard value <= 65_535 else { return nil }
                index += 1
            }
            guard index > digitsStart else { return nil }
            port = value
            portDigits = digitsStart..<index
        }
        // path ["?" query] ["#" fragment], visible ASCII only
        guard
            index == count || bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?")
                || bytes[index] == UInt8(ascii: "#")
        else { return nil }
        let pathStart = index
        var queryMark: Int?
        var end = count
        for position in pathStart..<count {
            let byte = bytes[position]
            guard byte > 0x20, byte < 0x7F else { return nil }
            if requiringNoEncoding, !needsNoEncoding(bytes, at: position) { return nil }
            if byte == UInt8(ascii: "%"), position + 2 < count, PercentEncoding.isHex(bytes[position + 1]),
                PercentEncoding.isHex(bytes[position + 2]),
                bytes[position + 1] >= UInt8(ascii: "a") || bytes[position + 2] >= UInt8(ascii: "a")
            {
                hasLowercaseEscape = true
            }
            if byte == UInt8(ascii: "#"), end == count {
                end = position
            } else if byte == UInt8(ascii: "?"), queryMark == nil, end == count {
                queryMark = position
            }
        }
        let pathEnd = queryMark ?? end
        let hasQuery = queryMark.map { $0 + 1 < end } ?? false
        // The port the key writes: none when it is the scheme's default (read from the scheme's bytes, with no
        // string made for the usual URL).
        let keepsPort = port.map { $0 != defaultPort(scheme: UnsafeBufferPointer(rebasing: bytes[0..<schemeEnd])) }
        // The port as written is the key's when it is kept and has no leading zero.
        let portIsKeysAsWritten = portDigits.count == 1 || bytes[portDigits.lowerBound] != UInt8(ascii: "0")
        if keepsPort != true || portIsKeysAsWritten, !hasUppercase, !hasLowercaseEscape,
            let canonical = canonicalRoute(
                bytes, original: original, schemeEnd: schemeEnd, hostEnd: hostEnd,
                keyPortLength: keepsPort == true ? portDigits.count + 1 : 0,
                pathStart: pathStart, pathEnd: pathEnd, hasQuery: hasQuery, end: end)
        {
            return canonical
        }
        let writtenPort = keepsPort == true ? port.map { String($0) } : nil
        // scheme "://" host [":" port] path ["?" query], lower-casing scheme and host, upper-casing the hex
        // digits of percent-encoded bytes.
        let capacity = count + 1 + (writtenPort?.utf8.count ?? 0) + 1
        var offsets = (hostEnd: 0, pathStart: 0, queryStart: 0, length: 0)
        let key = String(unsafeUninitializedCapacity: capacity) { output in
            var out = 0
            func put(_ byte: UInt8) {
                output[out] = byte
                out += 1
            }
            for position in 0..<hostEnd where position < schemeEnd || position >= schemeEnd + 3 {
                let byte = bytes[position]
                put(byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte)
                if position + 1 == schemeEnd {
                    put(UInt8(ascii: ":"))
                    put(UInt8(ascii: "/"))
                    put(UInt8(ascii: "/"))
                }
            }
            offsets.hostEnd = out
            if let writtenPort {
                put(UInt8(ascii: ":"))
                for byte in writtenPort.utf8 { put(byte) }
            }
            offsets.pathStart = out
            if pathEnd == pathStart { put(UInt8(ascii: "/")) }
            var position = pathStart
            let copyEnd = hasQuery ? end : pathEnd
            while position < copyEnd {
                let byte = bytes[position]
                if byte == UInt8(ascii: "?"), position == queryMark { offsets.queryStart = out }
                put(byte)
                if byte == UInt8(ascii: "%"), position + 2 < copyEnd, PercentEncoding.isHex(bytes[position + 1]),
                    PercentEncoding.isHex(bytes[position + 2])
                {
                    put(bytes[position + 1] >= UInt8(ascii: "a") ? bytes[position + 1] - 32 : bytes[position + 1])
                    put(bytes[position + 2] >= UInt8(ascii: "a") ? bytes[position + 2] - 32 : bytes[position + 2])
                    position += 3
                } else {
                    position += 1
                }
            }
            if !hasQuery { offsets.queryStart = out }
            offsets.length = out
            return out
        }
        return RequestRoute(
            exactKey: key, schemeEnd: schemeEnd, hostEnd: offsets.hostEnd, pathStart: offsets.pathStart,
            queryStart: offsets.queryStart)
    }

    /// The route of a plain URL whose string is already its key: lower-case scheme and host, no default or
    /// non-canonical port, a path, no empty query, no fragment, upper-case percent-encoding hex (the caller checks
    /// the case of letters); else `nil`.
    private static func canonicalRoute(
        _ bytes: UnsafeBufferPointer<UInt8>, original: String, schemeEnd: Int, hostEnd: Int, keyPortLength: Int,
        pathStart: Int, pathEnd: Int, hasQuery: Bool, end: Int
    ) -> RequestRoute? {
        guard end == bytes.count, pathEnd > pathStart, bytes[pathStart] == UInt8(ascii: "/"),
            hasQuery || pathEnd == end
        else { return nil }
        // (Upper-case letters in the scheme and host, and lower-case hex digits in escapes, were ruled out as the
        // URL was read.) The port as written (if any) must be the one the key writes (`:` and its digits, or nothing).
        guard pathStart - hostEnd == keyPortLength else { return nil }
        return RequestRoute(
            exactKey: original, schemeEnd: schemeEnd, hostEnd: hostEnd, pathStart: pathStart, queryStart: pathEnd)
    }

    /// `scheme://authority/path`, what absolute URI templates match.
    var withoutQuery: Substring {
        let key = exactKey.utf8
        return Substring(key[..<key.index(key.startIndex, offsetBy: queryStart)])
    }

    /// Calls `body` with the UTF-8 bytes of part of `exactKey`, without copying them: from the scheme or the
    /// path, with or without the query.
    func withBytes<Result>(
        fromPath: Bool, withQuery: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        let start = fromPath ? pathStart : 0
        let end = withQuery ? exactKey.utf8.count : queryStart
        if let result = exactKey.utf8.withContiguousStorageIfAvailable({ whole in
            body(UnsafeBufferPointer(rebasing: whole[start..<end]))
        }) {
            return result
        }
        return Array(exactKey.utf8)[start..<end].withUnsafeBufferPointer(body)
    }

    /// The path without its trailing slashes (`trimmingTrailingSlash(path)`): the key of path stubs, made from the
    /// key's bytes in place (slicing the key and trimming the slice cost 550 instructions a request).
    var pathKey: String {
        withBytes(fromPath: true, withQuery: false) { bytes in
            var count = bytes.count
            while count > 0, bytes[count - 1] == UInt8(ascii: "/") { count -= 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<count]), as: UTF8.self)
        }
    }

    /// Whether the path (with `?` and the query after it, when `withQuery`) is `text`, byte for byte: what
    /// `path == text` says, with no string made.
    package func pathIs(_ text: String, withQuery: Bool) -> Bool {
        var text = text
        return text.withUTF8 { expected in
            withBytes(fromPath: true, withQuery: withQuery) { bytes in
                bytes.count == expected.count
                    && (bytes.isEmpty || memcmp(bytes.baseAddress!, expected.baseAddress!, bytes.count) == 0)
            }
        }
    }

    /// The default port of a scheme given as its bytes, in any case: `defaultPort(for:)` with no string made.
    private static func defaultPort(scheme bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        func lowered(_ index: Int) -> UInt8 { bytes[index] | 0x20 }
        switch bytes.count {
        case 2 where lowered(0) == UInt8(ascii: "w") && lowered(1) == UInt8(ascii: "s"):
            return 80
        case 3
        where lowered(0) == UInt8(ascii: "w") && lowered(1) == UInt8(ascii: "s") && lowered(2) == UInt8(ascii: "s"):
            return 443
        case 4, 5:
            guard lowered(0) == UInt8(ascii: "h"), lowered(1) == UInt8(ascii: "t"), lowered(2) == UInt8(ascii: "t"),
                lowered(3) == UInt8(ascii: "p")
            else { return nil }
            if bytes.count == 4 { return 80 }
            return lowered(4) == UInt8(ascii: "s") ? 443 : nil
        default:
            return nil
        }
    }

    static func defaultPort(for scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }

    package static func trimmingTrailingSlash(_ path: String) -> String {
        guard path.utf8.last == UInt8(ascii: "/") else { return path }
        var trimmed = Substring(path)
        while trimmed.utf8.last == UInt8(ascii: "/") {
            trimmed = trimmed.dropLast()
        }
        return String(trimmed)
    }

    /// The host as matching compares it: decoded as Foundation gives it, with a Unicode name in its
    /// ASCII (IDNA) form, and with the URL delimiters that decoding can expose (`a%2Fb`) encoded again, so
    /// no host reads like a host and a path.
    static func canonicalHost(of url: URL) -> String? {
        guard var host = url.host, !host.isEmpty else { return nil }
        if host.utf8.contains(where: { $0 >= 0x80 }), let ascii = URL(string: "http://\(host)/")?.host, !ascii.isEmpty {
            host = ascii
        }
        guard host.utf8.contains(where: isDelimiter) else { return host }
        var escaped = ""
        for scalar in host.unicodeScalars {
            if scalar.isASCII, isDelimiter(UInt8(scalar.value)) {
                escaped += "%" + String(scalar.value, radix: 16, uppercase: true)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// `/`, `?`, `#` and `@`: bytes that would make a host read as a host and more.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "@")
    }

}
