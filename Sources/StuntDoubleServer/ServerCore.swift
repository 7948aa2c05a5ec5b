import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import StuntDouble
import StuntDoubleWireMock

/// What every connection of a server shares.
final class ServerCore: Sendable {
    let stubber: HTTPStubber
    let configuration: HTTPStubServer.Configuration
    /// `host:port` as bound, for requests that name no host.
    let authority = NIOLockedValueBox("127.0.0.1")
    /// `host:port` of the HTTPS listener, for its requests that name no host.
    let httpsAuthority = NIOLockedValueBox("127.0.0.1")
    let connections = ConnectionTracker()

    /// The mappings the admin API manages.
    let store: MappingStore
    /// The admin API, when it is on; set once, before the server starts.
    var admin: AdminAPI? { adminBox.withLockedValue { $0 } }
    /// Whether the admin API is on (read for every request, without a lock).
    let hasAdmin: Bool
    let adminBox = NIOLockedValueBox<AdminAPI?>(nil)
    /// Journal entry number → the client's address, for the admin API.
    let clients = NIOLockedValueBox([Int: String]())
    /// A delay added to every stubbed response (the admin API's `fixedDelay` setting).
    let globalDelay = NIOLockedValueBox(GlobalDelay())
    /// The admin API's `extended` settings (WireMock's, for extensions to read; kept and answered here), or `nil`.
    let extendedSettings = NIOLockedValueBox<JSONNode?>(nil)
    /// What `POST /__admin/shutdown` does.
    let shutdown = NIOLockedValueBox(ShutdownHook())
    /// The client for upstreams (the server-wide one, and proxying stubs'), while the server runs.
    var proxy: UpstreamProxy? { proxyBox.withLockedValue { $0 } }
    let proxyBox = NIOLockedValueBox<UpstreamProxy?>(nil)
    /// Browser proxying's tunnel certificates, while the server runs with browser proxying.
    var tunnelCertificates: TunnelCertificates? { tunnelCertificatesBox.withLockedValue { $0 } }
    let tunnelCertificatesBox = NIOLockedValueBox<TunnelCertificates?>(nil)
    /// Sends stubs' webhooks, and keeps what became of them.
    let webhooks: WebhookSender
    /// The admin API's recording.
    let recorder = Recorder()
    /// What upstreams answered to proxied requests, for the admin API's recordings and snapshots.
    let proxiedExchanges = ProxiedExchanges()
    /// Writes proxied exchanges as mapping files (`--record-mappings`), if asked to.
    let mappingsRecorder: MappingsRecorder?
    /// The limits and timeouts every connection keeps (its state machine's).
    let connectionLimits: ConnectionStateMachine.Limits

    /// The admin API's global delay: `fixedDelay`, and a `delayDistribution` drawn for each response.
    struct GlobalDelay: Sendable {
        var fixed = Duration.zero
        /// The distribution, and the JSON it was read from (the settings answer it).
        var random: (distribution: GlobalDelayDistribution, json: JSONNode)?

        /// The delay of one response: the fixed one, plus a draw of the distribution.
        func drawn() -> Duration {
            guard let random else { return fixed }
            return fixed + .seconds(random.distribution.sample())
        }
    }

    struct ShutdownHook: Sendable {
        var run: (@Sendable () async -> Void)?
    }

    init(stubber: HTTPStubber, configuration: HTTPStubServer.Configuration) {
        self.stubber = stubber
        self.configuration = configuration
        logLevel = configuration.logger.logLevel
        hasAdmin = configuration.isAdminAPIEnabled
        webhooks = WebhookSender(logger: configuration.logger, targetRules: configuration.proxyTargetRules)
        mappingsRecorder = configuration.mappingRecording.map { MappingsRecorder($0, logger: configuration.logger) }
        connectionLimits = ConnectionStateMachine.Limits(
            maximumRequestBodySize: configuration.maximumRequestBodySize,
            maximumHeaderSize: configuration.maximumHeaderSize, idleTimeout: TimeAmount(configuration.idleTimeout),
            bodyTimeout: TimeAmount(configuration.requestBodyTimeout),
            sendTimeout: TimeAmount(configuration.sendTimeout), opensTunnels: configuration.browserProxying != nil)
        store = MappingStore(
            stubber: stubber, unsupportedFeatures: configuration.unsupportedStubFeatures,
            templating: configuration.responseTemplating, extensions: configuration.stubFileExtensions)
    }

    var logger: Logger { configuration.logger }
    /// The logger's level, read once: the configuration's logger never changes, and asking it copied the logger
    /// (its handler, an existential) twice a request.
    let logLevel: Logger.Level

