import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL
import StuntDouble

/// Forwards requests that no stub answers to an upstream server and streams its answers back: status,
/// headers and body bytes as the upstream sent them (no redirects followed, nothing decompressed).
final class UpstreamProxy: Sendable {
    /// The server-wide upstream (`serve --proxy`), or `nil`: then only proxying stubs forward.
    let serverWide: HTTPStubProxy?
    let client: HTTPClient
    /// Browser proxying (`--enable-browser-proxying`), whose forwards to some sites take any certificate.
    let browserProxying: HTTPStubServer.BrowserProxying?
    /// The client for those forwards, when some site's certificate is taken unchecked
    /// (`--trust-all-proxy-targets`, `--trust-proxy-target`).
    let uncheckedClient: HTTPClient?
    /// Forwards in progress, so that stopping lets them end (and recordings keep them).
    private let inFlight = NIOLockedValueBox(0)

    /// Whether forwarded requests keep the client's `Host` header (WireMock's `--preserve-host-header`).
    let preservesHostHeader: Bool
    /// The upstreams forwards may reach, or `nil` for any.
    let targetRules: HTTPStubServer.Configuration.ProxyTargetRules?
    /// The codings a forwarded `Accept-Encoding` may keep, or `nil` for all.
    let supportedEncodings: Set<String>?

    /// A proxy for a server's configuration: its upstream, and how it forwards.
    convenience init(_ server: HTTPStubServer.Configuration, group: any EventLoopGroup) {
        self.init(
            upstream: server.upstream, group: group, preservesHostHeader: server.preservesHostHeader,
            via: server.upstreamProxyServer, readTimeout: server.upstreamReadTimeout,
            targetRules: server.proxyTargetRules, supportedEncodings: server.supportedProxyEncodings,
            browserProxying: server.browserProxying)
    }

    init(
        upstream: URL?, group: any EventLoopGroup, preservesHostHeader: Bool = false,
        via proxyServer: HTTPStubServer.Configuration.ProxyServer? = nil, readTimeout: Duration? = nil,
        targetRules: HTTPStubServer.Configuration.ProxyTargetRules? = nil, supportedEncodings: Set<String>? = nil,
        browserProxying: HTTPStubServer.BrowserProxying? = nil
    ) {
        self.browserProxying = browserProxying
        self.supportedEncodings = supportedEncodings
        serverWide = upstream.map { HTTPStubProxy(baseURL: $0) }
        self.preservesHostHeader = preservesHostHeader
        self.targetRules = targetRules
        var configuration = HTTPClient.Configuration()
        if let proxyServer {
            configuration.proxy = .server(host: proxyServer.host, port: proxyServer.port)
        }
        if let readTimeout {
            configuration.timeout.read = TimeAmount(readTimeout)
        }
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        // As many connections to an upstream as clients keep forwards in progress, up to WireMock's 1,000
        // (`--max-http-client-connections`), rather than AsyncHTTPClient's 8: a forward beyond the limit waits for a
        // connection, and fails when none is free within the connect timeout.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1000
        // An upstream that refuses the connection fails the request at once, as in WireMock (AsyncHTTPClient would
        // retry until the connect timeout).
        configuration.connectionPool.retryConnectionEstablishment = false
        // The connect timeout also bounds the wait for the pool's connection, which a loaded machine can stretch
        // past seconds (5 s cut a forward in the response matrix under load with getConnectionFromPoolTimeout): an
        // upstream that never answers the connection fails after 30 s.
        configuration.timeout.connect = .seconds(30)
        client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
        if let browserProxying, browserProxying.trustsAllTargets || !browserProxying.trustedTargets.isEmpty {
            var unchecked = configuration
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            unchecked.tlsConfiguration = tls
            uncheckedClient = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: unchecked)
        } else {
            uncheckedClient = nil
        }
    }

    /// Lets forwards in progress end (for up to `timeout`), then closes the client.
    func shutdown(waitingUpTo timeout: Duration = .seconds(5)) async {
        let deadline = ContinuousClock.now + timeout
        while inFlight.withLockedValue({ $0 }) > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        try? await client.shutdown()
        try? await uncheckedClient?.shutdown()
    }

    /// A target the rules deny: its forward fails with this, and the client's answer (a `500`) is its text.
    struct DeniedTarget: Error, CustomStringConvertible {
        var description: String {
            "The target proxy address is denied in the server's configuration (--allow-proxy-targets, "
                + "--deny-proxy-targets)."
        }
    }

    /// Headers that describe one connection, not the message: never forwarded (RFC 9110 §7.6.1).
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade",
    ]

    /// The upstream's URL for a request: the base, then the request's path and query.
    static func target(for head: HTTPRequestHead, via proxy: HTTPStubProxy) -> String {
        proxy.target(
            forPathAndQuery: head.uri.hasPrefix("/") ? head.uri : (URL(string: head.uri).map(pathAndQuery) ?? "/"))
    }

    private static func pathAndQuery(of url: URL) -> String {
        let path = url.path.isEmpty ? "/" : url.path
        return url.query.map { path + "?" + $0 } ?? path
    }

    /// Sends the request upstream; the parts of the answer arrive through `events`, on no particular thread.
    func forward(
        _ head: HTTPRequestHead, body: ByteBuffer, to target: String, adding extraHeaders: [String: String] = [:],
        identityEncoding: Bool = false, asBrowserProxy: Bool = false, flow: UpstreamFlow,
        events: @escaping @Sendable (UpstreamEvent) -> Void
    ) {
        var request = HTTPClientRequest(url: target)
        request.method = head.method
        for (name, value) in head.headers where !Self.hopByHop.contains(name.lowercased()) {
            if name.lowercased() == "content-length" { continue }
            if name.lowercased() == "host", !preservesHostHeader { continue }
            // A recording keeps bodies as they are meant (and replays them to any client): uncompressed.
            if name.lowercased() == "accept-encoding" {
                if identityEncoding { continue }
                if let supportedEncodings {
                    let kept = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                        .filter(supportedEncodings.contains)
                    if !kept.isEmpty { request.headers.add(name: name, value: kept.joined(separator: ",")) }
                    continue
                }
            }
            request.headers.add(name: name, value: value)
        }
        for (name, value) in extraHeaders {
            request.headers.replaceOrAdd(name: name, value: value)
        }
        if body.readableBytes > 0 || head.headers.contains(name: "content-length") {
            request.body = .bytes(body)
        }
        let client: HTTPClient
        if asBrowserProxy, let uncheckedClient, let browserProxying, let host = URL(string: target)?.host,
            browserProxying.trusts(host)
        {
            client = uncheckedClient
        } else {
            client = self.client
        }
        let inFlight = self.inFlight
        let targetRules = self.targetRules
        inFlight.withLockedValue { $0 += 1 }
        Task {
            defer { inFlight.withLockedValue { $0 -= 1 } }
            if let targetRules, let host = URL(string: target)?.host, !(await targetRules.permits(host: host)) {
                // Not reached: answered 500 saying so, as WireMock answers, and neither recorded nor kept.
                return events(.failed(DeniedTarget()))
            }
            do {
                // No deadline for the whole exchange: a large body to a slow client takes as long as the client
                // does (a 300-second one cut a 64 MiB proxied body to a slow reader on a loaded machine). An
                // unreachable upstream fails at the connect timeout; for a client that leaves, the rest is drained.
                let response = try await client.execute(request, deadline: .distantFuture)
                var headers = NIOHTTP1.HTTPHeaders()
                for (name, value) in response.headers where !Self.hopByHop.contains(name.lowercased()) {
                    headers.add(name: name, value: value)
                }
                events(.head(response.status, headers))
                for try await part in response.body {
                    flow.handOver(part.readableBytes)
                    events(.body(part))
                    await flow.waitUntilOpen()
                }
                events(.end)
            } catch {
                events(.failed(error))
            }
        }
    }
}

