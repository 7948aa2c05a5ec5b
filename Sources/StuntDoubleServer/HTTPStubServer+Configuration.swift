import Foundation
import Logging
import NIOCore
import StuntDouble
import StuntDoubleWireMock

extension HTTPStubServer {
    /// Where a server listens, its limits, and where it logs.
    ///
    /// ```swift
    /// var configuration = HTTPStubServer.Configuration()
    /// configuration.maximumRequestBodySize = 1 << 20   // 1 MiB; larger bodies get 413
    /// let server = HTTPStubServer(stubber: stubber, configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The address to bind: `127.0.0.1` (loopback) by default. `::1` binds IPv6 loopback.
        public var host: String
        /// The port; 0 (the default) picks a free one, which ``HTTPStubServer/start()`` reports.
        public var port: Int
        /// The largest request body accepted, in bytes; a larger one gets `413 Content Too Large` (before its
        /// body is read, when the request says its length). 64 MiB by default.
        public var maximumRequestBodySize: Int
        /// The largest request head accepted (the request line and header fields), in bytes; a larger one gets
        /// `431 Request Header Fields Too Large`. 80 KiB by default.
        public var maximumHeaderSize: Int
        /// How long a connection may stay open with no request in progress before the server closes it. 60
        /// seconds by default.
        public var idleTimeout: Duration
        /// How long a request's body may go without a byte arriving before the server answers `408 Request
        /// Timeout` and closes the connection, as nginx's `client_body_timeout`: the time between two reads, not
        /// for the whole body, so a slow but steady upload is never cut. 60 seconds by default (nginx's).
        public var requestBodyTimeout: Duration = .seconds(60)
        /// How long a response may go without the client taking any of it before the server gives up and closes
        /// the connection, as nginx's `send_timeout`: the time between two writes the client takes, not for the
        /// whole response, so a slow reader, or one that pauses, still gets all of a large body. 60 seconds by
        /// default (nginx's).
        public var sendTimeout: Duration = .seconds(60)
        /// How many threads serve connections; the number of processor cores by default.
        public var threads: Int
        /// Where the server logs: one line per request at `info`, details at `debug`. Silent by default.
        public var logger: Logger
        /// Whether the server answers WireMock's admin API and shows the traffic page under `/__admin/` (on by
        /// default). Off, `/__admin/...` requests go to the stubs like any other.
        public var isAdminAPIEnabled = true
        /// A token every admin call must carry as `Authorization: Bearer <token>`; the server refuses to start
        /// on an address other than loopback with the admin API on and no token.
        public var adminToken: String?
        /// WireMock's `--admin-api-basic-auth`: a `username:password` every admin call may carry instead, as
        /// `Authorization: Basic` (a browser asks for it on the traffic page). With ``adminToken`` too, either one
        /// is accepted.
        public var adminBasicCredentials: String?
        /// Whether the server may listen on an address other than loopback with an admin API that needs no
        /// credentials, as WireMock does (in its container, where only the container's network reaches it: the
        /// image passes `--open-admin`). Off by default: such a server refuses to start.
        public var allowsOpenAdminAPI = false
        /// Whether the admin API answers over HTTPS only (WireMock's `--admin-api-require-https`): over plain HTTP
        /// it answers `403` saying so, before credentials are looked at. Off by default.
        public var adminRequiresHTTPS = false
        /// A server to forward the requests no stub answers to (`serve --proxy URL`, WireMock's `proxyBaseUrl`
        /// for the whole server): the upstream's base URL, `http` or `https`. Its status, headers and body
        /// stream back unchanged. A stubber recording (`HTTPStubber.record(to:mode:options:environment:)`)
        /// keeps each forwarded exchange. `nil` (the default): unmatched requests get `404` with the near-miss
        /// report.
        public var upstream: URL?
        /// Whether forwarded requests keep the client's `Host` header (WireMock's `--preserve-host-header`);
        /// by default the upstream gets its own host name.
        public var preservesHostHeader = false
        /// The content codings a forwarded request may ask the upstream for (WireMock 3's
        /// `--supported-proxy-encodings`): the client's `Accept-Encoding` keeps only the codings named here
        /// (compared as written, as WireMock compares them), and is left out when none is left. `nil` (the
        /// default) forwards it as the client sent it.
        public var supportedProxyEncodings: Set<String>?
        /// The upstreams proxying and webhooks may reach (WireMock 3's `--allow-proxy-targets` and
        /// `--deny-proxy-targets`), or `nil` (the default) for any.
        public var proxyTargetRules: ProxyTargetRules?
        /// An HTTP proxy that forwarded requests go through (WireMock's `--proxy-via host:port`), or `nil`.
        public var upstreamProxyServer: ProxyServer?
        /// How long a forwarded request may wait for the upstream's next bytes before it fails (WireMock's
        /// `--proxy-timeout`); `nil` (the default) waits as long as the connection stays open.
        public var upstreamReadTimeout: Duration?
        /// How many requests the stubber's journal keeps (the newest), or `nil` to leave the stubber's own
        /// setting (`HTTPStubber.defaultJournalCapacity` for a new one). 0 keeps none, as WireMock's
        /// `--no-request-journal` (then the admin API's counts and finds answer with an error saying so).
        public var journalCapacity: Int?
        /// How many bytes of each request body the journal keeps (`HTTPStubber.journalBodyLimit`): 64 KiB
        /// by default, so that a server running for days under large uploads keeps its memory; `nil` for whole
        /// bodies. Entries note the true length, and counts and finds whose body patterns may have missed a
        /// cut body say so.
        public var journalBodyLimit: Int? = 64 << 10
        /// Whether requests under `/__admin/` that this server does not answer itself (its admin API is off)
        /// may go to the ``upstream``. Off by default: behind a server whose admin API is open, they would let
        /// anyone who reaches this one change its stubs, read its journal or shut it down (`--proxy-admin`).
        public var proxiesAdminRequests = false
        /// Whether the server answers browsers on other origins (CORS), as WireMock's `--enable-stub-cors` (off by
        /// default; `serve --cors`, and `serve --openapi` unless `--no-cors`). On, a preflight (`OPTIONS` with
        /// `Origin` and `Access-Control-Request-Method`) is answered `204` by the server itself, before any stub,
        /// allowing the methods a loaded OpenAPI document has at its path (WireMock's `OPTIONS, GET, POST, PUT,
        /// PATCH, DELETE` elsewhere) and the headers asked for; every answer to a request with an `Origin` carries
        /// `Access-Control-Allow-Origin` (that origin), `Access-Control-Allow-Credentials` and
        /// `Access-Control-Expose-Headers` (its own headers), unless it has its own `Access-Control-Allow-Origin`.
        /// The admin API is never opened to other origins.
        public var answersCrossOriginRequests = false
        /// What becomes of a mapping (from files, or sent to the admin API) that uses a feature WireMock has and
        /// StuntDouble does not support yet: refused (the default; `serve --strict`), or loaded with a stub that
        /// answers `500` naming the feature (`stuntdouble serve`'s default, so that one such mapping does not
        /// stop a whole root).
        public var unsupportedStubFeatures = StubFiles.UnsupportedFeatures.refuse
        /// Which mappings' responses are templates (those whose `transformers` name `response-template`, by
        /// default; every one with `StubFiles.ResponseTemplating.global`), and the clock and random source
        /// their rendering reads.
        public var responseTemplating = StubFiles.ResponseTemplating.local
        /// The custom matchers (`customMatcher`) mappings may name, from files or the admin API:
        /// `[StubFileExtension.graphQL]` with StuntDoubleGraphQL (`stuntdouble serve` has it). None by default.
        public var stubFileExtensions: [StubFileExtension] = []
        /// Whether answers are gzipped for clients that accept it, as WireMock gzips them (`stuntdouble serve`
        /// does, unless `--disable-gzip`; off by default here, where tests read bodies as stubbed): a stub's body of
        /// 32 bytes or more, to a `GET`, `POST`, `PUT`, `PATCH` or `DELETE` whose `Accept-Encoding` names `gzip`,
        /// unless the stub sets its own `Content-Encoding`, `Transfer-Encoding` or a false `Content-Length`, its type is
        /// compressed already (images but SVG, audio, video, archives) or an event stream, or its body is paced. A
        /// request's gzipped body (`Content-Encoding: gzip`, or gzip's first bytes) is matched as its plain text
        /// either way.
        public var gzipsResponses = false
        /// Where proxied exchanges are written as mapping files as they end (WireMock's `--record-mappings`), or
        /// `nil` (the default).
        public var mappingRecording: MappingRecording?
        /// Whether every connection's opening, closing and bytes are logged (WireMock's
        /// `--print-all-network-traffic`), at `info` whatever the logger's level: HTTPS traffic as it is after TLS,
        /// text as it is, other bytes by their count. Off by default.
        public var printsNetworkTraffic = false
        /// What WebSocket channels may do: their messages' sizes and how long they stay open idle.
        public var webSocketLimits = WebSocketLimits()
        /// Whether the HTTP listener opens (on by default). Off (WireMock's `--disable-http`), the server serves
        /// HTTPS only, which needs ``https``; its base URL is the HTTPS listener's.
        public var servesHTTP = true
        /// HTTPS: a second listener with TLS (`serve --https-port`), or `nil` (the default) for none.
        public var https: HTTPSConfiguration?
        /// The server as clients' HTTP proxy too (WireMock's `--enable-browser-proxying`), or `nil` (the default).
        public var browserProxying: BrowserProxying?

