import ArgumentParser
import Foundation
import StuntDoubleServer
import StuntDoubleWireMock

/// What WireMock's options mean here: the server's settings they change, the ones that cannot be served yet
/// (the command stops and says what to do instead), and one line for each that changes nothing.
extension WireMockOptions {
    func validate() throws {
        for (flag, value) in [
            ("--jetty-idle-timeout", jettyIdleTimeout), ("--jetty-stop-timeout", jettyStopTimeout),
            ("--proxy-timeout", proxyTimeout),
        ] {
            if let value, value <= 0 || value > 1_000_000_000 {
                throw ValidationError("\(flag) must be a number of milliseconds above 0 (it is \(value)).")
            }
        }
        if let size = jettyHeaderRequestSize ?? jettyHeaderBufferSize, size < 64 {
            throw ValidationError("--jetty-header-request-size must be 64 bytes or more (it is \(size)).")
        }
        if let proxyVia { _ = try Self.proxyServer(proxyVia) }
        if let unsupported = unsupported {
            throw ValidationError(unsupported)
        }
    }

    /// Why the options cannot be served as given: WireMock's rules for options that need another, then the
    /// options StuntDouble does not support yet.
    private var unsupported: String? {
        if keystorePassword != nil, httpsKeystore == nil {
            return "--keystore-password is the password of --https-keystore: give the keystore too (as WireMock asks)."
        }
        if truststorePassword != nil, httpsTruststore == nil {
            return "--truststore-password is the password of --https-truststore: give the trust store too (as "
                + "WireMock asks)."
        }
        if !enableBrowserProxying, trustAllProxyTargets || !trustProxyTarget.isEmpty || caKeystore != nil {
            return "--trust-all-proxy-targets, --trust-proxy-target and --ca-keystore are for browser proxying: they "
                + "need --enable-browser-proxying (as WireMock asks)."
        }
        if caKeystore == nil, caKeystorePassword != nil || caKeystoreType != nil {
            return
                "--ca-keystore-password and --ca-keystore-type describe --ca-keystore: give it too (as WireMock asks)."
        }
        if recordMappings {
            return
                "--record-mappings is not supported yet. Record with `stuntdouble record --upstream URL --root DIR`: "
                + "it forwards every request and writes WireMock mappings and __files when it stops."
        }
        if httpsTruststore != nil || httpsRequireClientCert {
            return "--https-truststore and --https-require-client-cert are not supported yet: StuntDouble's HTTPS "
                + "does not ask clients for certificates, so it would let in clients WireMock would refuse."
        }
        if adminApiRequireHttps {
            return "--admin-api-require-https is not supported yet: the admin API would answer over plain HTTP too. "
                + "Protect it with --admin-api-basic-auth or --admin-token, or turn it off with --no-admin."
        }
        if enableBrowserProxying {
            return "--enable-browser-proxying is not supported yet: StuntDouble is not a forward proxy. Point the "
                + "client at the server and give the upstream with --proxy-all URL (or stuntdouble record)."
        }
        if allowProxyTargets != nil || denyProxyTargets != nil {
            return "--allow-proxy-targets and --deny-proxy-targets are not supported yet: proxying would reach "
                + "addresses they rule out. Proxy only to the upstream given with --proxy-all, and give proxying "
                + "stubs only the addresses you mean."
        }
        if let loadResourcesFromClasspath {
            return "--load-resources-from-classpath \(loadResourcesFromClasspath): there is no Java class path "
                + "here; give the folder holding mappings/ and __files/ with --root-dir."
        }
        return nil
    }

