/// WireMock's standalone command line (`java -jar wiremock-standalone.jar --port 8080 ...`, and the arguments after
/// the image's name in `docker run wiremock/wiremock ...`), read as `stuntdouble serve` reads it.
///
/// Most of WireMock's options are `serve` options of the same name (``WireMockOptions``). The ones that tune what
/// WireMock runs on (Jetty's threads and buffers, Java's XML factories and class path scanning) cannot mean
/// anything here: ``prepare(_:)`` turns each into `--wiremock-no-effect NAME`, which `serve` accepts and names in
/// one line, so that a docker-compose file's command line starts the server as it starts WireMock.
enum WireMockCommandLine {
    /// WireMock's options (2.35.1's `--help`, and 3.x's) that have no effect here, each with why.
    static let noEffect: [String: String] = [
        "container-threads":
            "Jetty's request threads; connections are served by one event loop per core (--threads)",
        "async-response-enabled":
            "Jetty's asynchronous responses; every response is asynchronous here",
        "async-response-threads":
            "Jetty's asynchronous response threads; delays never hold a thread here",
        "jetty-acceptor-threads":
            "Jetty's acceptor threads",
        "jetty-accept-queue-size":
            "Jetty's accept queue",
        "jetty-header-response-size":
            "Jetty's buffer for response headers; any size of response head is written",
        "disable-optimize-xml-factories-loading":
            "Java's XML factories; XML is read by StuntDouble's own parser",
        "disable-strict-http-headers":
            "Jetty's header checks; request heads are read as SwiftNIO reads them",
        "timeout":
            "WireMock's in-process (direct call) server's timeout; its HTTP server does not read it either",
        "max-template-cache-entries":
            "templates are compiled once, when their stubs load, so there is no cache to bound",
        "webhook-threadpool-size":
            "webhooks are sent without threads of their own",
        "max-http-client-connections":
            "the proxy's connections are limited at 1,000 per upstream, WireMock's default",
        "disable-connection-reuse":
            "the proxy's client; connections to an upstream are reused",
        "disable-extensions-scanning":
            "Java's class path; there are no extensions to find",
        "use-chunked-encoding":
            "responses whose length is known carry Content-Length, the rest are chunked (as body_file)",
    ]

    /// How a WireMock option takes its value.
    enum Arity: Sendable {
        /// None: given is on, and a value written after `=` is ignored (as jopt-simple ignores it).
        case flag
        /// One, after a space or `=`.
        case value
        /// One that may be left out (jopt-simple's optional arguments).
        case optionalValue
    }

    /// Every option of WireMock's standalone command line: 2.35.1's `--help`, and 3.x's.
    static let options: [String: Arity] = {
        var options: [String: Arity] = [:]
        for name in [
            "help", "version", "disable-http", "disable-http2-plain", "disable-http2-tls",
            "disable-optimize-xml-factories-loading", "disable-strict-http-headers", "https-require-client-cert",
            "preserve-host-header", "preserve-user-agent-proxy-header", "record-mappings", "verbose",
            "enable-browser-proxying", "no-request-journal", "disable-banner", "disable-extensions-scanning",
            "print-all-network-traffic", "global-response-templating", "local-response-templating",
            "disable-response-templating", "admin-api-require-https", "disable-gzip", "disable-request-logging",
            "enable-stub-cors", "trust-all-proxy-targets",
        ] {
            options[name] = .flag
        }
        for name in [
            "port", "https-port", "bind-address", "container-threads", "timeout", "https-truststore",
            "truststore-type", "truststore-password", "https-keystore", "keystore-type", "keystore-password",
            "key-manager-password", "proxy-all", "proxy-via", "match-headers", "root-dir", "extensions",
            "max-request-journal-entries", "jetty-acceptor-threads", "jetty-accept-queue-size",
            "jetty-header-buffer-size", "jetty-header-request-size", "jetty-header-response-size",
            "jetty-stop-timeout", "jetty-idle-timeout", "filename-template", "admin-api-basic-auth",
            "async-response-enabled", "async-response-threads", "use-chunked-encoding", "trust-proxy-target",
            "ca-keystore", "ca-keystore-password", "ca-keystore-type", "load-resources-from-classpath",
            "logged-response-body-size-limit", "allow-proxy-targets", "deny-proxy-targets", "proxy-timeout",
            "proxy-pass-through", "max-http-client-connections", "disable-connection-reuse",
            "supported-proxy-encodings", "webhook-threadpool-size", "websocket-idle-timeout",
            "websocket-max-text-message-size", "websocket-max-binary-message-size",
        ] {
            options[name] = .value
        }
        options["max-template-cache-entries"] = .optionalValue
        options["permitted-system-keys"] = .optionalValue
        return options
    }()

    /// `serve`'s own options that begin a WireMock option's name: never read as its abbreviation.
    static let ownNames: Set<String> = ["https-key", "root"]

    /// The subcommands other than `serve`, whose arguments are left as they are.
    static let otherSubcommands: Set<String> = ["check", "record", "import-har", "help"]

    /// The WireMock option a name means, as jopt-simple (WireMock's parser) reads it: the whole name, or the
    /// beginning of exactly one (`--verb` is `--verbose`).
    static func option(named name: String) -> String? {
        if options[name] != nil { return name }
        guard !name.isEmpty, !ownNames.contains(name) else { return nil }
        let candidates = options.keys.filter { $0.hasPrefix(name) }
        return candidates.count == 1 ? candidates.first : nil
    }

    /// The arguments for the argument parser, WireMock's command line read as jopt-simple reads it: a WireMock
    /// option written with one dash (`-port`) or abbreviated (`--verb`) gets its whole name; a flag written with a
    /// value (`--disable-gzip=true`) is on, whatever the value; an option whose value may be left out and is
    /// (`--permitted-system-keys`) is dropped, as it means WireMock's default; and an option with no effect here
    /// becomes `--wiremock-no-effect NAME`.
    /// - Parameter arguments: The command line, without the program's name.
    /// - Returns: The command line for `StuntDoubleCommand`'s parser.
    static func prepare(_ arguments: [String]) -> [String] {
        if let first = arguments.first, otherSubcommands.contains(first) { return arguments }
        var prepared: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                prepared += arguments[(index - 1)...]
                break
            }
            let dashes = argument.hasPrefix("--") ? 2 : argument.hasPrefix("-") && argument.count > 2 ? 1 : 0
            let body = argument.dropFirst(dashes)
            let given = String(body.prefix { $0 != "=" })
            let inlineValue = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            guard dashes > 0, given.first?.isLetter == true, let name = option(named: given),
                let arity = options[name]
            else {
                prepared.append(argument)
                continue
            }
            let nextIsValue = index < arguments.endIndex && !arguments[index].hasPrefix("-")
            if noEffect[name] != nil {
                prepared += ["--wiremock-no-effect", name]
                if arity != .flag, inlineValue == nil, nextIsValue { index += 1 }
                continue
            }
            switch arity {
            case .flag:
                prepared.append("--\(name)")
            case .optionalValue where inlineValue == nil && !nextIsValue:
                // Given without its value, the option means WireMock's default: as if it were not given.
                continue
            case .value, .optionalValue:
                prepared.append(inlineValue.map { "--\(name)=\($0)" } ?? "--\(name)")
            }
        }
        return prepared
    }
}
