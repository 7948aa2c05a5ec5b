import ArgumentParser
import Foundation
import StuntDoubleServer
import StuntDoubleWireMock

/// WireMock's standalone options that `serve` has no option of its own for, with WireMock's names and meaning
/// (WireMock's `--port`, `--https-port`, `--verbose`, `--root-dir`, `--bind-address`, `--proxy-all`, the journal
/// and templating options are `serve`'s own or their other names). Jetty's and Java's options are accepted
/// elsewhere (``WireMockCommandLine``).
struct WireMockOptions: ParsableArguments {
    @Flag(help: "WireMock's: print no banner (StuntDouble prints none).")
    var disableBanner = false

    @Flag(
        help: """
            WireMock's: never gzip answers (by default, a stub's body of 32 bytes or more is gzipped for a client whose \
            Accept-Encoding names gzip, as WireMock does). Gzipped request bodies are matched as their text either way.
            """)
    var disableGzip = false

    @Flag(help: "WireMock's: no HTTP listener, HTTPS only (with --https-port).")
    var disableHttp = false

    @Flag(
        name: .customLong("disable-http2-plain"),
        help: "WireMock's: no HTTP/2 without TLS (h2c), which StuntDouble never serves.")
    var disableHttp2Plain = false

    @Flag(name: .customLong("disable-http2-tls"), help: "WireMock's: no HTTP/2 over TLS; HTTPS clients get HTTP/1.1.")
    var disableHttp2Tls = false

    @Flag(help: "WireMock's: no response is a template; response-template transformers do nothing.")
    var disableResponseTemplating = false

    @Flag(
        help: """
            WireMock's: log every connection's opening and closing and the bytes it reads and writes (after TLS; \
            bytes that are not text by their count).
            """)
    var printAllNetworkTraffic = false

    @Flag(help: "WireMock's: the admin API answers over HTTPS only (with --https-port); over HTTP, 403.")
    var adminApiRequireHttps = false

    @Option(help: "WireMock's: milliseconds an idle connection stays open (as --idle-timeout, in seconds).")
    var jettyIdleTimeout: Int?

    @Option(help: "WireMock's: the largest request head in bytes; a larger one gets 431.")
    var jettyHeaderRequestSize: Int?

    @Option(help: "WireMock's older name of --jetty-header-request-size.")
    var jettyHeaderBufferSize: Int?

    @Option(help: "WireMock's: milliseconds a WebSocket with no frame either way stays open (300,000); then 1001.")
    var websocketIdleTimeout: Int?

    @Option(help: "WireMock's: the largest WebSocket text message in bytes (10 MiB); a larger one closes with 1009.")
    var websocketMaxTextMessageSize: Int?

    @Option(help: "WireMock's: the largest WebSocket binary message in bytes (10 MiB); a larger one closes with 1009.")
    var websocketMaxBinaryMessageSize: Int?

    @Option(help: "WireMock's: milliseconds responses in progress get to finish when the server stops (5,000).")
    var jettyStopTimeout: Int?

    @Option(
        help: """
            WireMock's: a comma-separated list of regular expressions naming the environment variables the \
            systemValue helper may read (each matches a whole name, in any case; default wiremock.*).
            """)
    var permittedSystemKeys: String?

    @Flag(help: "WireMock's: forwarded requests keep the client's Host header.")
    var preserveHostHeader = false

    @Flag(help: "WireMock's: forwarded requests keep the client's User-Agent (StuntDouble always keeps it).")
    var preserveUserAgentProxyHeader = false

    @Option(
        help: """
            WireMock's: the only targets proxying and webhooks may reach, comma-separated: IPv4 addresses, ranges \
            (10.0.0.0-10.255.255.255) and host names (*.example.com). Others are answered 500.
            """)
    var allowProxyTargets: String?

    @Option(help: "WireMock's: targets proxying and webhooks may not reach, written as for --allow-proxy-targets.")
    var denyProxyTargets: String?

    @Option(help: "WireMock's: an HTTP proxy (host:port) that forwarded requests go through.")
    var proxyVia: String?

