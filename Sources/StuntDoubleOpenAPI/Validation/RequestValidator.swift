import Foundation
import StuntDouble

/// What checking a request against a contract found.
enum RequestCheck: Sendable {
    /// The request keeps to its operation.
    case valid(operation: Int)
    /// The request breaks rules: the status that says so (400, 401, 404, 405, 415, 422) and the rules.
    case invalid(operation: Int?, status: Int, violations: [OpenAPIViolation], allowed: [HTTPMethod])
}

extension OpenAPIContract {
    /// A request's path and query as sent (percent-encoded), read from the URL's text: `URLComponents` costs
    /// microseconds a request.
    static func target(of request: HTTPIncomingRequest) -> (path: Substring, query: Substring?) {
        let text = request.url.absoluteString
        let bytes = text.utf8
        // Past `scheme://authority`, by bytes (by characters, this was a third of a check's time).
        var start = bytes.startIndex
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            let rest = bytes[bytes.index(after: colon)...]
            if rest.starts(with: "//".utf8) {
                let authority = rest.dropFirst(2)
                start =
                    authority.firstIndex(where: {
                        $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
                    }) ?? bytes.endIndex
            }
        }
        var end = bytes[start...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        var query: Substring?
        if let mark = bytes[start..<end].firstIndex(of: UInt8(ascii: "?")) {
            query = Substring(bytes[bytes.index(after: mark)..<end])
            end = mark
        }
        let path = Substring(bytes[start..<end])
        return (path.isEmpty ? "/" : path, query)
    }

    /// The operation a request is for, or why none is: its path and method only.
    func route(_ request: HTTPIncomingRequest) -> PathRouter.Outcome {
        router.route(method: request.method, path: Self.target(of: request).path)
    }

    /// Checks a request: its path and method, parameters, security and body.
    func check(_ request: HTTPIncomingRequest) -> RequestCheck {
        let (path, query) = Self.target(of: request)
        switch router.route(method: request.method, path: path) {
        case .noPath:
            return .invalid(
                operation: nil, status: 404,
                violations: [
                    OpenAPIViolation(
                        rule: "path", location: "path",
                        message: "\(path) is not a path of the document (\(operations.count) operations)",
                        documentLocation: nil)
                ], allowed: [])
        case .methodNotAllowed(let template, let allowed):
            return .invalid(
                operation: nil, status: 405,
                violations: [
                    OpenAPIViolation(
                        rule: "method", location: "method",
                        message: "\(template) has no \(request.method.rawValue) operation; it has "
                            + allowed.map(\.rawValue).joined(separator: ", "),
                        documentLocation: nil)
                ], allowed: allowed)
        case .found(let match):
            let operation = operations[match.operation]
            if let failure = checkSecurity(request, operation) {
                return .invalid(operation: match.operation, status: 401, violations: [failure], allowed: [])
            }
            var violations = checkParameters(request, operation, variables: match.variables, query: query)
            let (status, bodyViolations) = checkBody(request, operation)
            if !violations.isEmpty {
                violations += bodyViolations
                return .invalid(
                    operation: match.operation, status: max(400, status == 415 ? 415 : 400),
                    violations: violations, allowed: [])
            }
            if !bodyViolations.isEmpty {
                return .invalid(operation: match.operation, status: status, violations: bodyViolations, allowed: [])
            }
            return .valid(operation: match.operation)
        }
    }

    // MARK: - Security

    private func checkSecurity(_ request: HTTPIncomingRequest, _ operation: ContractOperation) -> OpenAPIViolation? {
        guard !operation.security.isEmpty else { return nil }
        let query = PercentEncoding.queryPairs(Self.target(of: request).query)
        let cookies = request.headers.cookies
        let authorization = request.headers[.authorization] ?? ""
        func present(_ scheme: ContractOperation.SecurityScheme) -> Bool {
            switch scheme.kind {
            case .apiKey(let name, .header): request.headers[HTTPHeaders.Name(rawValue: name)] != nil
            case .apiKey(let name, .query): query.contains { $0.name == name }
            case .apiKey(let name, .cookie): cookies.contains { $0.name == name }
            case .apiKey(_, .path): true
            case .http(let name):
                authorization.lowercased().hasPrefix(name + " ") && authorization.count > name.count + 1
            case .bearerToken: authorization.lowercased().hasPrefix("bearer ") && authorization.count > 7
            case .mutualTLS: true
            }
        }
        if operation.security.contains(where: { $0.schemes.allSatisfy(present) }) { return nil }
        let wanted = operation.security.map { requirement in
            requirement.schemes.map { scheme in
                switch scheme.kind {
                case .apiKey(let name, let place): "\(scheme.name) (\(place.rawValue) \(name))"
                case .http(let name):
                    "\(scheme.name) (Authorization: \(name.prefix(1).uppercased() + name.dropFirst()) ...)"
                case .bearerToken: "\(scheme.name) (Authorization: Bearer ...)"
                case .mutualTLS: scheme.name
                }
            }.joined(separator: " and ")
        }
        return OpenAPIViolation(
            rule: "security", location: "security",
            message: "no credentials: send " + wanted.joined(separator: ", or "),
            documentLocation: operation.securityLocation)
    }

