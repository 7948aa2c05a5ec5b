import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request as StuntDouble sees it: method, URL, headers, and the whole body, read once.
///
/// Every matcher and every dynamic response of a request sees the same value, whether the request carried
/// its body in `httpBody` or in a body stream. Header names compare case-insensitively:
///
/// ```swift
/// .match({ request, _ in request.headers[.userAgent] == "customAgent" })
/// ```
public struct HTTPIncomingRequest: Sendable, CustomStringConvertible {
    /// The method, upper-cased; `GET` when the request named none.
    public var method: HTTPMethod { storage.method }
    /// The URL.
    public var url: URL { storage.url }
    /// The header fields.
    public var headers: HTTPHeaders { storage.headers }
    /// The whole body, or `nil` when the request has none.
    public var body: Data? { storage.body }
    /// The request as a `URLRequest`, with the body in `httpBody` (never in a stream). For a request made from
    /// its parts, built when first asked for (only custom matchers and relays need one).
    public var urlRequest: URLRequest { storage.urlRequest }
    /// The variables the matching stub's URI template extracted from the URL (empty before matching, or when
    /// the stub has no template).
    public internal(set) var templateVariables: [String: URITemplate.Value] = [:]

    /// The parts that never change, shared by every copy: a request is copied from matcher to matcher.
    private final class Storage: Sendable {
        let method: HTTPMethod
        let headers: HTTPHeaders
        let body: Data?
        let route: RequestRoute
        private let source: Source

        /// Where the URL and the `URLRequest` come from.
        private enum Source: Sendable {
            /// The request came as a `URLRequest` (URLSession, `HTTPStubSession`).
            case given(URL, URLRequest)
            /// Made from parts: the URL given, the `URLRequest` built when first needed.
            case parts(URL, Locked<URLRequest?>)
            /// Made from a URL's text (the stub server), which the route was read from: the URL made when first
            /// needed (most requests are matched by their route alone), the `URLRequest` too.
            case text(String, Locked<(url: URL?, request: URLRequest?)>)
        }

        init(
            method: HTTPMethod, url: URL, headers: HTTPHeaders, body: Data?, urlRequest: URLRequest?,
            route: RequestRoute
        ) {
            self.method = method
            self.headers = headers
            self.body = body
            self.route = route
            source = urlRequest.map { .given(url, $0) } ?? .parts(url, Locked(nil))
        }

        init(method: HTTPMethod, urlText: String, headers: HTTPHeaders, body: Data?, route: RequestRoute) {
            self.method = method
            self.headers = headers
            self.body = body
            self.route = route
            source = .text(urlText, Locked((nil, nil)))
        }

        var url: URL {
            switch source {
            case .given(let url, _), .parts(let url, _):
                return url
            case .text(let text, let cache):
                return cache.withLock { cached in
                    if let url = cached.url { return url }
                    // The text was checked to be a URL as it is (`init(method:validatedURLText:...)`) but for `[` and
                    // `]`, which its plain host never holds: encoded after it, or Foundation encodes every `%` too.
                    let hasBrackets = text.utf8.contains { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }
                    let written = hasBrackets ? PercentEncoding.encodingTarget(text) : text
                    let url = URL(string: written) ?? URL(string: route.exactKey) ?? URL(fileURLWithPath: "/")
                    cached.url = url
                    return url
                }
            }
        }

        var urlRequest: URLRequest {
            switch source {
            case .given(_, let request):
                return request
            case .parts(let url, let cache):
                return cache.withLock { cached in
                    if let cached { return cached }
                    let request = build(url)
                    cached = request
                    return request
                }
            case .text:
                let url = self.url
                guard case .text(_, let cache) = source else { return build(url) }
                return cache.withLock { cached in
                    if let request = cached.request { return request }
                    let request = build(url)
                    cached.request = request
                    return request
                }
            }
        }