    @Option(help: "WireMock's: milliseconds a forwarded request waits for the upstream's next bytes.")
    var proxyTimeout: Int?

    @Option(
        help: """
            WireMock's: the codings a forwarded request's Accept-Encoding may keep, comma-separated (gzip,deflate); \
            the others are taken out.
            """)
    var supportedProxyEncodings: String?

    @Option(help: "WireMock's: Java extension classes (none can load here; their stubs answer 500 saying so).")
    var extensions: String?

    @Flag(
        help: """
            WireMock's: write each proxied exchange whose request is new as a mapping and a body file in the root's \
            mappings/ and __files/ (the current folder without --root-dir), before the client gets the answer. They \
            are served when the root is next loaded.
            """)
    var recordMappings = false

    @Option(help: "WireMock's: request headers recorded mappings match, comma-separated (with --record-mappings).")
    var matchHeaders: String?

    @Option(help: "WireMock's: how WireMock 3 names the mapping files it writes (no effect here).")
    var filenameTemplate: String?

    @Option(
        help: """
            WireMock's: a PKCS #12 keystore with the HTTPS certificate and its key (with --https-port). A Java \
            keystore (JKS) is refused with the keytool command that converts it.
            """)
    var httpsKeystore: String?

    @Option(help: "WireMock's: the keystore's password (with --https-keystore; WireMock's default: password).")
    var keystorePassword: String?

    @Option(help: "WireMock's: the keystore's type (with --https-keystore).")
    var keystoreType: String?

    @Option(help: "WireMock's: the keystore's key password (with --https-keystore).")
    var keyManagerPassword: String?

    @Option(
        help: """
            WireMock's: the authorities client certificates must be signed by (with --https-require-client-cert): a \
            PKCS #12 trust store, or PEM certificates. A Java keystore (JKS) is refused with the keytool command that \
            converts it.
            """)
    var httpsTruststore: String?

    @Option(help: "WireMock's: the trust store's password (with --https-truststore; WireMock's default: password).")
    var truststorePassword: String?

    @Option(help: "WireMock's: the trust store's type (with --https-truststore).")
    var truststoreType: String?

    @Flag(
        help: """
            WireMock's: HTTPS clients must present a certificate signed by an authority of --https-truststore (the \
            system's without it); a client without one fails the handshake.
            """)
    var httpsRequireClientCert = false

    @Flag(
        help: """
            WireMock's: be clients' HTTP proxy too: stubs answer where they match, the site where none does;             https:// sites through a tunnel with a certificate signed by the authority (--ca-keystore, or the one             of --https-ca-folder, given at /__admin/certs/wiremock-ca.crt).
            """)
    var enableBrowserProxying = false

    @Flag(help: "WireMock's: take any certificate from sites browser proxying forwards to.")
    var trustAllProxyTargets = false

    @Option(help: "WireMock's: take any certificate from this site when browser proxying (one host each).")
    var trustProxyTarget: [String] = []

    @Option(help: "WireMock's: a PKCS #12 keystore holding the authority that signs browser proxying's tunnels.")
    var caKeystore: String?

    @Option(help: "WireMock's: its password (with --ca-keystore; \"password\" by default).")
    var caKeystorePassword: String?

    @Option(help: "WireMock's: its type (with --ca-keystore; read as PKCS #12 here).")
    var caKeystoreType: String?

    @Option(help: "WireMock's: false to answer unmatched browser-proxied requests 404 instead of passing them on.")
    var proxyPassThrough: String?

    @Option(help: "WireMock's: Java class path resources as the root (there is no class path here).")
    var loadResourcesFromClasspath: String?

    /// An option that changes only what the journal keeps: given, the server starts, and says in one line that it
    /// has no effect.
    @Option(help: "WireMock's: the journal's limit of response body bytes (no effect: none are kept).")
    var loggedResponseBodySizeLimit: Int?

    /// Set by ``WireMockCommandLine/prepare(_:)`` for each of WireMock's options that has no effect here.
    @Option(name: .customLong("wiremock-no-effect"), help: .private)
    var noEffect: [String] = []
}