        /// Creates a configuration.
        /// - Parameters:
        ///   - host: The address to bind; `127.0.0.1` by default.
        ///   - port: The port; 0 picks a free one.
        ///   - maximumRequestBodySize: The largest request body accepted, in bytes.
        ///   - maximumHeaderSize: The largest request head accepted, in bytes.
        ///   - idleTimeout: How long an idle connection stays open.
        ///   - threads: How many threads serve connections; `nil` for one per processor core.
        ///   - logger: Where the server logs; silent by default.
        public init(
            host: String = "127.0.0.1", port: Int = 0, maximumRequestBodySize: Int = 64 << 20,
            maximumHeaderSize: Int = 80 << 10, idleTimeout: Duration = .seconds(60), threads: Int? = nil,
            logger: Logger = Logger(label: "stuntdouble.server", factory: { _ in SwiftLogNoOpLogHandler() })
        ) {
            self.host = host
            self.port = port
            self.maximumRequestBodySize = maximumRequestBodySize
            self.maximumHeaderSize = maximumHeaderSize
            self.idleTimeout = idleTimeout
            self.threads = threads ?? System.coreCount
            self.logger = logger
        }

        /// An HTTP proxy server (WireMock's `--proxy-via`).
        public struct ProxyServer: Sendable, Hashable {
            /// Its host name or address.
            public var host: String
            /// Its port.
            public var port: Int

