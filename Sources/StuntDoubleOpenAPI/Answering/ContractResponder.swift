import Foundation
import StuntDouble

/// What a request asks of a mock with `Prefer` (as Prism reads it): `code=404`, `example=name`,
/// `dynamic=true`, in one header or several.
struct Preferences: Sendable {
    var code: Int?
    var example: String?
    var isDynamic: Bool?

    init(_ headers: HTTPHeaders) {
        for value in headers.values(for: HTTPHeaders.Name(rawValue: "Prefer")) {
            for part in value.split(whereSeparator: { $0 == "," || $0 == ";" }) {
                let pair = part.split(separator: "=", maxSplits: 1).map {
                    $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
                guard pair.count == 2 else { continue }
                switch pair[0].lowercased() {
                // A status a response can have; anything else is no preference (and asked for, a 400).
                case "code": code = Int(pair[1]).map { (100...599).contains($0) ? $0 : -1 }
                case "example": example = pair[1]
                case "dynamic": isDynamic = pair[1].lowercased() == "true"
                default: continue
                }
            }
        }
    }
}

extension OpenAPIContract {
    /// The problem document for a request that breaks the contract (RFC 9457 `application/problem+json`):
    /// every rule broken, where, and the document's line of each.
    func problemResponse(
        status: Int, operation: Int?, violations: [OpenAPIViolation], allowed: [HTTPMethod],
        about subject: String = "The request"
    ) -> HTTPStubResponse {
        let title: String =
            switch status {
            case 401: "Unauthorized"
            case 404: "Not Found"
            case 405: "Method Not Allowed"
            case 415: "Unsupported Media Type"
            case 422: "Unprocessable Content"
            case 502: "Bad Gateway"
            default: "Bad Request"
            }
        var members: [(String, SchemaValue)] = [
            ("type", .string("about:blank")),
            ("title", .string(title)),
            ("status", .number(Double(status))),
            (
                "detail",
                .string(
                    "\(subject) does not keep to \(fileName): " + violations.map(\.description).joined(separator: "; ")
                )
            ),
        ]
        if let operation {
            members.append(("operation", .string(operations[operation].title)))
        }
        members.append(
            (
                "violations",
                .array(
                    violations.map { violation in
                        var fields: [(String, SchemaValue)] = [
                            ("rule", .string(violation.rule)),
                            ("location", .string(violation.location)),
                            ("message", .string(violation.message)),
                        ]
                        if let place = violation.documentLocation {
                            fields.append(("document", .string(place.description)))
                            fields.append(("line", .number(Double(place.line))))
                        }
                        return .object(fields)
                    })
            ))
        var headers: HTTPHeaders = [:]
        if status == 405 {
            headers[HTTPHeaders.Name(rawValue: "Allow")] = allowed.map(\.rawValue).joined(separator: ", ")
        }
        if status == 401, let operation {
            let schemes = operations[operation].security.flatMap(\.schemes).compactMap { scheme -> String? in
                switch scheme.kind {
                case .http(let name): name.prefix(1).uppercased() + name.dropFirst()
                case .bearerToken: "Bearer"
                default: nil
                }
            }
            if let first = schemes.first { headers[.wwwAuthenticate] = first }
        }
        let problem = SchemaValue.object(members)
        // The rules broken, on one line, whatever the body: a document's own error format may have no room for
        // them (Prism puts them in `sl-violations`).
        headers[Self.violationsHeader] = Self.headerSummary(of: violations)
        guard let operation, let declared = declaredError(for: status, of: operations[operation]) else {
            return HTTPStubResponse(
                statusCode: HTTPStatusCode(rawValue: status), contentType: "application/problem+json",
                body: Data(problem.jsonText.utf8), headers: headers)
        }
        // The document declares this error: its status and media type, and the problem document as the body
        // when its schema admits it, else the document's own example or a value made from its schema.
        let code = Int(declared.code) ?? status
        guard let media = declared.contents.first(where: { MediaTypes.isJSON($0.name) }) ?? declared.contents.first
        else {
            return HTTPStubResponse(statusCode: HTTPStatusCode(rawValue: code), headers: headers)
        }
        let contentType = media.name.contains("*") ? "application/problem+json" : media.name
        let validator = SchemaValidator(table: schemas, direction: .response)
        let body: SchemaValue
        if media.schema.map({ validator.validate(problem, against: $0, at: "body").isEmpty }) ?? true {
            body = problem
        } else if let example = media.servedExample() {
            body = example
        } else if let schema = media.schema {
            var generator = SchemaGenerator(table: schemas, direction: .response, seed: 0, isDynamic: false)
            body = generator.value(for: schema)
        } else {
            body = problem
        }
        return HTTPStubResponse(
            statusCode: HTTPStatusCode(rawValue: code), contentType: HTTPContentType(rawValue: contentType),
            body: Self.bytes(of: body, as: contentType), headers: headers)
    }

