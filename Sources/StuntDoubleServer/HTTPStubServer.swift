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

/// A real HTTP/1.1 server on loopback that answers with a stubber's stubs: the same matchers, precedence,
/// responses, sequences, scenarios, journal and near-miss reports as in process, for clients that are not
/// `URLSession` in the test's own process (AsyncHTTPClient, an app under UI test, curl, Python, Java).
///
/// ```swift
/// let stubber = HTTPStubber()
/// stubber.add(stub: HTTPStubRequest().match(URI: "/users/{id}").stub(for: .get, json: #"{"id": 1}"#))
/// let server = HTTPStubServer(stubber: stubber)
/// let baseURL = try await server.start()          // http://127.0.0.1:<a free port>
/// // ... point the client at baseURL ...
/// await server.stop()
/// ```
///
/// Or scoped, so that the server always stops: ``withStubServer(stubber:configuration:_:)``.
///
/// An OpenAPI document answers and checks requests when it is loaded into the stubber (`StuntDoubleOpenAPI`'s
/// `stubber.load(contract)`, which `stuntdouble serve --openapi` does): the server itself does not link OpenAPI.
/// What such a document finds wrong with a stub's response (a journal entry's annotations) is logged as a
/// warning, listed in `GET /__admin/requests` and shown on the traffic page.
///
/// Requests reach stubs as `http://<Host header><target>`; match on the path (`match(URI: "/users/{id}")`,
/// stub files' `urlPath`), since clients name the host differently (`localhost`, `127.0.0.1`). A request no
/// stub matches gets `404` with the near-miss report as its body; one that an ignore rule or opt-in mode lets
/// through gets `502`, as the server has no upstream to pass it to. A stub that answers with an error (such as
/// `URLError(.notConnectedToInternet)`) makes the server close the connection without a response, which is
/// what a client sees of a broken network. Delays and throttled or dribbled bodies are real pauses on the
/// socket.
public final class HTTPStubServer: Sendable {
    /// The stubber whose stubs the server serves (and whose journal records its requests).
    public let stubber: HTTPStubber
    /// The server's configuration.
    public let configuration: Configuration

    private enum Phase {
        case idle
        case starting
        case running(Running)
        case stopped
    }

    private struct Running {
        let group: MultiThreadedEventLoopGroup
        /// The HTTP listener, unless the configuration serves HTTPS only.
        let channel: (any Channel)?
        /// The HTTP listener's base URL, or the HTTPS one's when it is the only one.
        let baseURL: URL
        /// The HTTPS listener, when there is one.
        let https: (channel: any Channel, baseURL: URL, authorityFile: URL?)?
    }

    private let phase = NIOLockedValueBox(Phase.idle)
    /// Who waits for the server to stop.
    private let stopWaiters = NIOLockedValueBox<(stopped: Bool, waiters: [CheckedContinuation<Void, Never>])>(
        (false, []))
    private let core: ServerCore
    private let threadNames = NIOLockedValueBox<String?>(nil)

    /// The name every thread of the server's event loops starts with (`NIO-ELT-7-#`), once started: for tests
    /// that check no thread outlives the server.
    package var threadNamePrefix: String? {
        threadNames.withLockedValue { $0 }
    }

    /// Creates a server; it listens once started.
    /// - Parameters:
    ///   - stubber: The stubber to serve; a new, empty one by default.
    ///   - configuration: Where to listen, limits, logging.
    public init(stubber: HTTPStubber = HTTPStubber(), configuration: Configuration = Configuration()) {
        self.stubber = stubber
        self.configuration = configuration
        if let capacity = configuration.journalCapacity { stubber.journalCapacity = capacity }
        stubber.journalBodyLimit = configuration.journalBodyLimit
        core = ServerCore(stubber: stubber, configuration: configuration)
        if configuration.isAdminAPIEnabled {
            let api = AdminAPI(store: core.store, core: core)
            core.adminBox.withLockedValue { $0 = api }
        }
        let hook: @Sendable () async -> Void = { [weak self] in await self?.stop(gracePeriod: .seconds(5)) }
        core.shutdown.withLockedValue { $0.run = hook }
    }

    /// Loads stub files (WireMock's `mappings/` and `__files/`) into the server's stubber, and makes the folder
    /// the admin API's: `POST /__admin/mappings/reset` reads it again, `POST /__admin/mappings/save` writes
    /// mappings made through the API into it.
    /// - Parameters:
    ///   - root: The folder holding `mappings/`.
    ///   - displayPath: How diagnostics and listings name the folder; its path by default.
    ///   - isReadOnly: Whether `POST /__admin/mappings/save` must refuse to write into the folder (files that
    ///     are not the user's, such as examples bundled with a program).
    /// - Returns: The files read, with their warnings.
    /// - Throws: `HTTPStubberError` with code `invalidStubFile` when the files have errors; nothing is loaded.
    @discardableResult
    public func loadStubFiles(at root: URL, displayPath: String? = nil, isReadOnly: Bool = false)
        throws(HTTPStubberError) -> StubFiles
    {
        try core.store.load(root: root, displayPath: displayPath ?? root.path, isReadOnly: isReadOnly)
    }

