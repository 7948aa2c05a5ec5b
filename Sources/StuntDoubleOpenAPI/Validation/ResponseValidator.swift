import Foundation
import StuntDouble

extension OpenAPIContract {
    /// The rules of the document that a request breaks: its path and method, parameters, security and body.
    /// - Parameter request: The request.
    /// - Returns: The violations; empty when the request keeps to the document.
    public func violations(of request: HTTPIncomingRequest) -> [OpenAPIViolation] {
        if case .invalid(_, _, let violations, _) = check(request) { return violations }
        return []
    }

    /// The rules of the document that a response to a request breaks: a status the operation does not list,
    /// a media type it does not give, a body its schema refuses, a required header missing. A request to no
    /// operation of the document is a violation too (`path`, `method`).
    /// - Parameters:
    ///   - statusCode: The response's status code.
    ///   - headers: The response's header fields.
    ///   - body: The response's body.
    ///   - request: The request it answers.
    /// - Returns: The violations; empty when the response keeps to the document.
    public func violations(
        ofResponse statusCode: Int, headers: HTTPHeaders, body: Data, to request: HTTPIncomingRequest
    ) -> [OpenAPIViolation] {
        let operation: ContractOperation
        switch route(request) {
        case .found(let match): operation = operations[match.operation]
        case .methodNotAllowed, .noPath:
            if case .invalid(_, _, let violations, _) = check(request) { return violations }
            return []
        }
        return violations(
            ofResponse: statusCode, headers: headers, body: body, to: operation, isHead: request.method == .head)
    }

    /// The rules of an operation (a path's, or a callback's) that a response to it breaks.
    func violations(
        ofResponse statusCode: Int, headers: HTTPHeaders, body: Data, to operation: ContractOperation, isHead: Bool
    ) -> [OpenAPIViolation] {
        guard let response = operation.response(for: statusCode) else {
            return [
                OpenAPIViolation(
                    rule: "status", location: "status",
                    message: "\(statusCode) is not a response of \(operation.title); it lists "
                        + operation.responses.map(\.code).joined(separator: ", "),
                    documentLocation: operation.location)
            ]
        }
        var violations: [OpenAPIViolation] = []
        for header in response.headers where header.isRequired {
            if headers[HTTPHeaders.Name(rawValue: header.name)] == nil {
                violations.append(
                    OpenAPIViolation(
                        rule: "required", location: "header.\(header.name)", message: "missing",
                        documentLocation: response.location))
            }
        }
        let validator = SchemaValidator(table: schemas, direction: .response)
        let decoder = ParameterDecoder(table: schemas)
        for header in response.headers {
            guard let schema = header.schema, let text = headers[HTTPHeaders.Name(rawValue: header.name)] else {
                continue
            }
            violations += validator.validate(decoder.scalar(text, schema), against: schema, at: "header.\(header.name)")
        }
        if response.contents.isEmpty || isHead {
            if !body.isEmpty, !isHead {
                violations.append(
                    OpenAPIViolation(
                        rule: "content", location: "body",
                        message: "\(body.count) bytes, where \(operation.title) \(response.code) has no content",
                        documentLocation: response.location))
            }
            return violations
        }
        var contentType = headers[.contentType] ?? ""
        var media = MediaTypes.best(for: contentType, among: response.contents)
        if media == nil {
            violations.append(
                OpenAPIViolation(
                    rule: "contentType", location: "header.Content-Type",
                    message: (contentType.isEmpty ? "missing" : contentType) + "; \(operation.title) \(response.code) "
                        + "gives " + response.contents.map(\.name).joined(separator: ", "),
                    documentLocation: response.location))
            // Without a Content-Type, the body is still checked as the document's JSON (a stub file's
            // `jsonBody` often has none).
            guard contentType.isEmpty, let json = response.contents.first(where: { MediaTypes.isJSON($0.name) })
            else { return violations }
            media = json
            contentType = json.name
        }
        guard let media, let schema = media.schema else { return violations }
        let name = MediaTypes.essence(contentType)
        switch MediaTypes.decode(body, as: name, media, table: schemas) {
        case .value(let value): return violations + validator.validate(value, against: schema, at: "body")
        case .malformed(let violation): return violations + [violation]
        case .unread: return violations
        }
    }
}
