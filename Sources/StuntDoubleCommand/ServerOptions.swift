import ArgumentParser
import Foundation
import StuntDouble
import StuntDoubleOpenAPI
import StuntDoubleServer

/// The admin API's options, the same for `serve` and `record`.
struct AdminOptions: ParsableArguments {
    @Flag(name: .customLong("no-admin"), help: "Turn off WireMock's admin API and the traffic page (/__admin/).")
    var noAdmin = false

    @Option(
        help:
            "A token every admin call must carry (Authorization: Bearer TOKEN); needed with --host other than loopback."
    )
    var adminToken: String?

    @Option(
        name: .customLong("admin-api-basic-auth"),
        help: "WireMock's: a username:password every admin call may carry instead (Authorization: Basic).")
    var basicCredentials: String?

    @Flag(
        help: """
            Let an admin API with neither a token nor basic credentials listen on an address other than loopback, \
            as WireMock does: only where just trusted clients reach the address (a container's own network).
            """)
    var openAdmin = false

    func validate() throws {
        if let basicCredentials, !basicCredentials.contains(":") {
            throw ValidationError("--admin-api-basic-auth must be username:password (it is \"\(basicCredentials)\").")
        }
    }

    func apply(to configuration: inout HTTPStubServer.Configuration) {
        configuration.isAdminAPIEnabled = !noAdmin
        configuration.adminToken = adminToken
        configuration.adminBasicCredentials = basicCredentials
        configuration.allowsOpenAdminAPI = openAdmin
    }
}

/// The request journal's options, named as WireMock's.
struct JournalOptions: ParsableArguments {
    @Option(
        name: .customLong("max-request-journal-entries"),
        help: "How many requests the journal keeps (the newest; counts and finds say when older ones were dropped).")
    var maximumEntries = 10_000

    @Flag(
        name: .customLong("no-request-journal"),
        help: "Keep no journal: no request can be counted or found, and memory stays flat.")
    var noJournal = false

    @Option(
        name: .customLong("journal-body-limit"),
        help: "How many bytes of each request body the journal keeps (entries note the true length).")
    var bodyLimit = 64 << 10

    func validate() throws {
        if maximumEntries < 0 {
            throw ValidationError("--max-request-journal-entries must be 0 or more (0 keeps no journal).")
        }
        if bodyLimit < 0 {
            throw ValidationError("--journal-body-limit must be 0 or more bytes.")
        }
    }

    func apply(to configuration: inout HTTPStubServer.Configuration) {
        configuration.journalCapacity = noJournal ? 0 : maximumEntries
        configuration.journalBodyLimit = bodyLimit
    }
}

/// HTTPS, as WireMock names its options where it has them (`--https-port`).
struct HTTPSOptions: ParsableArguments {
    @Option(
        name: .customLong("https-port"),
        help: "Also serve HTTPS on this port (0 picks a free one), with a certificate for localhost and 127.0.0.1.")
    var port: Int?

    @Option(
        name: .customLong("https-certificate"),
        help: "The HTTPS certificate chain (PEM, the server's first) instead of a made one; needs --https-key.")
    var certificate: String?

    @Option(name: .customLong("https-key"), help: "The private key (PEM) of --https-certificate.")
    var key: String?

    @Option(
        name: .customLong("https-ca-folder"),
        help: ArgumentHelp(
            "Where the certificate authority that signs the made certificate is kept (made on first use, then "
                + "reused). Default: $XDG_DATA_HOME/stuntdouble or ~/.local/share/stuntdouble."))
    var authorityFolder: String?

    func validate() throws {
        if (certificate == nil) != (key == nil) {
            throw ValidationError("--https-certificate and --https-key go together: give both, or neither.")
        }
        if port == nil, certificate != nil || authorityFolder != nil {
            throw ValidationError("--https-certificate, --https-key and --https-ca-folder need --https-port.")
        }
        if certificate != nil, authorityFolder != nil {
            throw ValidationError("--https-ca-folder is for a made certificate; with --https-certificate it is unused.")
        }
    }

    func configuration() throws -> HTTPStubServer.HTTPSConfiguration? {
        guard let port else { return nil }
        if let certificate, let key {
            return .init(
                port: port,
                identity: .files(
                    certificateChain: URL(fileURLWithPath: certificate), privateKey: URL(fileURLWithPath: key)))
        }
        let folder =
            authorityFolder.map { URL(fileURLWithPath: $0) } ?? HTTPStubServer.HTTPSConfiguration.defaultAuthorityFolder
        return .init(port: port, identity: .generated(authorityFolder: folder))
    }
}

