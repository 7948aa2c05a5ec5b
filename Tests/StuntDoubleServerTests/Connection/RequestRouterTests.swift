import NIOHTTP1
import Testing

@testable import StuntDoubleServer

/// The router alone: a request head and the configuration in, a route out.
@Suite struct RequestRouterTests {
    static func router(
        admin: Bool = true, cors: Bool = false, upstream: Bool = false, proxiesAdmin: Bool = false,
        upgrades: Bool = true
    ) -> RequestRouter {
        RequestRouter(
            hasAdmin: admin, answersCrossOrigin: cors, hasUpstream: upstream, proxiesAdminRequests: proxiesAdmin,
            allowsUpgrades: upgrades)
    }

    static func head(_ method: HTTPMethod = .GET, _ uri: String = "/", _ fields: [(String, String)] = [])
        -> HTTPRequestHead
    {
        HTTPRequestHead(
            version: .http1_1, method: method, uri: uri, headers: HTTPHeaders([("Host", "x")] + fields))
    }

    static let upgrade = [
        ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ("Sec-WebSocket-Version", "13"),
    ]

    @Test(arguments: [
        ("/__admin", true), ("/__admin/", true), ("/__admin/mappings", true), ("/__admin?token=1", true),
        ("/__administrator", false), ("/__admi", false), ("/x/__admin", false), ("/", false), ("", false),
    ])
    func adminTargets(target: String, isAdmin: Bool) {
        #expect(RequestRouter.isAdminTarget(target) == isAdmin)
        #expect((Self.router().route(Self.head(.GET, target)) == .admin) == isAdmin)
    }