            /// Creates a proxy server's address.
            /// - Parameters:
            ///   - host: Its host name or address.
            ///   - port: Its port.
            public init(host: String, port: Int) {
                self.host = host
                self.port = port
            }
        }

        /// Whether an address is this machine's loopback.
        static func isLoopback(_ host: String) -> Bool {
            host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
        }

        /// Why the configuration cannot be used, or `nil`.
        var problem: String? {
            if !(0...65535).contains(port) { return "port \(port) is not a port; use 0 to 65535 (0 picks a free one)" }
            if maximumRequestBodySize < 0 { return "maximumRequestBodySize is negative; use 0 or more bytes" }
            if maximumHeaderSize < 64 { return "maximumHeaderSize is \(maximumHeaderSize); use 64 bytes or more" }
            for (name, size) in [
                ("maximumTextMessageSize", webSocketLimits.maximumTextMessageSize),
                ("maximumBinaryMessageSize", webSocketLimits.maximumBinaryMessageSize),
            ] where !(1...Int(UInt32.max)).contains(size) {
                return "webSocketLimits.\(name) is \(size); use 1 byte to 4 GiB"
            }
            if webSocketLimits.idleTimeout <= .zero { return "webSocketLimits.idleTimeout must be above 0" }
            if idleTimeout <= .zero { return "idleTimeout must be above zero" }
            if requestBodyTimeout <= .zero { return "requestBodyTimeout must be above zero" }
            if sendTimeout <= .zero { return "sendTimeout must be above zero" }
            if threads < 1 { return "threads is \(threads); use 1 or more" }
            if let adminToken, adminToken.isEmpty { return "adminToken is empty; give a token, or nil for none" }
            if let journalCapacity, journalCapacity < 0 {
                return "journalCapacity is \(journalCapacity); use 0 (no journal) or more"
            }
            if let journalBodyLimit, journalBodyLimit < 0 {
                return "journalBodyLimit is \(journalBodyLimit); use 0 or more bytes, or nil for whole bodies"
            }
            if let upstream, !["http", "https"].contains(upstream.scheme?.lowercased() ?? "") || upstream.host == nil {
                return "upstream \(upstream.absoluteString) is not an http or https URL with a host (such as "
                    + "https://api.example.com)"
            }
            if let https, !(0...65535).contains(https.port) {
                return "the HTTPS port \(https.port) is not a port; use 0 to 65535 (0 picks a free one)"
            }
            if let https, https.port != 0, https.port == port {
                return "HTTP and HTTPS cannot share port \(port); give each its own (or 0 for free ones)"
            }
            if !servesHTTP, https == nil {
                return "servesHTTP is off and there is no https (--https-port): nothing would listen"
            }
            if adminRequiresHTTPS, https == nil, isAdminAPIEnabled {
                return "adminRequiresHTTPS needs https (--https-port): the admin API could not be reached"
            }
            if let adminBasicCredentials, !adminBasicCredentials.contains(":") {
                return "adminBasicCredentials must be username:password (--admin-api-basic-auth user:secret)"
            }
            if let upstreamProxyServer,
                upstreamProxyServer.host.isEmpty || !(1...65535).contains(upstreamProxyServer.port)
            {
                return "the proxy server \(upstreamProxyServer.host):\(upstreamProxyServer.port) needs a host name "
                    + "and a port from 1 to 65535 (--proxy-via proxy.example.com:3128)"
            }
            if let upstreamReadTimeout, upstreamReadTimeout <= .zero {
                return "upstreamReadTimeout must be above zero, or nil to wait as long as the connection stays open"
            }
            if isAdminAPIEnabled, adminToken == nil, adminBasicCredentials == nil, !allowsOpenAdminAPI,
                !Self.isLoopback(host)
            {
                return "it would listen on \(host) with an open admin API, so anyone who reaches the address could "
                    + "change the stubs and read every request: give an admin token (adminToken, --admin-token) or "
                    + "WireMock's --admin-api-basic-auth user:password, turn the admin API off (isAdminAPIEnabled, "
                    + "--no-admin), listen on 127.0.0.1, or, where only trusted clients reach the address (a "
                    + "container's own network), say so (allowsOpenAdminAPI, --open-admin)"
            }
            return nil
        }
    }
}

extension HTTPStubServer.Configuration {
    /// What a WebSocket channel may do (WireMock's `--websocket-max-text-message-size`,
    /// `--websocket-max-binary-message-size` and `--websocket-idle-timeout`, with their defaults).
    public struct WebSocketLimits: Sendable {
        /// The largest text message a client may send, in bytes (10 MiB); a larger one closes the channel with
        /// code 1009.
        public var maximumTextMessageSize = 10 << 20
        /// The largest binary message a client may send, in bytes (10 MiB); a larger one closes the channel with
        /// code 1009.
        public var maximumBinaryMessageSize = 10 << 20
        /// How long a channel stays open with no frame either way (5 minutes); then the server closes it with code
        /// 1001.
        public var idleTimeout: Duration = .seconds(300)

        /// The defaults, WireMock's.
        public init() {}
    }
}
