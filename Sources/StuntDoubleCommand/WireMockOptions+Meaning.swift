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
            ("--proxy-timeout", proxyTimeout), ("--websocket-idle-timeout", websocketIdleTimeout),
        ] {
            if let value, value <= 0 || value > 1_000_000_000 {
                throw ValidationError("\(flag) must be a number of milliseconds above 0 (it is \(value)).")
            }
        }
        for (flag, size) in [
            ("--websocket-max-text-message-size", websocketMaxTextMessageSize),
            ("--websocket-max-binary-message-size", websocketMaxBinaryMessageSize),
        ] {
            if let size, !(1...Int(UInt32.max)).contains(size) {
                throw ValidationError("\(flag) must be a number of bytes from 1 to 4294967295 (it is \(size)).")
            }
        }
        if let size = jettyHeaderRequestSize ?? jettyHeaderBufferSize, size < 64 {
            throw ValidationError("--jetty-header-request-size must be 64 bytes or more (it is \(size)).")
        }
        if let proxyVia { _ = try Self.proxyServer(proxyVia) }
        _ = try proxyTargetRules
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
            loggedResponseBodySizeLimit != nil,
            "--logged-response-body-size-limit has no effect here: the journal keeps request bodies "
                + "(--journal-body-limit), not response bodies")
        note(
            extensions != nil,
            "--extensions: Java extensions cannot load here; a stub that names one of their transformers answers "
                + "500 saying so (stuntdouble check lists them)")
        note(matchHeaders != nil && !recordMappings, "--match-headers has no effect without --record-mappings")
        note(
            filenameTemplate != nil,
            "--filename-template has no effect here: the mapping files StuntDouble writes are named by the stub's "
                + "name (or method and URL) and the start of its id, such as get-users-8c5db8b0.json")
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
            truststoreType != nil && httpsTruststore != nil,
            "--truststore-type has no effect here: a trust store is read as PEM or PKCS #12, as its content says")
        note(
            httpsTruststore != nil && !httpsRequireClientCert,
            "--https-truststore has no effect without --https-require-client-cert: clients are not asked for "
                + "certificates (as in WireMock)")
        note(
            httpsRequireClientCert && !hasHTTPS, "--https-require-client-cert has no effect without --https-port")
        note(
            proxyPassThrough != nil && !enableBrowserProxying,
            "--proxy-pass-through has no effect without --enable-browser-proxying")
        note(
            caKeystoreType != nil,
            "--ca-keystore-type has no effect here: the CA keystore is read as PKCS #12 (a JKS one is refused with "
                + "the keytool command that converts it)")
        return notices
    }

    /// Applies the options to a server's configuration (after its HTTPS is set).
    /// - Parameters:
    ///   - configuration: The configuration to change.
    ///   - root: The folder served (`--root-dir`), if given: `--record-mappings` writes there, or to the current
    ///     folder, as WireMock's default root is.
    /// - Throws: `ValidationError` naming options that cannot be served together.
    func apply(to configuration: inout HTTPStubServer.Configuration, root: String?) throws {
        if let httpsKeystore, configuration.https != nil {
            if case .files = configuration.https?.identity {
                throw ValidationError("--https-keystore and --https-certificate each give the certificate: give one.")
            }
            // WireMock's default password, as its own keystore has.
            configuration.https?.identity = .keystore(
                URL(fileURLWithPath: httpsKeystore), password: keystorePassword ?? "password")
        }
        if httpsRequireClientCert, configuration.https != nil {
            configuration.https?.clientCertificateAuthorities =
                httpsTruststore.map { path in
                    let url = URL(fileURLWithPath: path)
                    let start = FileManager.default.contents(atPath: path)?.prefix(10) ?? Data()
                    return start == Data("-----BEGIN".utf8)
                        ? .pem(url) : .keystore(url, password: truststorePassword ?? "password")
                } ?? .system
        }
        if let websocketIdleTimeout { configuration.webSocketLimits.idleTimeout = .milliseconds(websocketIdleTimeout) }
        if let size = websocketMaxTextMessageSize { configuration.webSocketLimits.maximumTextMessageSize = size }
        if let size = websocketMaxBinaryMessageSize { configuration.webSocketLimits.maximumBinaryMessageSize = size }
        if let jettyIdleTimeout { configuration.idleTimeout = .milliseconds(jettyIdleTimeout) }
        if let size = jettyHeaderRequestSize ?? jettyHeaderBufferSize { configuration.maximumHeaderSize = size }
        if disableHttp2Tls { configuration.https?.offersHTTP2 = false }
        configuration.gzipsResponses = !disableGzip
        if adminApiRequireHttps, configuration.https == nil, configuration.isAdminAPIEnabled {
            throw ValidationError(
                "--admin-api-require-https needs https (--https-port): the admin API could not be reached.")
        }
        configuration.adminRequiresHTTPS = adminApiRequireHttps
        if disableHttp, configuration.https == nil {
            throw ValidationError("--disable-http needs --https-port: nothing would listen.")
        }
        configuration.servesHTTP = !disableHttp
        configuration.printsNetworkTraffic = printAllNetworkTraffic
        configuration.preservesHostHeader = preserveHostHeader
        configuration.upstreamProxyServer = try proxyVia.map(Self.proxyServer)
        configuration.upstreamReadTimeout = proxyTimeout.map { .milliseconds($0) }
        configuration.proxyTargetRules = try proxyTargetRules
        configuration.browserProxying = browserProxying(https: configuration.https)
        configuration.supportedProxyEncodings = supportedProxyEncodings.map { list in
            Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        if recordMappings {
            let headers = (matchHeaders ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            configuration.mappingRecording = .init(
                root: URL(fileURLWithPath: root ?? FileManager.default.currentDirectoryPath),
                matchedHeaders: headers.filter { !$0.isEmpty })
        }
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

    /// `--allow-proxy-targets` and `--deny-proxy-targets` (comma-separated), or `nil` when neither is given.
    var proxyTargetRules: HTTPStubServer.Configuration.ProxyTargetRules? {
        get throws {
            guard allowProxyTargets != nil || denyProxyTargets != nil else { return nil }
            func rules(_ text: String?) -> [String] {
                (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            }
            do {
                return try HTTPStubServer.Configuration.ProxyTargetRules(
                    allowing: rules(allowProxyTargets), denying: rules(denyProxyTargets))
            } catch {
                throw ValidationError("--allow-proxy-targets, --deny-proxy-targets: \(error.message)")
            }
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

    /// Browser proxying as the options ask for it, or `nil`: tunnels' certificates are signed by `--ca-keystore`,
    /// or by the authority the HTTPS listener's generated certificate uses (`--https-ca-folder`).
    private func browserProxying(https: HTTPStubServer.HTTPSConfiguration?) -> HTTPStubServer.BrowserProxying? {
        guard enableBrowserProxying else { return nil }
        let authority: HTTPStubServer.BrowserProxying.Authority
        if let caKeystore {
            // WireMock's default password, as its own CA keystore has.
            authority = .keystore(URL(fileURLWithPath: caKeystore), password: caKeystorePassword ?? "password")
        } else if case .generated(let folder) = https?.identity {
            authority = .generated(authorityFolder: folder)
        } else {
            authority = .generated(authorityFolder: HTTPStubServer.HTTPSConfiguration.defaultAuthorityFolder)
        }
        var proxying = HTTPStubServer.BrowserProxying(authority: authority)
        // As Java's Boolean.parseBoolean reads it (WireMock's): "true" in any case, and anything else is false.
        proxying.passesThrough = proxyPassThrough.map { $0.lowercased() == "true" } ?? true
        proxying.trustsAllTargets = trustAllProxyTargets
        proxying.trustedTargets = Set(trustProxyTarget)
        return proxying
    }
}