    @Test func withTheAdminAPIOffItsPathsAreTheStubs() {
        #expect(
            Self.router(admin: false).route(Self.head(.GET, "/__admin/mappings"))
                == .stub(origin: nil, otherwise: .staticFile))
    }

    @Test func aWebSocketUpgradeOnlyWhereTheConnectionCanChangeProtocols() {
        let head = Self.head(.GET, "/chat", Self.upgrade)
        #expect(Self.router().route(head, canUpgrade: true) == .webSocketUpgrade)
        #expect(Self.router().route(head, canUpgrade: false) == .stub(origin: nil, otherwise: .staticFile))
        // An HTTP/2 stream has no HTTP/1 decoder to replace.
        #expect(
            Self.router(upgrades: false).route(head, canUpgrade: true) == .stub(origin: nil, otherwise: .staticFile))
        // Not a valid upgrade: a POST, or a version other than 13.
        #expect(Self.router().route(Self.head(.POST, "/chat", Self.upgrade), canUpgrade: true) != .webSocketUpgrade)
        let version12 = Self.upgrade.map { $0.0 == "Sec-WebSocket-Version" ? ($0.0, "12") : $0 }
        #expect(Self.router().route(Self.head(.GET, "/chat", version12), canUpgrade: true) != .webSocketUpgrade)
        // An upgrade to the admin path is still an upgrade (WireMock takes them on any path).
        #expect(Self.router().route(Self.head(.GET, "/__admin", Self.upgrade), canUpgrade: true) == .webSocketUpgrade)
    }

    @Test func preflightsOnlyWhenTheServerAnswersBrowsers() {
        let preflight = Self.head(
            .OPTIONS, "/pets", [("Origin", "https://app.example"), ("Access-Control-Request-Method", "PUT")])
        #expect(
            Self.router(cors: true).route(preflight) == .preflight(origin: "https://app.example", method: "PUT"))
        #expect(Self.router(cors: false).route(preflight) == .stub(origin: nil, otherwise: .report))
        // An OPTIONS without the method asked for is an ordinary request, with its origin.
        let options = Self.head(.OPTIONS, "/pets", [("Origin", "https://app.example")])
        #expect(Self.router(cors: true).route(options) == .stub(origin: "https://app.example", otherwise: .report))
        // The admin API is never opened to other origins.
        let adminPreflight = Self.head(
            .OPTIONS, "/__admin/mappings",
            [("Origin", "https://app.example"), ("Access-Control-Request-Method", "GET")])
        #expect(Self.router(cors: true).route(adminPreflight) == .admin)
    }

    @Test func whatAnswersWhenNoStubDoes() {
        #expect(Self.router().route(Self.head(.GET, "/a")) == .stub(origin: nil, otherwise: .staticFile))
        #expect(Self.router().route(Self.head(.POST, "/a")) == .stub(origin: nil, otherwise: .report))
        #expect(Self.router(upstream: true).route(Self.head(.POST, "/a")) == .stub(origin: nil, otherwise: .forward))
        // The upstream's own admin API is not reached through this server, unless asked.
        #expect(
            Self.router(admin: false, upstream: true).route(Self.head(.GET, "/__admin/shutdown"))
                == .stub(origin: nil, otherwise: .staticFile))
        #expect(
            Self.router(admin: false, upstream: true, proxiesAdmin: true).route(Self.head(.GET, "/__admin/shutdown"))
                == .stub(origin: nil, otherwise: .forward))
    }

    /// Generated heads: whatever the method, target and fields, the route follows the rules above.
    @Test func generatedHeadsFollowTheRules() {
        var state: UInt64 = 0x5EED
        func draw(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let methods: [HTTPMethod] = [.GET, .POST, .OPTIONS, .HEAD, .PUT, .DELETE, .CONNECT]
        let targets = ["/", "/__admin", "/__admin/x", "/__adminx", "/a/__admin", "/p?q=1", "http://h/p", "*"]
        let extras = [
            ("Origin", "https://o"), ("Access-Control-Request-Method", "GET"), ("Upgrade", "websocket"),
            ("Connection", "Upgrade"), ("Sec-WebSocket-Key", "k"), ("Sec-WebSocket-Version", "13"),
        ]
        for _ in 0..<2_000 {
            var router = Self.router(
                admin: draw(2) == 0, cors: draw(2) == 0, upstream: draw(2) == 0, proxiesAdmin: draw(2) == 0,
                upgrades: draw(2) == 0)
            router.browserProxying = [.off, .on(passesThrough: true), .on(passesThrough: false)][draw(3)]
            router.isTunnel = router.browserProxying != .off && draw(2) == 0
            let fields = extras.filter { _ in draw(2) == 0 }
            let head = Self.head(methods[draw(methods.count)], targets[draw(targets.count)], fields)
            let canUpgrade = draw(2) == 0
            let route = router.route(head, canUpgrade: canUpgrade)
            let isAdmin = !router.isTunnel && RequestRouter.isAdminTarget(head.uri)
            // A request a browser proxy's client sent: a whole URL, or any request in a tunnel.
            let isProxied =
                router.browserProxying != .off && (router.isTunnel || RequestRouter.isAbsoluteHTTPTarget(head.uri))
            switch route {
            case .webSocketUpgrade:
                #expect(router.allowsUpgrades && canUpgrade && head.method == .GET)
            case .tunnel(let authority):
                #expect(router.browserProxying != .off && router.allowsUpgrades && canUpgrade && !router.isTunnel)
                #expect(head.method == .CONNECT && authority == head.uri)
            case .admin:
                #expect(router.hasAdmin && isAdmin)
            case .preflight:
                #expect(router.answersCrossOrigin && head.method == .OPTIONS && !(router.hasAdmin && isAdmin))
            case .stub(let origin, let otherwise):
                #expect(!(router.hasAdmin && isAdmin))
                #expect((origin != nil) == (router.answersCrossOrigin && head.headers.contains(name: "origin")))
                if otherwise == .forward {
                    #expect(router.hasUpstream && (!isAdmin || router.proxiesAdminRequests))
                } else {
                    #expect(!router.hasUpstream || (isAdmin && !router.proxiesAdminRequests))
                    #expect(
                        (otherwise == .browserProxy)
                            == (isProxied && router.browserProxying == .on(passesThrough: true)))
                    #expect((otherwise == .staticFile) == (head.method == .GET && !isProxied))
                }
            }
        }
    }

    @Test func browserProxyingTunnelsAndSendsUnmatchedProxyRequestsToTheirSite() {
        var proxying = Self.router()
        proxying.browserProxying = .on(passesThrough: true)
        let connect = Self.head(.CONNECT, "api.example.com:443")
        #expect(proxying.route(connect, canUpgrade: true) == .tunnel(authority: "api.example.com:443"))
        // Not while a response before it is still to be sent, nor on an HTTP/2 stream, nor without browser proxying.
        #expect(proxying.route(connect, canUpgrade: false) != .tunnel(authority: "api.example.com:443"))
        #expect(Self.router().route(connect, canUpgrade: true) != .tunnel(authority: "api.example.com:443"))
        // A whole URL is a proxy's request; a path is the server's own.
        #expect(
            proxying.route(Self.head(.GET, "http://api.example.com/users"))
                == .stub(origin: nil, otherwise: .browserProxy))
        #expect(
            proxying.route(Self.head(.POST, "HTTPS://api.example.com/users"))
                == .stub(origin: nil, otherwise: .browserProxy))
        #expect(proxying.route(Self.head(.GET, "/users")) == .stub(origin: nil, otherwise: .staticFile))
        #expect(proxying.route(Self.head(.GET, "/__admin/mappings")) == .admin)
        // In a tunnel every request is the site's: its admin paths too.
        var tunnel = proxying
        tunnel.isTunnel = true
        #expect(tunnel.route(Self.head(.GET, "/__admin/mappings")) == .stub(origin: nil, otherwise: .browserProxy))
        #expect(tunnel.route(connect, canUpgrade: true) != .tunnel(authority: "api.example.com:443"))
        // Passing through off: the near-miss report.
        tunnel.browserProxying = .on(passesThrough: false)
        #expect(tunnel.route(Self.head(.GET, "/users")) == .stub(origin: nil, otherwise: .report))
        // A server-wide upstream (`--proxy-all`) answers first, as WireMock's proxy stub does.
        var both = Self.router(upstream: true)
        both.browserProxying = .on(passesThrough: true)
        #expect(both.route(Self.head(.GET, "http://api.example.com/users")) == .stub(origin: nil, otherwise: .forward))
    }

    @Test(
        arguments: [
            ("api.example.com:443", "api.example.com", 443), ("[::1]:8443", "::1", 8443),
            ("127.0.0.1:80", "127.0.0.1", 80),
            ("api.example.com", nil, 0), (":443", nil, 0), ("host:0", nil, 0), ("host:99999", nil, 0),
            ("host:x", nil, 0),
        ] as [(String, String?, Int)])
    func aCONNECTTargetIsAHostAndAPort(authority: String, host: String?, port: Int) {
        let target = BrowserProxyTunnel.target(authority)
        #expect(target?.host == host)
        if host != nil { #expect(target?.port == port) }
    }
}
