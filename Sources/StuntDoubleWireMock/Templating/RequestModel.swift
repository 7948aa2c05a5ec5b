import Foundation
import StuntDouble

/// The request as WireMock's templates see it (`request.*`): each part worked out when a template asks for it.
///
/// `url` (path and query, as sent), `path` (which `path.[n]` indexes by segment), `pathSegments`, `query.name`
/// (`query.name.[n]` for repeated ones), `headers.name` (any case), `cookies.name`, `method`, `scheme`, `host`,
/// `port`, `baseUrl`, `body`, `bodyAsBase64`, `pathParameters.name` (a `urlPathTemplate`'s), and
/// `requestLine` with `method`, `scheme`, `host`, `port`, `path`, `pathSegments`, `query`, `url` and `baseUrl`.
struct RequestModel: TemplateObject {
    let request: HTTPIncomingRequest
    /// The query's parameters, decoded once for a render however many times a template asks (each
    /// `request.query.name` would decode the whole query again).
    private let queryPairs: Locked<[(name: String, value: String)]?>

    init(_ request: HTTPIncomingRequest) {
        self.request = request
        queryPairs = Locked(nil)
    }

    private func decodedQuery(_ query: String?) -> [(name: String, value: String)] {
        queryPairs.withLock { pairs in
            if let pairs { return pairs }
            let decoded = QueryModel.pairs(of: query)
            pairs = decoded
            return decoded
        }
    }

    var text: String { request.url.absoluteString }

    var items: [(key: String?, value: TemplateValue)] { [] }

    func member(_ name: String) -> TemplateValue? {
        let url = request.url
        switch name {
        case "url":
            let query = url.query(percentEncoded: true).map { "?" + $0 } ?? ""
            return .string(Self.path(of: url) + query)
        case "path":
            return .lazy(PathModel(path: PercentEncoding.decode(Self.path(of: url))))
        case "pathSegments":
            // Written as the path, iterated and indexed by segment (as WireMock's).
            return .lazy(PathModel(path: PercentEncoding.decode(Self.path(of: url))))
        case "query":
            let query = url.query(percentEncoded: true)
            return .lazy(QueryModel(query: query, pairs: decodedQuery(query)))
        case "headers":
            return .lazy(HeadersModel(headers: request.headers))
        case "cookies":
            return .lazy(CookiesModel(header: request.headers.values(for: .cookie)))
        case "method":
            return .lazy(RequestMethodValue(name: request.method.rawValue))
        case "scheme":
            return .string(url.scheme ?? "http")
        case "host":
            return .string(url.host ?? "localhost")
        case "port":
            return .int(url.port ?? (url.scheme == "https" ? 443 : 80))
        case "baseUrl":
            return .string(Self.baseURL(of: url))
        case "body":
            return .string(request.body.map { String(decoding: $0, as: UTF8.self) } ?? "")
        case "bodyAsBase64":
            return .string(request.body?.base64EncodedString() ?? "")
        case "pathParameters":
            return .object(
                request.templateVariables.keys.sorted().map { key in
                    let value = request.templateVariables[key]
                    if case .list(let items)? = value { return (key, .multi(items)) }
                    return (key, .string(value.map { "\($0)" } ?? ""))
                })
        case "requestLine":
            return .lazy(RequestLineModel(request: self))
        default:
            return nil
        }
    }

    /// The path as sent (percent-encoded), `/` when empty.
    static func path(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }

