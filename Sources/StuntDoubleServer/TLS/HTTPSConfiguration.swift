import Foundation

extension HTTPStubServer {
    /// HTTPS: a second listener, with TLS, serving the same stubs, journal and admin API.
    ///
    /// ```swift
    /// var configuration = HTTPStubServer.Configuration()
    /// configuration.https = .init(identity: .generated(authorityFolder: folder))
    /// let server = HTTPStubServer(configuration: configuration)
    /// try await server.start()
    /// // server.httpsBaseURL: https://127.0.0.1:<port>; trust server.certificateAuthorityFile in the client.
    /// ```
    public struct HTTPSConfiguration: Sendable {
        /// The port; 0 (the default) picks a free one, which ``HTTPStubServer/httpsBaseURL`` reports.
        public var port: Int
        /// The certificate the server presents.
        public var identity: Identity
        /// Whether clients that offer HTTP/2 (ALPN's `h2`) get it; off, every connection speaks HTTP/1.1
        /// (WireMock's `--disable-http2-tls`). On by default.
        public var offersHTTP2 = true
        /// Client certificates (mutual TLS; WireMock's `--https-require-client-cert` and `--https-truststore`):
        /// every client must present a certificate that one of these authorities signed, or its handshake fails.
        /// `nil` (the default): clients are not asked for one.
        public var clientCertificateAuthorities: TrustStore?

        /// Certificate authorities to trust.
        public enum TrustStore: Sendable {
            /// The system's trusted authorities (WireMock, given no trust store, trusts Java's).
            case system
            /// The certificates in a PEM file (`-----BEGIN CERTIFICATE-----`, one or more).
            case pem(URL)
            /// The certificates in a PKCS #12 trust store and its password (WireMock's `--https-truststore` and
            /// `--truststore-password`). A Java keystore (JKS) is refused with the `keytool` command that converts it.
            case keystore(URL, password: String)
        }

        /// Where the server's certificate comes from.
        public enum Identity: Sendable {
            /// A certificate made at start for `localhost`, `127.0.0.1` and `::1`, signed by a certificate
            /// authority kept in `authorityFolder` (`stuntdouble-ca.pem`, and its key `stuntdouble-ca-key.pem`
            /// readable by the owner only). The authority is made on first use and reused after, so that a client
            /// trusts it once.
            case generated(authorityFolder: URL)
            /// The user's own certificate chain and private key, in PEM files (the leaf first in the chain).
            case files(certificateChain: URL, privateKey: URL)
            /// The user's own certificate chain and private key in a PKCS #12 keystore and its password (WireMock's
            /// `--https-keystore` and `--keystore-password`). A Java keystore (JKS) is refused with the `keytool`
            /// command that converts it.
            case keystore(URL, password: String)
        }

        /// Creates an HTTPS configuration.
        /// - Parameters:
        ///   - port: The port; 0 picks a free one.
        ///   - identity: The certificate the server presents.
        public init(port: Int = 0, identity: Identity) {
            self.port = port
            self.identity = identity
        }

        /// The folder `stuntdouble serve --https-port` keeps its certificate authority in by default:
        /// `$XDG_DATA_HOME/stuntdouble`, or `~/.local/share/stuntdouble`.
        public static var defaultAuthorityFolder: URL {
            if let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !data.isEmpty {
                return URL(fileURLWithPath: data).appendingPathComponent("stuntdouble")
            }
            #if os(macOS) || os(Linux)
            let home = FileManager.default.homeDirectoryForCurrentUser
            #else
            // iOS, tvOS, watchOS and visionOS have no user home directory API: the app's own home.
            let home = URL(fileURLWithPath: NSHomeDirectory())
            #endif
            return home.appendingPathComponent(".local/share/stuntdouble")
        }
    }
}
