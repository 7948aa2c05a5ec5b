import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

extension HTTPStubServer {
    /// The server as a browser's (or any client's) HTTP proxy too, as WireMock's `--enable-browser-proxying`
    /// makes it: a client configured with the server as its proxy gets the stubs where one matches, and the real
    /// site's answer where none does.
    ///
    /// - A plain `http://` request reaches a proxy with its whole URL (`GET http://api.example.com/users`): it is
    ///   matched as any request, its URL's host included, and forwarded to that URL when no stub answers.
    /// - An `https://` request opens a tunnel first (`CONNECT api.example.com:443`): the server answers it with
    ///   TLS itself, presenting a certificate for that host signed by ``authority``, so a client that trusts the
    ///   authority sees the stubs as the site's answers. Requests in the tunnel are matched and forwarded as above
    ///   (over HTTP/1.1), and the admin API is not reached through one: its paths are the site's.
    ///
    /// ```swift
    /// var configuration = HTTPStubServer.Configuration()
    /// configuration.browserProxying = .init(authority: .generated(authorityFolder: folder))
    /// // curl --proxy http://127.0.0.1:<port> --cacert folder/stuntdouble-ca.pem https://api.example.com/users
    /// ```
    public struct BrowserProxying: Sendable {
        /// The certificate authority that signs a certificate for each host tunnelled to.
        public var authority: Authority
        /// Whether requests no stub answers go to their site (WireMock 3's `--proxy-pass-through`, on by
        /// default); off, they get the near-miss report (`404`).
        public var passesThrough = true
        /// Whether forwarded `https://` requests take any certificate their site presents (WireMock's
        /// `--trust-all-proxy-targets`); off by default, they are checked against the system's authorities.
        public var trustsAllTargets = false
        /// Hosts whose certificates are taken unchecked when requests are forwarded to them (WireMock's
        /// `--trust-proxy-target`, one host each, compared without case).
        public var trustedTargets: Set<String> = []

        /// Where the authority that signs tunnels' certificates comes from.
        public enum Authority: Sendable {
            /// The one the HTTPS listener's generated certificate uses: kept in `authorityFolder`
            /// (`stuntdouble-ca.pem`), made on first use (``HTTPSConfiguration/defaultAuthorityFolder`` by default).
            case generated(authorityFolder: URL)
            /// An authority's certificate and private key in a PKCS #12 keystore and its password (WireMock's
            /// `--ca-keystore` and `--ca-keystore-password`). A Java keystore (JKS) is refused with the `keytool`
            /// command that converts it.
            case keystore(URL, password: String)
        }

        /// Browser proxying with certificates signed by `authority`.
        /// - Parameter authority: The certificate authority; by default the one kept in
        ///   ``HTTPSConfiguration/defaultAuthorityFolder``.
        public init(authority: Authority = .generated(authorityFolder: HTTPSConfiguration.defaultAuthorityFolder)) {
            self.authority = authority
        }

        /// Whether a forwarded request to `host` takes its certificate unchecked.
        func trusts(_ host: String) -> Bool {
            trustsAllTargets || trustedTargets.contains { $0.caseInsensitiveCompare(host) == .orderedSame }
        }
    }
}

/// The TLS contexts of tunnels (browser proxying's `CONNECT`): one per host, whose certificate the authority
/// signs, made when the host is first asked for and kept (up to `capacity` hosts, then made anew).
final class TunnelCertificates: Sendable {
    /// The authority, as PEM (for the admin API's `certs/wiremock-ca.crt`).
    let authority: CertificateAuthority
    /// One key for every host's certificate (making a key is the slow part of a certificate).
    private let keyPEM: String
    private let contexts = NIOLockedValueBox<[String: NIOSSLContext]>([:])
    private static let capacity = 1000

    /// The authority browser proxying names, loaded (or made).
    /// - Throws: ``HTTPStubServerError`` saying what is wrong with it.
    init(_ browserProxying: HTTPStubServer.BrowserProxying) throws(HTTPStubServerError) {
        switch browserProxying.authority {
        case .generated(let folder):
            authority = try CertificateAuthority.loadOrCreate(in: folder)
        case .keystore(let file, let password):
            authority = try CertificateAuthority.load(keystore: file, password: password)
        }
        do {
            keyPEM = try PrivateKey.generateP256().pem()
        } catch {
            throw HTTPStubServerError(
                .invalidConfiguration, "A key for tunnels' certificates cannot be made: \(error).")
        }
    }