    // MARK: - Parameters

    private func checkParameters(
        _ request: HTTPIncomingRequest, _ operation: ContractOperation, variables: [(String, Substring)],
        query: Substring?
    ) -> [OpenAPIViolation] {
        let decoder = ParameterDecoder(table: schemas)
        let validator = SchemaValidator(table: schemas, direction: .request)
        let queryPairs = PercentEncoding.queryPairs(query)
        let cookies = request.headers.cookies
        var violations: [OpenAPIViolation] = []
        // The path's variables by this operation's own names (templates that share a segment share one node of
        // the router, named after the first).
        let values = zip(operation.pathVariables, variables.map(\.1))
        for parameter in operation.parameters {
            let location = "\(parameter.place.rawValue).\(parameter.name)"
            // OpenAPI: header parameters named Accept, Content-Type or Authorization are ignored.
            if parameter.place == .header, Self.ignoredHeaders.contains(parameter.name.lowercased()) { continue }
            let others = Set(
                operation.parameters.filter { $0.place == parameter.place && $0.name != parameter.name }.map(\.name))
            let value: SchemaValue?
            switch parameter.place {
            case .path:
                value = values.first { $0.0 == parameter.name }.map { decoder.pathValue($0.1, parameter) }
            case .header:
                value = request.headers[HTTPHeaders.Name(rawValue: parameter.name)].map {
                    decoder.pathValue($0[...], parameter)
                }
            case .query: value = decoder.queryValue(queryPairs, parameter, others: others)
            case .cookie: value = decoder.queryValue(cookies, parameter, others: others)
            }
            guard let value else {
                if parameter.isRequired {
                    violations.append(
                        OpenAPIViolation(
                            rule: "required", location: location, message: "missing",
                            documentLocation: parameter.location))
                }
                continue
            }
            if let schema = parameter.schema {
                violations += validator.validate(value, against: schema, at: location)
            }
        }
        return violations
    }

    private static let ignoredHeaders: Set<String> = ["accept", "content-type", "authorization"]

    // MARK: - Body

    private func checkBody(_ request: HTTPIncomingRequest, _ operation: ContractOperation) -> (Int, [OpenAPIViolation])
    {
        let body = request.body ?? Data()
        guard let spec = operation.body else { return (400, []) }
        let contentType = request.headers[.contentType] ?? ""
        // A required body sent empty is one when its Content-Type names a media type whose values include nothing:
        // an empty file (`application/octet-stream`) or text. An empty JSON, YAML or form body is no body at all,
        // and an optional body sent empty is taken as not sent.
        if body.isEmpty,
            !(spec.isRequired && !contentType.isEmpty && !MediaTypes.isStructured(MediaTypes.essence(contentType))
                && MediaTypes.best(for: contentType, among: spec.contents) != nil)
        {
            guard spec.isRequired else { return (400, []) }
            return (
                400,
                [
                    OpenAPIViolation(
                        rule: "requestBody.required", location: "body", message: "the operation needs a body",
                        documentLocation: spec.location)
                ]
            )
        }
        guard let media = MediaTypes.best(for: contentType, among: spec.contents) else {
            let accepted = spec.contents.map(\.name).joined(separator: ", ")
            return (
                415,
                [
                    OpenAPIViolation(
                        rule: "contentType", location: "header.Content-Type",
                        message: contentType.isEmpty
                            ? "missing; the operation takes \(accepted)"
                            : "\(contentType) is not one the operation takes (\(accepted))",
                        documentLocation: spec.location)
                ]
            )
        }
        guard let schema = media.schema else { return (422, []) }
        let mediaName = MediaTypes.essence(contentType.isEmpty ? media.name : contentType)
        let value: SchemaValue
        switch MediaTypes.decode(body, as: mediaName, media, table: schemas) {
        case .value(let decoded): value = decoded
        case .malformed(let violation): return (400, [violation])
        // multipart, binary and other types: the content type was checked; the bytes are not read.
        case .unread: return (422, [])
        }
        let validator = SchemaValidator(table: schemas, direction: .request)
        return (422, validator.validate(value, against: schema, at: "body"))
    }
}