    /// Reads the stub files of the folder ``loadStubFiles(at:displayPath:isReadOnly:)`` loaded again, after they
    /// changed on disk (`stuntdouble serve` does when it sees a change): the files' mappings replace those read
    /// before, in one step, while the server serves. Mappings made or changed through the admin API and not saved
    /// stay; scenarios keep their states.
    /// - Returns: The files read, with their warnings; `nil` when no folder was loaded.
    /// - Throws: `HTTPStubberError` with code `invalidStubFile` when the files have errors: then nothing changes,
    ///   and the last good reading serves on.
    @discardableResult
    public func reloadStubFiles() throws(HTTPStubberError) -> StubFiles? {
        try core.store.reloadFiles()
    }

    /// The server's base URL (`http://127.0.0.1:54321`; the HTTPS one when ``Configuration/servesHTTP`` is
    /// off) while it runs, or `nil`.
    public var baseURL: URL? {
        phase.withLockedValue { phase in
            if case .running(let running) = phase { return running.baseURL }
            return nil
        }
    }

    /// The port the server listens on while it runs, or `nil`.
    public var port: Int? {
        baseURL?.port
    }

    /// The HTTPS listener's base URL (`https://127.0.0.1:54322`) while the server runs with
    /// ``Configuration/https``, or `nil`.
    public var httpsBaseURL: URL? {
        phase.withLockedValue { phase in
            if case .running(let running) = phase { return running.https?.baseURL }
            return nil
        }
    }

    /// The certificate authority's certificate (PEM) that signed the HTTPS listener's certificate, for clients
    /// to trust (`curl --cacert`), while the server runs with a generated certificate; `nil` otherwise.
    public var certificateAuthorityFile: URL? {
        phase.withLockedValue { phase in
            if case .running(let running) = phase { return running.https?.authorityFile }
            return nil
        }
    }

    /// How many client connections are open.
    public var openConnectionCount: Int {
        core.connections.count
    }

