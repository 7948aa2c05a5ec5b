import Foundation
import StuntDouble

/// OpenAPI's runtime expressions (`$request.body#/callbackUrl`, `$response.header.Location`, `$statusCode`),
/// evaluated against one exchange: what a callback's URL is made of.
///
/// A callback's key is a template: text with expressions in braces (`{$request.body#/callbackUrl}/events`), or
/// one bare expression. An expression at the start of the template is put in as it is (it is usually the URL's
/// base); one after it is percent-encoded (it sits in a path segment or a query).
struct RuntimeExpression {
    /// The request and response an expression reads.
    struct Exchange {
        let request: HTTPIncomingRequest
        /// The values of the operation's path template (`petId` → `7`).
        let pathVariables: [(String, Substring)]
        /// The response, when the expression is evaluated after one.
        let response: HTTPResponsePlan.Response?
    }

    /// Why an expression gives no value.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What may be put in after the start of a template without encoding: RFC 3986's unreserved characters.
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Expands a callback's key.
    /// - Returns: The text with each expression's value, or what names nothing (or is no expression).
    static func expand(_ template: String, in exchange: Exchange) -> Result<String, Failure> {
        let trimmed = template.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("$"), !trimmed.contains("{") {
            return evaluate(trimmed, in: exchange)
        }
        var expanded = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else {
                return .failure(Failure(description: "\"\(template)\" opens a { it does not close"))
            }
            expanded += rest[..<open]
            let expression = String(rest[rest.index(after: open)..<close]).trimmingCharacters(in: .whitespaces)
            switch evaluate(expression, in: exchange) {
            case .failure(let failure): return .failure(failure)
            case .success(let value):
                expanded +=
                    expanded.isEmpty
                    ? value : (value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value)
            }
            rest = rest[rest.index(after: close)...]
        }
        return .success(expanded + rest)
    }

    /// Evaluates one expression (`$request.query.callback`).
    static func evaluate(_ expression: String, in exchange: Exchange) -> Result<String, Failure> {
        func missing(_ what: String) -> Result<String, Failure> {
            .failure(Failure(description: "\(expression) names nothing: \(what)"))
        }
        switch expression {
        case "$url": return .success(exchange.request.url.absoluteString)
        case "$method": return .success(exchange.request.method.rawValue)
        case "$statusCode":
            guard let response = exchange.response else { return missing("there is no response") }
            return .success(String(response.statusCode.rawValue))
        default: break
        }
        let source: (headers: HTTPHeaders, body: Data?, name: String)
        let reference: Substring
        if expression.hasPrefix("$request.") {
            source = (exchange.request.headers, exchange.request.body, "the request")
            reference = expression.dropFirst("$request.".count)
        } else if expression.hasPrefix("$response."), let response = exchange.response {
            source = (response.headers, response.body, "the response")
            reference = expression.dropFirst("$response.".count)
        } else if expression.hasPrefix("$response.") {
            return missing("there is no response")
        } else {
            return .failure(
                Failure(
                    description: "\"\(expression)\" is not a runtime expression ($url, $method, $statusCode, "
                        + "$request.header.NAME, $request.query.NAME, $request.path.NAME, $request.body#/pointer, "
                        + "or the same of $response)"))
        }
        if reference.hasPrefix("header.") {
            let name = String(reference.dropFirst("header.".count))
            guard let value = source.headers[HTTPHeaders.Name(rawValue: name)] else {
                return missing("\(source.name) has no header \(name)")
            }
            return .success(value)
        }
        if reference.hasPrefix("query."), source.name == "the request" {
            let name = String(reference.dropFirst("query.".count))
            let items = URLComponents(url: exchange.request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            guard let value = items.first(where: { $0.name == name })?.value else {
                return missing("the request's query has no \(name)")
            }
            return .success(value)
        }
        if reference.hasPrefix("path."), source.name == "the request" {
            let name = String(reference.dropFirst("path.".count))
            guard let value = exchange.pathVariables.first(where: { $0.0 == name })?.1 else {
                return missing("the operation's path has no {\(name)}")
            }
            return .success(String(value).removingPercentEncoding ?? String(value))
        }
        if reference == "body" || reference.hasPrefix("body#") {
            let body = source.body ?? Data()
            guard let hash = reference.firstIndex(of: "#") else {
                return .success(String(decoding: body, as: UTF8.self))
            }
            var pointer = String(reference[reference.index(after: hash)...])
            pointer = pointer.removingPercentEncoding ?? pointer
            guard pointer.isEmpty || pointer.hasPrefix("/") else {
                return .failure(Failure(description: "\(expression): \"\(pointer)\" is no JSON Pointer (/a/b)"))
            }
            guard let document = try? SchemaValue.parse(body) else {
                return missing("\(source.name)'s body is not JSON")
            }
            let tokens = pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
                $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            }
            guard let value = document.value(at: tokens[...]) else {
                return missing("\(source.name)'s body has nothing at \(pointer)")
            }
            if case .string(let text) = value { return .success(text) }
            return .success(value.jsonText)
        }
        return .failure(
            Failure(
                description: "\"\(expression)\": after \(source.name == "the request" ? "$request" : "$response") "
                    + "comes header.NAME, query.NAME, path.NAME or body#/pointer"))
    }
}
