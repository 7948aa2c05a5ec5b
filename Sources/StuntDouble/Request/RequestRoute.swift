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
    init?(plain string: String) {
        var contiguous = string
        guard let route = contiguous.withUTF8({ Self.parsePlain($0, original: string) }) else { return nil }
        self = route
    }

    /// Parses a plain URL's bytes; a URL already in canonical form (the usual case) keeps `original` as its
    /// key, so that nothing is allocated.
    private static func parsePlain(_ bytes: UnsafeBufferPointer<UInt8>, original: String) -> RequestRoute? {
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) &- UInt8(ascii: "a") < 26 }
        func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
        func isHostByte(_ byte: UInt8) -> Bool {
            isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        let count = bytes.count
        // scheme ":" "//"
        guard count > 0, isLetter(bytes[0]) else { return nil }
        var index = 1
        while index < count, bytes[index] != UInt8(ascii: ":") {
            guard isHostByte(bytes[index]) || bytes[index] == UInt8(ascii: "+") else { return nil }
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
            index += 1
        }
        let hostEnd = index
        guard hostEnd > hostStart else { return nil }
        var port: Int?
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
            if byte == UInt8(ascii: "#"), end == count {
                end = position
            } else if byte == UInt8(ascii: "?"), queryMark == nil, end == count {
                queryMark = position
            }
        }
        let pathEnd = queryMark ?? end
        let hasQuery = queryMark.map { $0 + 1 < end } ?? false
        let scheme = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<schemeEnd]), as: UTF8.self)
        let writtenPort = port.flatMap { $0 == defaultPort(for: scheme.asciiLowercased) ? nil : String($0) }
        if let canonical = canonicalRoute(
            bytes, original: original, schemeEnd: schemeEnd, hostEnd: hostEnd, writtenPort: writtenPort,
            pathStart: pathStart, pathEnd: pathEnd, hasQuery: hasQuery, end: end)
        {
            return canonical
        }
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
    /// non-canonical port, a path, no empty query, no fragment, upper-case percent-encoding hex; else `nil`.
    private static func canonicalRoute(
        _ bytes: UnsafeBufferPointer<UInt8>, original: String, schemeEnd: Int, hostEnd: Int, writtenPort: String?,
        pathStart: Int, pathEnd: Int, hasQuery: Bool, end: Int
    ) -> RequestRoute? {
        guard end == bytes.count, pathEnd > pathStart, bytes[pathStart] == UInt8(ascii: "/"),
            hasQuery || pathEnd == end
        else { return nil }
        for position in 0..<hostEnd where bytes[position] &- UInt8(ascii: "A") < 26 {
            return nil
        }
        // The port as written (if any) must be the one the key writes.
        let writtenLength = writtenPort.map { $0.utf8.count + 1 } ?? 0
        guard pathStart - hostEnd == writtenLength else { return nil }
        if let writtenPort, !writtenPort.utf8.elementsEqual(bytes[(hostEnd + 1)..<pathStart]) { return nil }
        var position = pathStart
        while position + 2 < end {
            if bytes[position] == UInt8(ascii: "%"), PercentEncoding.isHex(bytes[position + 1]),
                PercentEncoding.isHex(bytes[position + 2])
            {
                if bytes[position + 1] >= UInt8(ascii: "a") || bytes[position + 2] >= UInt8(ascii: "a") { return nil }
                position += 3
            } else {
                position += 1
            }
        }
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