    static func segments(of path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    static func baseURL(of url: URL) -> String {
        let scheme = url.scheme ?? "http"
        let host = url.host ?? "localhost"
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}

/// `request.path` and `request.pathSegments`: the path (decoded), and its segments by index.
private struct PathModel: TemplateObject {
    let path: String
    var text: String { path }
    var items: [(key: String?, value: TemplateValue)] {
        RequestModel.segments(of: path).map { (nil, .string($0)) }
    }
    func member(_ name: String) -> TemplateValue? {
        TemplateValue.multi(RequestModel.segments(of: path)).member(name)
    }
}

/// `request.query`: parameters by name, decoded (`+` is a space), each possibly repeated.
private struct QueryModel: TemplateObject {
    let query: String?
    /// The parameters in order, decoded.
    let pairs: [(name: String, value: String)]
    /// As WireMock writes its map: `{a=1, b=2}`, names in their first order.
    var text: String { javaMapText(items) }
    var items: [(key: String?, value: TemplateValue)] {
        grouped(pairs) { $0 }.map { (Optional($0.name), .multi($0.values)) }
    }
    func member(_ name: String) -> TemplateValue? {
        let values = pairs.filter { $0.name == name }.map(\.value)
        return values.isEmpty ? nil : .multi(values)
    }

    /// A query's parameters, decoded as WireMock decodes them (`+` is a space), empty pieces left out.
    static func pairs(of query: String?) -> [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return Substring(query).splitting(at: UInt8(ascii: "&")).compactMap { pair in
            guard !pair.isEmpty else { return nil }
            let equals = pair.utf8.firstIndex(of: UInt8(ascii: "="))
            let name = PercentEncoding.decodeForm(equals.map { pair[..<$0] } ?? pair)
            return (name, equals.map { PercentEncoding.decodeForm(pair[pair.utf8.index(after: $0)...]) } ?? "")
        }
    }
}

/// Values grouped by name, the names in their first order and first spelling, `fold` telling which names are
/// one: in one pass (looking each name up among those seen so far made 6,000 query parameters or headers take
/// seconds).
private func grouped(
    _ pairs: [(name: String, value: String)], folding fold: (String) -> String
) -> [(name: String, folded: String, values: [String])] {
    var indices: [String: Int] = [:]
    var groups: [(name: String, folded: String, values: [String])] = []
    for pair in pairs {
        let folded = fold(pair.name)
        if let index = indices[folded] {
            groups[index].values.append(pair.value)
        } else {
            indices[folded] = groups.count
            groups.append((pair.name, folded, [pair.value]))
        }
    }
    return groups
}

/// A map's text as WireMock writes it (`{name=value, other=1}`): a repeated name with its first value, as its
/// `ListOrSingle` writes itself.
private func javaMapText(_ items: [(key: String?, value: TemplateValue)]) -> String {
    "{" + items.map { ($0.key ?? "") + "=" + $0.value.text }.joined(separator: ", ") + "}"
}

/// `request.headers`: values by name, in any case.
private struct HeadersModel: TemplateObject {
    let headers: HTTPHeaders
    /// As WireMock writes its map: `{Accept=*/*, Host=...}`, names in alphabetical order, in any case.
    var text: String {
        javaMapText(groups.sorted { $0.folded < $1.folded }.map { (Optional($0.name), .multi($0.values)) })
    }
    var items: [(key: String?, value: TemplateValue)] {
        groups.map { (Optional($0.name), .multi($0.values)) }
    }
    private var groups: [(name: String, folded: String, values: [String])] {
        grouped(headers.map { ($0.name.rawValue, $0.value) }) { $0.lowercased() }
    }
    func member(_ name: String) -> TemplateValue? {
        let values = headers.values(for: HTTPHeaders.Name(rawValue: name))
        return values.isEmpty ? nil : .multi(values)
    }
}

/// `request.cookies`: values by name.
private struct CookiesModel: TemplateObject {
    let header: [String]
    var pairs: [(name: String, value: String)] { CookieHeader.pairs(in: header) }
    var text: String { header.joined(separator: "; ") }
    var items: [(key: String?, value: TemplateValue)] {
        pairs.map { (Optional($0.name), .string($0.value)) }
    }
    func member(_ name: String) -> TemplateValue? {
        let values = pairs.filter { $0.name == name }.map(\.value)
        return values.isEmpty ? nil : .multi(values)
    }
}

/// `request.method`: WireMock's `RequestMethod`, which writes its name and equals no text (see `eq`).
struct RequestMethodValue: TemplateObject {
    let name: String
    var text: String { name }
    var items: [(key: String?, value: TemplateValue)] { [] }
    func member(_ name: String) -> TemplateValue? { name == "value" ? .string(self.name) : nil }

    /// Whether a value is a request's method.
    static func isMethod(_ value: TemplateValue) -> Bool {
        if case .lazy(let object) = value { object is RequestMethodValue } else { false }
    }
}

/// `request.requestLine`.
private struct RequestLineModel: TemplateObject {
    let request: RequestModel
    var text: String { "\(request.request.method.rawValue) \(request.member("url")?.text ?? "")" }
    var items: [(key: String?, value: TemplateValue)] { [] }
    func member(_ name: String) -> TemplateValue? {
        switch name {
        case "method", "scheme", "host", "port", "baseUrl", "pathSegments", "query", "url": request.member(name)
        case "path": request.member("path").map { .string($0.text) }
        default: nil
        }
    }
}