/// A part of an upstream's answer.
enum UpstreamEvent: Sendable {
    case head(HTTPResponseStatus, NIOHTTP1.HTTPHeaders)
    case body(ByteBuffer)
    case end
    case failed(any Error)
}

/// Lets an upstream's body through only as fast as the client takes it: the forwarding task waits while the
/// flow is closed (the client's connection holds as much as it should), and goes on when it opens again. It also
/// waits while the parts it has handed over have not reached the connection's event loop beyond `limit` bytes: a
/// busy event loop would otherwise see the first part that should close the flow only after the task had read
/// tens of MiB ahead (from a loopback upstream, faster than any client), and the upstream, held back meanwhile
/// for as long as a slow client takes to read them, gave up on the proxy (its send timeout).
final class UpstreamFlow: Sendable {
    private struct State {
        let limitOnTheirWay: Int
        var isOpen = true
        /// Set once nobody reads the body any more: the flow stays open.
        var isFinished = false
        /// Bytes handed over that have not reached the event loop yet.
        var onTheirWay = 0
        var waiter: CheckedContinuation<Void, Never>?

        var mayProceed: Bool { isFinished || (isOpen && onTheirWay <= limitOnTheirWay) }
    }

    private let state: NIOLockedValueBox<State>

    /// A flow that lets at most `limit` bytes be on their way to the event loop at once.
    init(limit: Int = 256 << 10) {
        state = NIOLockedValueBox(State(limitOnTheirWay: limit))
    }

    /// Whether the forwarding task may read on now.
    var mayProceed: Bool { state.withLockedValue { $0.mayProceed } }

    /// Bytes handed over that have not reached the event loop yet.
    var bytesOnTheirWay: Int { state.withLockedValue { $0.onTheirWay } }

    /// Waits until the flow is open and what was handed over has (mostly) arrived.
    func waitUntilOpen() async {
        await withCheckedContinuation { continuation in
            let proceed = state.withLockedValue { state -> Bool in
                if state.mayProceed { return true }
                state.waiter = continuation
                return false
            }
            if proceed { continuation.resume() }
        }
    }

    /// The forwarding task hands `bytes` to the event loop.
    func handOver(_ bytes: Int) {
        state.withLockedValue { $0.onTheirWay += bytes }
    }

    /// `bytes` handed over have reached the event loop.
    func arrived(_ bytes: Int) {
        resumeIfAllowed { $0.onTheirWay -= bytes }
    }

    /// Holds the upstream back.
    func close() {
        state.withLockedValue { state in
            if !state.isFinished { state.isOpen = false }
        }
    }

    /// Lets the upstream go on.
    func open() {
        resumeIfAllowed { $0.isOpen = true }
    }

    /// Opens the flow for good: nobody reads the rest.
    func finish() {
        resumeIfAllowed { $0.isFinished = true }
    }

    private func resumeIfAllowed(after change: (inout State) -> Void) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            change(&state)
            guard state.mayProceed else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