    /// The admin API asked the server to stop.
    func shutdownRequested() async {
        await shutdown.withLockedValue { $0 }.run?()
    }

    /// A request target as the log shows it: the values of query parameters that hold secrets (the admin
    /// token, and those a recording redacts) replaced by `REDACTED`.
    func loggedTarget(_ target: String) -> String {
        guard let mark = target.firstIndex(of: "?") else { return target }
        var secret: Set<String> = ["token"]
        if let recording = stubber.recording as? HTTPRecording {
            secret.formUnion(recording.options.redactedQueryParameters)
        }
        let query = target[target.index(after: mark)...]
        var pairs: [Substring] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
            let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let decoded = String(name).removingPercentEncoding ?? String(name)
            pairs.append(secret.contains(decoded) && pair.contains("=") ? name + "=REDACTED" : pair)
        }
        return target[...mark] + pairs.joined(separator: "&")
    }

    /// Remembers a request's client address, forgetting those the journal no longer holds. The admin API names
    /// `127.0.0.1` for a request it has no address of: that one is not recorded.
    func recordClient(_ address: String, entry: Int) {
        guard address != "127.0.0.1" else { return }
        let capacity = stubber.journalCapacity
        clients.withLockedValue { clients in
            clients[entry] = address
            clients[entry - capacity - 1] = nil
        }
    }

    /// Sets up a new connection's pipeline. An HTTPS listener's starts with TLS, then speaks HTTP/2 when the
    /// client chose it by ALPN (each stream with a handler of its own), else HTTP/1.1.
    func configure(_ channel: any Channel, tls: NIOSSLContext? = nil) -> EventLoopFuture<Void> {
        guard let tls else {
            return channel.eventLoop.makeCompletedFuture {
                if configuration.printsNetworkTraffic {
                    try channel.pipeline.syncOperations.addHandler(NetworkTrafficPrinter(logger: logger))
                }
                try configureHTTP1(channel, isSecure: false)
            }
        }
        let connectionGuard = SecureConnectionGuard(idleTimeout: configuration.idleTimeout)
        do {
            try channel.pipeline.syncOperations.addHandler(connectionGuard)
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
            if configuration.printsNetworkTraffic {
                try channel.pipeline.syncOperations.addHandler(NetworkTrafficPrinter(logger: logger))
            }
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let guardOnLoop = NIOLoopBound(connectionGuard, eventLoop: channel.eventLoop)
        connections.add(channel)
        let settings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
            HTTP2Setting(parameter: .maxHeaderListSize, value: configuration.maximumHeaderSize),
        ]
        return channel.configureHTTP2SecureUpgrade(
            h2ChannelConfigurator: { channel in
                guardOnLoop.value.negotiatedHTTP2()
                return channel.configureHTTP2Pipeline(
                    mode: .server, initialLocalSettings: settings,
                    inboundStreamInitializer: { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try self.configureStream(stream)
                            // Streams run on their connection's event loop.
                            guardOnLoop.value.streamOpened()
                            stream.closeFuture.whenComplete { _ in guardOnLoop.value.streamClosed() }
                        }
                    }
                ).map { _ in }
            },
            http1ChannelConfigurator: { channel in
                guardOnLoop.value.negotiatedHTTP1()
                return channel.eventLoop.makeCompletedFuture {
                    try self.configureHTTP1(channel, isSecure: true, tracked: true)
                }
            })
    }

    /// An HTTP/1.1 connection's pipeline (after TLS, on the HTTPS listener): one handler, which reads requests from
    /// the bytes itself (`HTTP1RequestParser`), answers pipelined requests in turn, and writes responses as bytes
    /// (`HTTP1ResponseEncoder`). A stub's response is checked once, when it is prepared
    /// (`HTTPResponsePlan.Response.wireProblem`, a 500 naming the stub instead of a closed connection), and the
    /// server's own headers escape what they quote (`HeaderText`).
    private func configureHTTP1(_ channel: any Channel, isSecure: Bool, tracked: Bool = false) throws {
        try channel.pipeline.syncOperations.addHandler(
            StubRequestHandler(core: self, isSecure: isSecure))
        if !tracked { connections.add(channel) }
    }

    /// An HTTP/2 stream's pipeline: SwiftNIO's codec between the stream's frames and HTTP's parts, and the stub
    /// handler, which writes the stream's response parts (`ResponseWriter.http2`).
    private func configureStream(_ stream: any Channel) throws {
        let operations = stream.pipeline.syncOperations
        try operations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
        try operations.addHandler(StubRequestHandler(core: self, isSecure: true, writer: .http2))
    }
}