    /// The header naming what a request or an answer breaks, on one line.
    static let violationsHeader = HTTPHeaders.Name(rawValue: "StuntDouble-Violations")

    /// Violations on one line, for `StuntDouble-Violations`: no control characters, at most about 4,000 bytes.
    static func headerSummary(of violations: [OpenAPIViolation]) -> String {
        var summary = violations.map(\.description).joined(separator: "; ")
        summary = String(summary.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        if summary.utf8.count > 4_000 { summary = String(summary.prefix(4_000)) + "..." }
        return summary
    }

    /// The response an operation declares for a refusal, as Prism picks it: the status itself (for a body that
    /// breaks its schema, `422` then `400`), then a range (`4XX`), then `default` when the operation has
    /// responses of its own besides.
    private func declaredError(for status: Int, of operation: ContractOperation) -> ContractOperation.Response? {
        let candidates = status == 422 || status == 400 ? [status, 422, 400] : [status]
        for code in candidates {
            if let found = operation.responses.first(where: { Int($0.code) == code }) { return found }
        }
        if let range = operation.responses.first(where: { Int($0.code) == nil && $0.covers(status) }) {
            return range
        }
        if operation.responses.count > 1 { return operation.responses.first { $0.code == "default" } }
        return nil
    }

    /// The answer to a request that keeps to an operation: the response `Prefer` names or the preferred one,
    /// its example or a generated value.
    func answer(_ request: HTTPIncomingRequest, operation index: Int, settings: OpenAPIAnswering, draw: UInt64)
        -> HTTPStubResponse
    {
        let operation = operations[index]
        let preferences = Preferences(request.headers)
        let response: ContractOperation.Response?
        if let code = preferences.code {
            guard code > 0 else {
                return preferenceProblem("Prefer: code= must name a status from 200 to 599")
            }
            guard code >= 200 else {
                return preferenceProblem(
                    "Prefer: code=\(code) is informational (1xx), which cannot end an answer; name a status from 200 "
                        + "to 599")
            }
            response = operation.response(for: code)
            guard response != nil else {
                return preferenceProblem(
                    "Prefer: code=\(code) names no response of \(operation.title); it has "
                        + operation.responses.map(\.code).joined(separator: ", "))
            }
        } else {
            response = operation.preferredResponse
        }
        guard let response else {
            return HTTPStubResponse(statusCode: HTTPStatusCode(rawValue: 200))
        }
        // `default` answers 200 unless a code is asked for (as Prism does).
        let status = preferences.code ?? (response.code == "default" ? 200 : response.statusCode)
        let isDynamic = preferences.isDynamic ?? settings.isDynamic
        // The same request, the same answer, unless dynamic: then each request draws anew.
        let seed = isDynamic ? settings.seed &+ draw &* 0x9E37_79B9_7F4A_7C15 : settings.seed &+ UInt64(index)
        var headers: HTTPHeaders = [:]
        var generator = SchemaGenerator(table: schemas, direction: .response, seed: seed, isDynamic: isDynamic)
        for header in response.headers where header.name.lowercased() != "content-type" {
            let value = header.example ?? header.schema.map { generator.value(for: $0) }
            if let value {
                headers[HTTPHeaders.Name(rawValue: header.name)] = Self.headerText(value)
            }
        }
        guard !response.contents.isEmpty, status != 204, status != 304 else {
            return HTTPStubResponse(statusCode: HTTPStatusCode(rawValue: status), headers: headers)
        }
        guard let media = Self.negotiate(request.headers[.accept], response.contents) else {
            return HTTPStubResponse(
                statusCode: HTTPStatusCode(rawValue: 406), contentType: .text,
                body: Data(
                    ("Accept: \(request.headers[.accept] ?? "") matches none of the response's media types ("
                        + response.contents.map(\.name).joined(separator: ", ") + ")").utf8))
        }
        let value: SchemaValue
        if let name = preferences.example {
            guard let example = media.examples.first(where: { $0.name == name }) else {
                return preferenceProblem(
                    "Prefer: example=\(name) names no example of \(operation.title) \(response.code) \(media.name); "
                        + "it has "
                        + (media.examples.isEmpty ? "none" : media.examples.map(\.name).joined(separator: ", ")))
            }
            value = example.value
        } else if !isDynamic, let example = media.servedExample(asWritten: settings.servesExamplesAsWritten) {
            value = example
        } else if let schema = media.schema {
            value = generator.value(for: schema)
        } else {
            value = media.servedExample(asWritten: true) ?? .null
        }
        let contentType = media.name.contains("*") ? "application/json" : media.name
        if contentType.lowercased().hasPrefix("text/event-stream") {
            let response = HTTPStubResponse.eventStream(Self.events(of: value), code: HTTPStatusCode(rawValue: status))
            response.contentType = HTTPContentType(rawValue: contentType)
            response.headers = headers
            return response
        }
        return HTTPStubResponse(
            statusCode: HTTPStatusCode(rawValue: status), contentType: HTTPContentType(rawValue: contentType),
            body: Self.bytes(of: value, as: contentType), headers: headers)
    }

    /// The events of a `text/event-stream` answer: an example written as an event stream is its events; any
    /// other value is one event whose data is its text (a string as it is, else JSON).
    private static func events(of value: SchemaValue) -> [HTTPStubEvent] {
        let text = if case .string(let text) = value { text } else { value.jsonText }
        if let events = HTTPStubEventStream.events(in: Data(text.utf8)) { return events.map(\.event) }
        return [HTTPStubEvent(data: text)]
    }

    private func preferenceProblem(_ detail: String) -> HTTPStubResponse {
        let body = SchemaValue.object([
            ("type", .string("about:blank")), ("title", .string("Bad Request")), ("status", .number(400)),
            ("detail", .string(detail)),
            (
                "violations",
                .array([
                    .object([
                        ("rule", .string("prefer")), ("location", .string("header.Prefer")),
                        ("message", .string(detail)),
                    ])
                ])
            ),
        ])
        return HTTPStubResponse(
            statusCode: HTTPStatusCode(rawValue: 400), contentType: "application/problem+json",
            body: Data(body.jsonText.utf8))
    }

    /// A value as a body of a media type: a string as its text for text types, JSON otherwise.
    static func bytes(of value: SchemaValue, as contentType: String) -> Data {
        if case .string(let text) = value, !MediaTypes.isJSON(contentType) { return Data(text.utf8) }
        return Data(value.jsonText.utf8)
    }

    static func headerText(_ value: SchemaValue) -> String {
        switch value {
        case .string(let text): text
        case .array(let items): items.map(headerText).joined(separator: ",")
        default: value.jsonText
        }
    }

    /// The response media type for an `Accept` header: JSON first when the client takes anything.
    static func negotiate(_ accept: String?, _ contents: [ContractOperation.MediaType]) -> ContractOperation.MediaType?
    {
        let preferred = contents.first { MediaTypes.isJSON($0.name) } ?? contents.first
        guard let accept, !accept.isEmpty else { return preferred }
        let ranges = accept.split(separator: ",").map { part -> (String, Double) in
            let pieces = part.split(separator: ";")
            let name = pieces.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            let quality =
                pieces.dropFirst().compactMap { piece -> Double? in
                    let trimmed = piece.trimmingCharacters(in: .whitespaces)
                    return trimmed.hasPrefix("q=") ? Double(trimmed.dropFirst(2)) : nil
                }.first ?? 1
            return (name, quality)
        }.filter { $0.1 > 0 }.sorted { $0.1 > $1.1 }
        for (range, _) in ranges {
            if range == "*/*" { return preferred }
            if let exact = contents.first(where: { MediaTypes.essence($0.name) == range }) { return exact }
            if range.hasSuffix("/*") {
                let type = range.dropLast(1)
                if let found = contents.first(where: { $0.name.hasPrefix(type) }) { return found }
            }
            if let wildcard = contents.first(where: { $0.name == "*/*" }) { return wildcard }
        }
        return nil
    }
}
