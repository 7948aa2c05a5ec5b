import NIOHTTP1

/// Where a request goes, named from its head and the server's configuration alone: pure, asked once per request
/// by the handler, and tested alone (`RequestRouterTests`). What answers a stub route is then the engine's to
/// decide; the route says what happens when no stub does.
struct RequestRouter: Sendable {
    /// The route of a request.
    enum Route: Equatable, Sendable {
        /// A WebSocket upgrade (RFC 6455), when the connection can change protocols (nothing before the request is
        /// still to be sent).
        case webSocketUpgrade
        /// Browser proxying's `CONNECT`, when the connection can change protocols: a tunnel to `authority`
        /// (`host:port`), which the server itself answers (with TLS, when the client starts a handshake).
        case tunnel(authority: String)
        /// The admin API (`/__admin` and under it).
        case admin
        /// A browser's CORS preflight, answered by the server itself: the asking `origin` and the `method` it asks
        /// for.
        case preflight(origin: String, method: String)
        /// The engine decides; `origin` is a cross-origin browser's, whose answers get CORS fields, and
        /// `otherwise` says what answers when no stub does.
        case stub(origin: String?, otherwise: Fallback)
    }

    /// What answers a request no stub answers.
    enum Fallback: Equatable, Sendable {
        /// The server-wide upstream (`--proxy`): unmatched requests, and those an ignore rule or a recording lets
        /// through, are forwarded.
        case forward
        /// A file of the root's `__files/` at the request's path (a `GET`), else the near-miss report (`404`).
        case staticFile
        /// The near-miss report (`404`), or `502` for a request let through with nowhere to go.
        case report
        /// The request's own URL (browser proxying): a client's proxy request, or one in a tunnel.
        case browserProxy
    }

    /// What browser proxying asks of the router: whether it is on, and whether unmatched requests pass through.
    enum BrowserProxying: Equatable, Sendable {
        case off
        case on(passesThrough: Bool)
    }

    /// Whether the admin API is on.
    let hasAdmin: Bool
    /// Whether browsers on other origins are answered (`--cors`).
    let answersCrossOrigin: Bool
    /// Whether the server has a server-wide upstream.
    let hasUpstream: Bool
    /// Whether admin requests may go to that upstream (another StuntDouble or WireMock's own admin API).
    let proxiesAdminRequests: Bool
    /// Whether the connection can upgrade to WebSockets (HTTP/1.1; an HTTP/2 stream cannot).
    let allowsUpgrades: Bool
    /// Whether the server is clients' proxy too (`--enable-browser-proxying`).
    var browserProxying = BrowserProxying.off
    /// Whether the connection is a tunnel (browser proxying's `CONNECT`): its requests are the tunnelled site's,
    /// never the admin API's.
    var isTunnel = false

    /// The route of a request; `canUpgrade` says whether its connection could change protocols now.
    func route(_ head: HTTPRequestHead, canUpgrade: Bool = false) -> Route {
        let isAdmin = !isTunnel && Self.isAdminTarget(head.uri)
        if allowsUpgrades, canUpgrade, WebSocketUpgrade.isRequested(by: head) { return .webSocketUpgrade }
        if case .on = browserProxying, allowsUpgrades, canUpgrade, !isTunnel, head.method.isMethod(.CONNECT) {
            return .tunnel(authority: head.uri)
        }
        if hasAdmin, isAdmin { return .admin }
        let origin = answersCrossOrigin ? head.headers.first(name: "origin") : nil
        if let origin, head.method.isMethod(.OPTIONS),
            let method = head.headers.first(name: "access-control-request-method")
        {
            return .preflight(origin: origin, method: method)
        }
        if hasUpstream, !isAdmin || proxiesAdminRequests { return .stub(origin: origin, otherwise: .forward) }
        if case .on(let passesThrough) = browserProxying, isTunnel || Self.isAbsoluteHTTPTarget(head.uri) {
            return .stub(origin: origin, otherwise: passesThrough ? .browserProxy : .report)
        }
        return .stub(origin: origin, otherwise: head.method.isMethod(.GET) ? .staticFile : .report)
    }

    /// Whether a request target is a whole `http://` or `https://` URL (a proxy's request, RFC 9112 §3.2.2).
    static func isAbsoluteHTTPTarget(_ target: String) -> Bool {
        guard target.utf8.first != UInt8(ascii: "/") else { return false }
        let scheme = target.prefix(8).lowercased()
        return scheme.hasPrefix("http://") || scheme.hasPrefix("https://")
    }

    /// Whether a request target is the admin API's: `/__admin`, or under it, or with a query.
    static func isAdminTarget(_ target: String) -> Bool {
        // Over the bytes in place, once (three `hasPrefix` calls cost 150 instructions on every request).
        let prefix: StaticString = "/__admin"
        return target.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.count >= prefix.utf8CodeUnitCount,
                UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount).elementsEqual(
                    bytes.prefix(prefix.utf8CodeUnitCount))
            else { return false }
            return bytes.count == prefix.utf8CodeUnitCount || bytes[prefix.utf8CodeUnitCount] == UInt8(ascii: "/")
                || bytes[prefix.utf8CodeUnitCount] == UInt8(ascii: "?")
        } ?? (target == "/__admin" || target.hasPrefix("/__admin/") || target.hasPrefix("/__admin?"))
    }
}
