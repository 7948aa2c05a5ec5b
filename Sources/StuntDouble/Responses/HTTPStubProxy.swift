import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stub that answers by forwarding the request to another server (WireMock's `proxyBaseUrl`): the request
/// goes to the base URL plus its own path and query, and the upstream's answer is the response.
///
/// ```swift
/// stubber.add(stub: HTTPStubRequest().match(urlRegex: "^https://api.example.com/v2/").stub(for: .get) {
///     $0.proxy = HTTPStubProxy(baseURL: URL(string: "https://staging.example.com")!)
/// })
/// ```
///
/// In process, the request goes to the network through a real `URLSession`; on a stub server, through its
/// upstream client, streamed.
public struct HTTPStubProxy: Hashable, Sendable {
    /// The upstream's base URL (`https://staging.example.com`, or with a path prefix).
    public var baseURL: URL
    /// A prefix removed from the request's path before it is appended (WireMock's `proxyUrlPrefixToRemove`).
    public var prefixToRemove: String?
    /// Headers added to the forwarded request (WireMock's `additionalProxyRequestHeaders`).
    public var additionalHeaders: [String: String]

    /// A proxy to a base URL.
    /// - Parameters:
    ///   - baseURL: The upstream's base URL.
    ///   - prefixToRemove: A path prefix to remove first.
    ///   - additionalHeaders: Headers to add to the forwarded request.
    public init(baseURL: URL, prefixToRemove: String? = nil, additionalHeaders: [String: String] = [:]) {
        self.baseURL = baseURL
        self.prefixToRemove = prefixToRemove
        self.additionalHeaders = additionalHeaders
    }

    /// Where a request with this path and query goes: the base, then the path (less the prefix) and query.
    /// - Parameter pathAndQuery: The request's path and query, as sent (`/v2/users?page=2`).
    /// - Returns: The upstream's URL as text.
    public func target(forPathAndQuery pathAndQuery: String) -> String {
        var rest = pathAndQuery
        if let prefixToRemove, !prefixToRemove.isEmpty, rest.hasPrefix(prefixToRemove) {
            rest.removeFirst(prefixToRemove.count)
            if !rest.hasPrefix("/") && !rest.hasPrefix("?") { rest = "/" + rest }
        }
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return base + rest
    }

    /// The request to send upstream in process: the same method, headers and body, at the proxied URL.
    func forwarded(_ request: HTTPIncomingRequest) -> URLRequest? {
        let route = request.route
        let pathAndQuery = route.query.map { route.path + "?" + $0 } ?? route.path
        guard let url = URL(string: target(forPathAndQuery: pathAndQuery)) else { return nil }
        var forwarded = request.urlRequest
        forwarded.url = url
        for (name, value) in additionalHeaders {
            forwarded.setValue(value, forHTTPHeaderField: name)
        }
        return forwarded
    }
}
