import Foundation

/// The parts of a URL that matching and the stub index use, normalized once per request: scheme and host
/// lower-cased, default ports dropped, an empty path written `/`, percent-encoding hex upper-cased, and the
/// fragment (never sent to a server) dropped.
struct RequestRoute: Sendable, Hashable {
    let scheme: String
    /// The host, lower-cased; an IPv6 address is written in brackets.
    let host: String
    /// The host and, when it is not the scheme's default, the port.
    let authority: String
    /// The percent-encoded path.
    let path: String
    /// The percent-encoded query, without `?`, or `nil`.
    let query: String?
    /// `scheme://authority/path?query`: the key of exact-URL stubs.
    let exactKey: String
    /// `host/path` with any trailing slash removed: the key of host-and-path stubs (computed when asked:
    /// most requests never need it).
    var hostPathKey: String { host + Self.trimmingTrailingSlash(path) }
    /// Where the path starts in `exactKey`, in UTF-8 bytes.
    let pathStart: Int
    /// Where the query (its `?`) starts in `exactKey`, or its length, in UTF-8 bytes.
    let queryStart: Int

    init?(_ url: URL) {
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
        self.scheme = scheme
        self.host = host
        if let port, port != Self.defaultPort(for: scheme) {
            authority = "\(host):\(port)"
        } else {
            authority = host
        }
        let path = rawPath.isEmpty ? "/" : PercentEncoding.normalize(rawPath)
        let query = rawQuery.flatMap { $0.isEmpty ? nil : PercentEncoding.normalize($0) }
        self.path = path
        self.query = query
        var key = scheme
        key.reserveCapacity(scheme.utf8.count + authority.utf8.count + path.utf8.count + (query?.utf8.count ?? 0) + 4)
        key += "://"
        key += authority
        pathStart = key.utf8.count
        key += path
        queryStart = key.utf8.count
        if let query {
            key += "?"
            key += query
        }
        exactKey = key
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

    static func trimmingTrailingSlash(_ path: String) -> String {
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
