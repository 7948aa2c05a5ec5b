/// Reads the cookies a request sends in its `Cookie` fields (RFC 6265 §4.2.1 and §5.4): `name=value` pairs
/// separated by `;`. The one reader of cookies for every module: stub-file matchers, response templates, the
/// admin API's request listings and OpenAPI's cookie parameters all see the same cookies.
///
/// - Every `Cookie` field counts, in order (HTTP/2 clients may send one field per cookie, RFC 9113 §8.2.3).
/// - Spaces and tabs around names and values are not part of them.
/// - An empty value is a value: `units=` is the cookie `units` with the value `""`.
/// - A value keeps what it was sent with, double quotes included (RFC 6265 makes them part of the value).
/// - A piece with no `=`, or no name before it, names no cookie and is left out (a browser sends a cookie that
///   has no name as its value alone).
/// - Repeated names are kept, each in its place: a matcher or a template sees every value.
package enum CookieHeader {
    /// The cookies of `fields`, the values of a request's `Cookie` fields.
    package static func pairs(in fields: some Sequence<String>) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for field in fields {
            for piece in field.split(separator: ";", omittingEmptySubsequences: true) {
                guard let equals = piece.firstIndex(of: "=") else { continue }
                let name = trimmed(piece[..<equals])
                guard !name.isEmpty else { continue }
                pairs.append((String(name), String(trimmed(piece[piece.index(after: equals)...]))))
            }
        }
        return pairs
    }

    /// The values of the cookie `name` in `fields`, in the order sent.
    package static func values(named name: String, in fields: some Sequence<String>) -> [String] {
        pairs(in: fields).compactMap { $0.name == name ? $0.value : nil }
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return text[first...last]
    }
}

extension HTTPHeaders {
    /// The cookies of the `Cookie` fields, as `CookieHeader` reads them.
    package var cookies: [(name: String, value: String)] {
        CookieHeader.pairs(in: values(for: .cookie))
    }
}