    /// One line for each option given that changes nothing here, or is not done yet but leaves what clients get
    /// as WireMock's.
    /// - Parameter hasHTTPS: Whether the server serves HTTPS (`--https-port`).
    /// - Returns: The lines, in the order of WireMock's options.
    func notices(hasHTTPS: Bool) -> [String] {
        var notices = noEffect.compactMap { name in
            WireMockCommandLine.noEffect[name].map { "--\(name) has no effect here: \($0)" }
        }
        func note(_ given: Bool, _ line: String) {
            if given { notices.append(line) }
        }
        note(
            disableHttp,
            "--disable-http is not supported yet: the HTTP listener stays open beside HTTPS (--port 0 puts it on a "
                + "free port)")
        note(
            printAllNetworkTraffic,
            "--print-all-network-traffic is not supported yet: --verbose logs each request's headers and the stub "
                + "that answered")
        note(
            supportedProxyEncodings != nil,
            "--supported-proxy-encodings is not supported yet: forwarded requests keep the client's Accept-Encoding")
        note(
            loggedResponseBodySizeLimit != nil,
            "--logged-response-body-size-limit has no effect here: the journal keeps request bodies "
                + "(--journal-body-limit), not response bodies")
        note(
            websocketIdleTimeout != nil || websocketMaxTextMessageSize != nil || websocketMaxBinaryMessageSize != nil,
            "--websocket-idle-timeout and --websocket-max-*-message-size are not supported yet: WebSockets close "
                + "with their connection's --idle-timeout and take messages up to 16 MiB")
        note(
            extensions != nil,
            "--extensions: Java extensions cannot load here; a stub that names one of their transformers answers "
                + "500 saying so (stuntdouble check lists them)")
        note(
            (matchHeaders != nil || filenameTemplate != nil) && !recordMappings,
            "--match-headers and --filename-template have no effect without --record-mappings")
        note(
            (keystoreType != nil || keyManagerPassword != nil) && httpsKeystore == nil,
            "--keystore-type and --key-manager-password have no effect without --https-keystore")
        note(
            httpsKeystore != nil && (keystoreType != nil || keyManagerPassword != nil),
            "--keystore-type and --key-manager-password have no effect here: a keystore is read as PKCS #12, whose "
                + "key has the keystore's password")
        note(httpsKeystore != nil && !hasHTTPS, "--https-keystore has no effect without --https-port")
        note(
            truststoreType != nil && httpsTruststore == nil,
            "--truststore-type has no effect without --https-truststore")
        note(
            proxyPassThrough != nil,
            "--proxy-pass-through has no effect here: it is for browser proxying, which is not supported yet")
        return notices
    }

    /// Applies the options to a server's configuration (after its HTTPS is set).
    func apply(to configuration: inout HTTPStubServer.Configuration) throws {
        if let httpsKeystore, configuration.https != nil {
            if case .files = configuration.https?.identity {
                throw ValidationError("--https-keystore and --https-certificate each give the certificate: give one.")
            }
            // WireMock's default password, as its own keystore has.
            configuration.https?.identity = .keystore(
                URL(fileURLWithPath: httpsKeystore), password: keystorePassword ?? "password")
        }
        if let jettyIdleTimeout { configuration.idleTimeout = .milliseconds(jettyIdleTimeout) }
        if let size = jettyHeaderRequestSize ?? jettyHeaderBufferSize { configuration.maximumHeaderSize = size }
        if disableHttp2Tls { configuration.https?.offersHTTP2 = false }
        configuration.gzipsResponses = !disableGzip
        configuration.preservesHostHeader = preserveHostHeader
        configuration.upstreamProxyServer = try proxyVia.map(Self.proxyServer)
        configuration.upstreamReadTimeout = proxyTimeout.map { .milliseconds($0) }
    }

    /// How long responses in progress get when the server stops.
    var stopGracePeriod: Duration { .milliseconds(jettyStopTimeout ?? 5_000) }

    /// The templates' environment: the clock, the seed, and the environment variables `systemValue` may read.
    func templateEnvironment(now: @escaping @Sendable () -> Date, seed: UInt64?) throws -> TemplateEnvironment {
        let keys = (permittedSystemKeys ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        do {
            return try TemplateEnvironment(now: now, seed: seed, permittedSystemKeys: keys.filter { !$0.isEmpty })
        } catch {
            throw ValidationError("--permitted-system-keys: \(error.message)")
        }
    }

    /// `--proxy-via`'s `host:port` (or `http://host:port`; port 80 when left out).
    static func proxyServer(_ text: String) throws -> HTTPStubServer.Configuration.ProxyServer {
        let url = URL(string: text.contains("://") ? text : "http://\(text)")
        guard let url, url.scheme?.lowercased() == "http", let host = url.host, !host.isEmpty, url.user == nil,
            url.path.isEmpty || url.path == "/", url.query == nil
        else {
            throw ValidationError(
                "--proxy-via \(text) is not a proxy's address: give host:port, such as proxy.example.com:3128.")
        }
        let port = url.port ?? 80
        guard (1...65535).contains(port) else {
            throw ValidationError("--proxy-via \(text): \(port) is not a port; give 1 to 65535.")
        }
        return .init(host: host, port: port)
    }
}