    /// Starts listening.
    /// - Returns: The base URL, with the port picked when the configuration's port is 0 (the HTTPS listener's
    ///   when ``Configuration/servesHTTP`` is off).
    /// - Throws: ``HTTPStubServerError`` when the configuration is invalid, the address cannot be bound, or
    ///   the server was started already.
    @discardableResult
    public func start() async throws(HTTPStubServerError) -> URL {
        if let problem = configuration.problem {
            throw HTTPStubServerError(.invalidConfiguration, "The server's configuration is invalid: \(problem).")
        }
        let refusal: HTTPStubServerError? = phase.withLockedValue { phase in
            switch phase {
            case .idle:
                phase = .starting
                return nil
            case .starting, .running:
                return HTTPStubServerError(.alreadyStarted, "The server is running already; start it once.")
            case .stopped:
                return HTTPStubServerError(
                    .stopped, "The server was stopped; make a new HTTPStubServer to serve again.")
            }
        }
        if let refusal { throw refusal }
        let tls: (context: NIOSSLContext, authorityFile: URL?)?
        do {
            tls = try configuration.https.map(Self.makeTLS)
            let tunnels = try configuration.browserProxying.map(TunnelCertificates.init)
            core.tunnelCertificatesBox.withLockedValue { $0 = tunnels }
        } catch {
            phase.withLockedValue { $0 = .idle }
            throw error
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: configuration.threads)
        // "MultiThreadedEventLoopGroup { threadPattern = NIO-ELT-7-#* }"
        if let pattern = group.description.split(separator: "= ").last?.split(separator: "*").first {
            threadNames.withLockedValue { $0 = String(pattern) }
        }
        let core = self.core
        let proxy = UpstreamProxy(configuration, group: group)
        core.proxyBox.withLockedValue { $0 = proxy }
        func bootstrap(tls: NIOSSLContext?) -> ServerBootstrap {
            ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 1024)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelOption(.maxMessagesPerRead, value: 16)
                .childChannelInitializer { channel in
                    core.configure(channel, tls: tls)
                }
        }
        var bound: [any Channel] = []
        do {
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            var plain: (channel: any Channel, baseURL: URL)?
            if configuration.servesHTTP {
                let channel = try await bootstrap(tls: nil).bind(host: configuration.host, port: configuration.port)
                    .get()
                bound.append(channel)
                guard let port = channel.localAddress?.port else {
                    throw HTTPStubServerError(.cannotBind, "The server bound no port.")
                }
                plain = (channel, URL(string: "http://\(host):\(port)")!)
                core.authority.withLockedValue { $0 = "\(host):\(port)" }
            }
            var https: (channel: any Channel, baseURL: URL, authorityFile: URL?)?
            if let tls, let httpsPort = configuration.https?.port {
                let secure = try await bootstrap(tls: tls.context).bind(host: configuration.host, port: httpsPort).get()
                bound.append(secure)
                guard let port = secure.localAddress?.port else {
                    throw HTTPStubServerError(.cannotBind, "The HTTPS listener bound no port.")
                }
                https = (secure, URL(string: "https://\(host):\(port)")!, tls.authorityFile)
                core.httpsAuthority.withLockedValue { $0 = "\(host):\(port)" }
            }
            // `problem` makes sure one of them listens.
            guard let baseURL = plain?.baseURL ?? https?.baseURL else {
                throw HTTPStubServerError(.invalidConfiguration, "The server has no listener.")
            }
            phase.withLockedValue {
                $0 = .running(Running(group: group, channel: plain?.channel, baseURL: baseURL, https: https))
            }
            for url in [plain?.baseURL, https?.baseURL].compactMap({ $0 }) {
                configuration.logger.info("listening on \(url.absoluteString)")
            }
            if let tunnels = core.tunnelCertificates {
                let authority = tunnels.authority.certificateFile?.path ?? "the CA keystore's authority"
                let page = baseURL.absoluteString + "/__admin/certs/wiremock-ca.crt"
                configuration.logger.info(
                    "browser proxying: clients that trust \(authority) (\(page)) may tunnel to https:// sites")
            }
            return baseURL
        } catch {
            for channel in bound { try? await channel.close() }
            await core.proxyBox.withLockedValue { $0 }?.shutdown()
            try? await group.shutdownGracefully()
            phase.withLockedValue { $0 = .idle }
            if let error = error as? HTTPStubServerError { throw error }
            let failedOnHTTP = configuration.servesHTTP && bound.isEmpty
            throw HTTPStubServerError(
                .cannotBind,
                "Cannot listen on \(configuration.host):"
                    + "\(failedOnHTTP ? configuration.port : configuration.https?.port ?? 0)"
                    + "\(failedOnHTTP ? "" : " (HTTPS)"): \(error). Use port 0 for a free port, and an address of this "
                    + "machine (127.0.0.1 for loopback).")
        }
    }

    /// Stops the server: it stops accepting connections, lets responses in progress finish for up to
    /// `gracePeriod`, closes every connection, and frees its port and threads.
    /// - Parameter gracePeriod: How long responses in progress may take to finish; none by default.
    public func stop(gracePeriod: Duration = .zero) async {
        let running: Running? = phase.withLockedValue { phase in
            defer { phase = .stopped }
            if case .running(let running) = phase { return running }
            return nil
        }
        guard let running else { return }
        try? await running.channel?.close()
        try? await running.https?.channel.close()
        if gracePeriod > .zero {
            core.connections.quiesce()
            let deadline = ContinuousClock.now + gracePeriod
            while core.connections.count > 0, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        await core.connections.closeAll()
        await core.webhooks.stop()
        await core.proxy?.shutdown()
        try? await running.group.shutdownGracefully()
        configuration.logger.info("stopped")
        let waiters = stopWaiters.withLockedValue { state in
            state.stopped = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until the server has stopped (by ``stop(gracePeriod:)`` or `POST /__admin/shutdown`).
    public func waitUntilStopped() async {
        await withCheckedContinuation { continuation in
            let stopped = stopWaiters.withLockedValue { state in
                if !state.stopped { state.waiters.append(continuation) }
                return state.stopped
            }
            if stopped { continuation.resume() }
        }
    }
}

/// Runs `body` with a stub server listening, and stops the server when `body` returns or throws.
///
/// ```swift
/// try await withStubServer(stubber: stubber) { baseURL in
///     let response = try await client.get(baseURL.appendingPathComponent("users/42"))
///     #expect(response.status == 200)
/// }
/// ```
/// - Parameters:
///   - stubber: The stubber to serve; a new, empty one by default.
///   - configuration: Where to listen, limits, logging.
///   - body: The work to do while the server runs; it receives the base URL.
/// - Returns: What `body` returns.
/// - Throws: ``HTTPStubServerError`` when the server cannot start, or what `body` throws.
public func withStubServer<Result>(
    stubber: HTTPStubber = HTTPStubber(), configuration: HTTPStubServer.Configuration = .init(),
    _ body: (URL) async throws -> Result
) async throws -> Result {
    let server = HTTPStubServer(stubber: stubber, configuration: configuration)
    let baseURL = try await server.start()
    do {
        let result = try await body(baseURL)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

extension HTTPDeliveryPath {
    /// A stub server (`HTTPStubServer`), over a socket.
    public static let server = HTTPDeliveryPath(rawValue: "server")
}
