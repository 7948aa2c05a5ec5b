import StuntDouble

/// One operation of a contract: a method on a path template, what it takes and what it answers.
struct ContractOperation: Sendable {
    struct Parameter: Sendable {
        enum Place: String, Sendable {
            case path, query, header, cookie
        }

        /// How the value is written into its place: OpenAPI's `style`, `explode` and `allowReserved`.
        struct Serialization: Sendable {
            /// `simple`, `label`, `matrix`, `form`, `spaceDelimited`, `pipeDelimited` or `deepObject`.
            let style: String
            let explode: Bool
            let allowReserved: Bool

            /// A parameter's serialization as written, or the defaults of its place: `simple` in a path or a
            /// header, `form` in a query or a cookie; `form` explodes unless it says otherwise.
            init(of parameter: DocumentNode, in place: Place) {
                let defaultStyle =
                    switch place {
                    case .path, .header: "simple"
                    case .query, .cookie: "form"
                    }
                style = parameter["style"]?.text ?? defaultStyle
                explode = parameter["explode"]?.bool ?? (style == "form")
                allowReserved = parameter["allowReserved"]?.bool ?? false
            }
        }

        let name: String
        let place: Place
        let isRequired: Bool
        let serialization: Serialization
        /// The schema, or the schema of its `content` (a parameter sent as JSON text) when `isJSON`.
        let schema: Int?
        let isJSON: Bool
        let location: OpenAPISourceLocation
        let example: SchemaValue?
    }

    struct MediaType: Sendable {
        /// `application/json`, `application/*`, `*/*`...
        let name: String
        let schema: Int?
        /// Named examples, in the order written, with where each is; the first is the default.
        let examples: [(name: String, value: SchemaValue, location: OpenAPISourceLocation)]
        /// The `example`, and where it is.
        let example: (value: SchemaValue, location: OpenAPISourceLocation)?
        let location: OpenAPISourceLocation
        /// The positions in ``examples`` of those that break the schema (an answer's), and whether ``example``
        /// does: not served unless the document's examples are served as written.
        var brokenExamples: Set<Int> = []
        var isExampleBroken = false

        /// The examples answers may show, the named ones first, then `example`: those that break the schema are
        /// left out unless `asWritten`.
        func shownExamples(asWritten: Bool = false) -> [SchemaValue] {
            examples.indices.filter { asWritten || !brokenExamples.contains($0) }.map { examples[$0].value }
                + (asWritten || !isExampleBroken ? example.map { [$0.value] } ?? [] : [])
        }

        /// The example an answer shows: the first of ``shownExamples(asWritten:)``.
        func servedExample(asWritten: Bool = false) -> SchemaValue? {
            shownExamples(asWritten: asWritten).first
        }
    }

    struct Body: Sendable {
        let isRequired: Bool
        let contents: [MediaType]
        let location: OpenAPISourceLocation
    }

    struct Header: Sendable {
        let name: String
        let isRequired: Bool
        let schema: Int?
        let example: SchemaValue?
    }

    struct Response: Sendable {
        /// `200`, `4XX`, `default`.
        let code: String
        var contents: [MediaType]
        let headers: [Header]
        let location: OpenAPISourceLocation

        /// The status code to send: the code, or for a range (`4XX`) its first, for `default` 500 unless
        /// asked.
        var statusCode: Int {
            if let code = Int(code) { return code }
            if code.count == 3, code.hasSuffix("XX") || code.hasSuffix("xx"), let first = Int(code.prefix(1)) {
                return first * 100
            }
            return 500
        }

        func covers(_ status: Int) -> Bool {
            if let code = Int(code) { return code == status }
            if code.count == 3, let first = Int(code.prefix(1)) { return status / 100 == first }
            return false
        }
    }

    /// One way to authenticate: every scheme in it must be present.
    struct SecurityRequirement: Sendable {
        let schemes: [SecurityScheme]
    }

    struct SecurityScheme: Sendable {
        enum Kind: Sendable {
            case apiKey(name: String, place: Parameter.Place)
            case http(scheme: String)
            /// OAuth 2 and OpenID Connect: a bearer token.
            case bearerToken
            case mutualTLS
        }

        let name: String
        let kind: Kind
    }

    let method: HTTPMethod
    /// As written: `/pets/{petId}`.
    let path: String
    let operationID: String?
    let parameters: [Parameter]
    let body: Body?
    var responses: [Response]
    /// Alternatives: one must be met; empty when the operation needs none.
    let security: [SecurityRequirement]
    let location: OpenAPISourceLocation
    /// Where the security requirements are written: the operation's, or the document's.
    let securityLocation: OpenAPISourceLocation
    /// The path template's variables, in order.
    let pathVariables: [String]
    /// The `x-stuntdouble-*` extensions of the operation and of its path item (the operation's win): how the
    /// stateful mock reads the path (`x-stuntdouble-collection`, `x-stuntdouble-id`).
    let extensions: [String: SchemaValue]
    /// The requests the API makes to its client after answering this operation (its `callbacks`).
    let callbacks: [ContractCallback]

    /// `GET /pets/{petId} (getPet)`.
    var title: String {
        "\(method.rawValue) \(path)" + (operationID.map { " (\($0))" } ?? "")
    }

    /// What a request gets unless it asks otherwise (Prism's choice): the lowest 2xx with content, else the
    /// lowest 2xx, else `default`, else the first written that can end an exchange. A 1xx never can: an
    /// operation documenting only `101` (a WebSocket's upgrade, as Dropshot writes it) and its errors answers
    /// with its first error, since a request without the upgrade is one the API refuses.
    var preferredResponse: Response? {
        let successes = responses.filter { (200..<300).contains($0.statusCode) && $0.code != "default" }
            .sorted { $0.statusCode < $1.statusCode }
        return successes.first { !$0.contents.isEmpty } ?? successes.first
            ?? responses.first { $0.code == "default" } ?? responses.first { $0.statusCode >= 200 }
    }

    func response(for status: Int) -> Response? {
        responses.first { Int($0.code) == status } ?? responses.first { $0.covers(status) }
            ?? responses.first { $0.code == "default" }
    }
}

/// An operation's callback or a document's webhook: a request the API makes to its client.
struct ContractCallback: Sendable {
    /// The callback's name (`onEvent`), or the webhook's (`newPet`).
    let name: String
    /// A callback's key: the runtime expression of the URL (`{$request.body#/callbackUrl}`); empty for a webhook,
    /// whose URL the one firing it gives.
    let expression: String
    /// The request's method, parameters and body, and the answers it expects; its `path` is the expression (or
    /// the webhook's name).
    let operation: ContractOperation
}