/// Serving OpenAPI documents (`serve --openapi`), as Prism's users expect.
struct OpenAPIOptions: ParsableArguments {
    @Option(
        name: .customLong("openapi"),
        help: """
            An OpenAPI document (3.0 or 3.1, JSON or YAML) to answer and check requests from; may be given more \
            than once. Stub files under --root win over it for the requests they match.
            """)
    var documents: [String] = []

    @Flag(
        help: """
            Check requests against the --openapi documents, but let stubs (or --proxy) answer them instead of the \
            documents' examples.
            """)
    var validateOnly = false

    @Flag(
        name: .customLong("no-validation"),
        help: "Answer from the --openapi documents without checking requests against them.")
    var noValidation = false

    @Flag(
        help: """
            Generate a new value from the schemas for every request (Prism's --dynamic); a request may ask for \
            either with Prefer: dynamic=true|false.
            """)
    var dynamic = false

    @Option(help: "The seed of values generated from schemas: the same seed, the same answers.")
    var seed: UInt64 = 0

    @Flag(
        help: """
            Keep what requests make, still checking each request and answer against the --openapi documents: \
            POST /pets makes a pet that GET /pets/{petId} returns and GET /pets lists; PUT and PATCH change it; \
            DELETE removes it. POST /__admin/reset starts over.
            """)
    var stateful = false

    /// What a stateful document's collections hold at the start.
    enum InitialState: String, ExpressibleByArgument, CaseIterable {
        case empty, examples
    }

    @Option(
        help: """
            What --stateful collections hold at the start (and after a reset): empty, or the resources the \
            documents' examples show (examples).
            """)
    var initialState: InitialState = .empty

    @Flag(
        help: """
            Serve the --openapi documents' response examples as written, even those that break their schemas             (Prism's way). Without it such an example is not served (a line at start says where it is and what it             breaks) and the answer is a value made from the schema.
            """)
    var examplesAsWritten = false

    @Flag(
        help: """
            With --proxy: answer a request that breaks the --openapi documents with their error instead of \
            forwarding it, and an upstream's answer that breaks them with a 502 problem document (RFC 9457), as \
            Prism's --errors does. Without it, violations are reported in the StuntDouble-Violations header, the \
            journal and the log.
            """)
    var errors = false

    /// A document to serve, and how.
    struct Serving {
        var contract: OpenAPIContract
        let validatesRequests: Bool
        let answersRequests: Bool
        let answering: OpenAPIAnswering
        /// Behind `--proxy`: the document checks forwarded traffic; whether it refuses what breaks it.
        var checksForwarded: (refusesRequests: Bool, refusesAnswers: Bool)?

        /// Loads the document into the stubber a server serves.
        @discardableResult
        func load(into stubber: HTTPStubber) -> LoadedOpenAPIDocument {
            if let checksForwarded {
                return stubber.load(
                    checkingForwardedTrafficAgainst: contract, refusesRequests: checksForwarded.refusesRequests,
                    refusesAnswers: checksForwarded.refusesAnswers)
            }
            return stubber.load(
                contract, validatesRequests: validatesRequests, answersRequests: answersRequests, answering: answering)
        }
    }

    /// The documents to serve; `forwarding` when the server has an upstream (`--proxy`): then they check the
    /// traffic forwarded to it (Prism's proxy mode) instead of answering.
    func servings(deviations: OpenAPIContract.Deviations = .tolerate, forwarding: Bool = false) throws -> [Serving] {
        if validateOnly && noValidation {
            throw ValidationError("--validate-only and --no-validation together would neither check nor answer.")
        }
        if forwarding && (noValidation || stateful) {
            throw ValidationError(
                "With --proxy, the --openapi documents check what is forwarded to the upstream, which answers: "
                    + "\(noValidation ? "--no-validation" : "--stateful") has nothing to do there.")
        }
        if errors && !forwarding {
            throw ValidationError("--errors is for a validating proxy: add --proxy URL (the upstream to check).")
        }
        if stateful && validateOnly {
            throw ValidationError(
                "--stateful answers from the documents, and --validate-only lets stubs answer instead: give one.")
        }
        if initialState == .examples && !stateful {
            throw ValidationError("--initial-state examples is for --stateful documents: add --stateful.")
        }
        var answering = OpenAPIAnswering(
            seed: seed, isDynamic: dynamic, isStateful: stateful, startsFromExamples: initialState == .examples)
        answering.servesExamplesAsWritten = examplesAsWritten
        return try documents.map { path in
            do {
                let contract = try OpenAPIContract(contentsOf: URL(fileURLWithPath: path), deviations: deviations)
                return Serving(
                    contract: contract, validatesRequests: !noValidation, answersRequests: !validateOnly && !forwarding,
                    answering: answering,
                    checksForwarded: forwarding ? (validateOnly || errors, errors) : nil)
            } catch {
                throw ValidationError("--openapi \(path): \(error)")
            }
        }
    }
}