    /// The TLS context for a tunnel to `host`.
    /// - Throws: A text saying why no certificate can be made for it (a host that is neither a name nor an
    ///   address, an authority BoringSSL cannot sign with).
    func context(for host: String) throws(TunnelRefusal) -> NIOSSLContext {
        let name = host.lowercased()
        if let made = contexts.withLockedValue({ $0[name] }) { return made }
        let context: NIOSSLContext
        do {
            guard let issued = try authority.issueCertificate(for: name, key: PrivateKey(pem: keyPEM)) else {
                throw TunnelRefusal(
                    description: "\"\(host)\" is not a host name or an IP address: name the host to tunnel to, as "
                        + "CONNECT api.example.com:443.")
            }
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: issued.chain.map { .certificate($0) }, privateKey: .privateKey(issued.key))
            configuration.applicationProtocols = ["http/1.1"]
            context = try NIOSSLContext(configuration: configuration)
        } catch let refusal as TunnelRefusal {
            throw refusal
        } catch {
            throw TunnelRefusal(description: "A certificate for \(host) cannot be made: \(error).")
        }
        contexts.withLockedValue { contexts in
            if contexts.count >= Self.capacity { contexts.removeAll() }
            contexts[name] = context
        }
        return context
    }
}

/// Why a tunnel cannot be opened: the `CONNECT` is answered `400` with this text.
struct TunnelRefusal: Error, CustomStringConvertible {
    let description: String
}

/// Browser proxying's tunnels: a `CONNECT` to a host turns its connection into a server for that host (with TLS,
/// when the client starts a handshake).
enum BrowserProxyTunnel {
    /// The host and port a `CONNECT` names (`api.example.com:443`, `[::1]:8443`), or `nil`.
    static func target(_ authority: String) -> (host: String, port: Int)? {
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = authority[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty else { return nil }
        return (String(host), port)
    }

    /// Answers the `CONNECT` (`200`), then reads the tunnel's first bytes in place of the handler calling
    /// (`TunnelSniffer`); `leftover`, bytes the client sent after its `CONNECT`, are the first.
    static func open(
        _ authority: String, tls: NIOSSLContext, leftover: ByteBuffer, core: ServerCore, context: ChannelHandlerContext
    ) {
        // Written through the handlers before this one, and flushed, before TLS may be in front: the answer is plain.
        context.writeAndFlush(
            NIOAny(ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\n")), promise: nil)
        let pipeline = context.pipeline
        do {
            try pipeline.syncOperations.addHandler(
                TunnelSniffer(authority: authority, tls: tls, core: core), position: .after(context.handler))
            pipeline.syncOperations.removeHandler(context: context, promise: nil)
            if leftover.readableBytes > 0 { pipeline.syncOperations.fireChannelRead(NIOAny(leftover)) }
        } catch {
            core.logger.debug("a tunnel to \(authority) cannot be opened: \(error)")
            context.close(promise: nil)
        }
    }
}

/// A tunnel's first bytes say what it carries: a TLS handshake (its first byte 22), answered with TLS for the
/// tunnel's host, as a browser's `https://` request; anything else is plain HTTP, as AsyncHTTPClient tunnels an
/// `http://` request. Either way a request handler for the tunnel takes this one's place and reads them.
final class TunnelSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let authority: String
    private let tls: NIOSSLContext
    private let core: ServerCore

    init(authority: String, tls: NIOSSLContext, core: ServerCore) {
        self.authority = authority
        self.tls = tls
        self.core = core
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        guard bytes.readableBytes > 0 else { return }
        let isTLS = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) == 22
        let pipeline = context.pipeline
        do {
            if isTLS {
                // In front of everything, or just behind the HTTPS listener's own TLS (a client whose proxy is
                // the HTTPS listener): the tunnel's TLS is inside the connection's.
                let position: ChannelPipeline.SynchronousOperations.Position =
                    (try? pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)).map { .after($0) } ?? .first
                try pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls), position: position)
            }
            try pipeline.syncOperations.addHandler(
                StubRequestHandler(core: core, isSecure: isTLS, tunnel: authority), position: .after(context.handler))
            pipeline.syncOperations.removeHandler(context: context, promise: nil)
            // From the pipeline's head: through TLS, when it is in front now.
            pipeline.syncOperations.fireChannelRead(NIOAny(bytes))
        } catch {
            core.logger.debug("a tunnel to \(authority) cannot be opened: \(error)")
            context.close(promise: nil)
        }
    }
}