        private func build(_ url: URL) -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = method.rawValue
            for field in headers {
                request.addValue(field.value, forHTTPHeaderField: field.name.rawValue)
            }
            request.httpBody = body
            return request
        }
    }

    private var storage: Storage

    package var route: RequestRoute { storage.route }

    /// Whether two values are copies of the same received request (not merely equal ones).
    package func isSameRequest(as other: HTTPIncomingRequest) -> Bool {
        storage === other.storage
    }
    /// The URL as a string without its fragment: what URL regular expressions search.
    var matchableURLString: String {
        let absolute = storage.url.absoluteString
        guard let hash = absolute.utf8.firstIndex(of: UInt8(ascii: "#")) else { return absolute }
        return String(absolute[..<hash])
    }

    /// Creates a request from a `URLRequest`, reading its body stream (if any) to the end.
    /// - Parameter request: The request.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/invalidRequest`` when the request has
    ///   no absolute URL, or ``HTTPStubberError/Code/unreadableRequestBody`` when its body stream fails.
    public init(_ request: URLRequest) throws(HTTPStubberError) {
        guard let url = request.url else {
            throw HTTPStubberError(
                code: .invalidRequest,
                message: "The request has no URL, so no stub can match it. Give the URLRequest a URL."
            )
        }
        var body = request.httpBody
        if body == nil, let stream = request.httpBodyStream {
            do {
                body = try Self.read(stream)
            } catch {
                throw HTTPStubberError(
                    code: .unreadableRequestBody,
                    message: "The body stream of the request to \(url.absoluteString) failed: \(error.reason). "
                        + "Give the request an httpBody, or a stream that can be read once."
                )
            }
        }
        try self.init(
            method: HTTPMethod(rawValue: request.httpMethod ?? "GET"),
            url: url,
            headers: HTTPHeaders(request.allHTTPHeaderFields ?? [:]),
            body: body,
            original: request
        )
    }

    /// Creates a request from its parts.
    /// - Parameters:
    ///   - method: The method.
    ///   - url: The URL; it must be absolute (with a scheme and a host).
    ///   - headers: The header fields.
    ///   - body: The body, or `nil`.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/invalidRequest`` when the URL is not
    ///   absolute.
    public init(method: HTTPMethod = .get, url: URL, headers: HTTPHeaders = [:], body: Data? = nil)
        throws(HTTPStubberError)
    {
        try self.init(method: method, url: url, headers: headers, body: body, original: nil)
    }

    private init(method: HTTPMethod, url: URL, headers: HTTPHeaders, body: Data?, original: URLRequest?)
        throws(HTTPStubberError)
    {
        guard let route = RequestRoute(url) else {
            throw HTTPStubberError(
                code: .invalidRequest,
                message: "The request URL \"\(url.absoluteString)\" is not absolute: it needs a scheme and a host, "
                    + "as in https://api.example.com/path."
            )
        }
        var urlRequest = original
        // Writing to a URLRequest copies its storage: only do it when the body came from a stream.
        if urlRequest?.httpBody == nil, let body {
            urlRequest?.httpBody = body
        }
        storage = Storage(
            method: method, url: url, headers: headers, body: body, urlRequest: urlRequest, route: route
        )
    }

    /// Creates a request from the text of an absolute URL, when the text needs no change to be a URL (every byte
    /// unreserved, reserved or a valid percent escape, RFC 3986) and its route can be read from it directly: the
    /// `URL` is made only when something asks for it. For the stub server, whose requests are matched by route.
    /// - Returns: `nil` when the text is not such a URL; make the `URL` and use ``init(method:url:headers:body:)``.
    package init?(method: HTTPMethod, validatedURLText text: String, headers: HTTPHeaders, body: Data?) {
        // The scheme and host `RequestRoute(plain:)` reads need no encoding; the rest is checked as it is read.
        guard let route = RequestRoute(plain: text, requiringNoEncoding: true) else { return nil }
        storage = Storage(method: method, urlText: text, headers: headers, body: body, route: route)
    }

    /// A copy whose body keeps only its first `limit` bytes (for the journal); the same request when the body
    /// is no longer.
    func truncatingBody(to limit: Int) -> HTTPIncomingRequest {
        guard let body = storage.body, body.count > limit else { return self }
        var copy = self
        copy.storage = Storage(
            method: storage.method, url: storage.url, headers: storage.headers, body: Data(body.prefix(limit)),
            urlRequest: nil, route: storage.route)
        return copy
    }

    /// The value of a URI template variable as one string (a list's items joined with commas).
    /// - Parameter name: The variable's name.
    public subscript(templateVariable name: String) -> String? {
        templateVariables[name]?.description
    }

    /// The body decoded as UTF-8, or `nil` when there is no body or it is not UTF-8.
    public var bodyText: String? {
        body.flatMap { String(data: $0, encoding: .utf8) }
    }

    /// The method and URL, such as `POST https://api.example.com/login`.
    public var description: String {
        "\(method) \(url.absoluteString)"
    }

    /// Why a body stream could not be read.
    struct StreamError: Error {
        package let reason: String
    }

    /// Reads a stream to its end.
    static func read(_ stream: InputStream) throws(StreamError) -> Data {
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 {
                let reason = stream.streamError.map { "\($0)" } ?? "unknown error"
                throw StreamError(reason: "\(reason), after \(data.count) bytes")
            }
            if count == 0 {
                return data
            }
            data.append(buffer, count: count)
        }
    }
}
