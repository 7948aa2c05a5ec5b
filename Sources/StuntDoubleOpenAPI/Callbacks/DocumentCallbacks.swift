import Foundation
import StuntDouble
import StuntDoubleWireMock

/// The requests a document makes to its clients, attached to its stub for a stub server to send: each operation's
/// `callbacks` after a successful answer, to the URL its runtime expression names; the document's `webhooks`
/// (OpenAPI 3.1) when the admin API fires one.
///
/// Each call's body is the callback's first example, else a value generated from its schema, checked against the
/// schema (what it breaks is reported with the call, and the call is sent all the same); the target's answer is
/// checked against the callback's responses.
struct DocumentCallbacks: StubFollowUp, NamedWebhooks {
    let contract: OpenAPIContract
    let answering: OpenAPIAnswering

    /// Whether the document has anything to send.
    var isEmpty: Bool {
        contract.webhooks.isEmpty && !contract.operations.contains { !$0.callbacks.isEmpty }
    }

    func calls(after request: HTTPIncomingRequest, answered response: HTTPResponsePlan.Response?) -> [WebhookCall] {
        // Only an answer that did what was asked subscribes: a refused request (4xx) or a failure sends nothing.
        guard let response, (200..<300).contains(response.statusCode.rawValue),
            case .found(let match) = contract.route(request)
        else { return [] }
        let operation = contract.operations[match.operation]
        guard !operation.callbacks.isEmpty else { return [] }
        let exchange = RuntimeExpression.Exchange(
            request: request, pathVariables: match.variables, response: response)
        return operation.callbacks.enumerated().map { index, callback in
            let origin = "callback \(callback.name) of \(operation.title) (\(callback.operation.location))"
            switch RuntimeExpression.expand(callback.expression, in: exchange) {
            case .success(let url):
                return call(callback, to: url, body: nil, origin: origin, seed: seed(match.operation, index))
            case .failure(let failure):
                var call = WebhookCall(
                    method: callback.operation.method.rawValue, urlText: callback.expression, headers: [], body: nil,
                    delay: .zero, origin: origin)
                call.refusal = "its URL, \(callback.expression), could not be made: \(failure)"
                return call
            }
        }
    }

    var webhookList: [(name: String, method: String, origin: String)] {
        contract.webhooks.map { ($0.name, $0.operation.method.rawValue, "\($0.operation.location)") }
    }

    func call(named name: String, method: String?, to url: String, body: Data?) -> Result<WebhookCall, WebhookRefusal> {
        let named = contract.webhooks.enumerated().filter { $0.element.name == name }
        guard
            let (index, webhook) = method.map({ method in
                named.first { $0.element.operation.method.rawValue.lowercased() == method.lowercased() }
            }) ?? named.first
        else {
            let methods = named.map { $0.element.operation.method.rawValue }.joined(separator: ", ")
            return .failure(
                WebhookRefusal(
                    named.isEmpty
                        ? "\(contract.fileName) declares no webhook \"\(name)\""
                        : "webhook \"\(name)\" has no \(method ?? "") operation; it has \(methods)"))
        }
        let origin = "webhook \(name) of \(contract.fileName) (\(webhook.operation.location))"
        return .success(
            call(webhook, to: url, body: body, origin: origin, seed: answering.seed &+ 0x5EB_400C &+ UInt64(index)))
    }

    /// The seed of a callback's generated values: the same operation and callback, the same body, unless the
    /// document answers dynamically.
    private func seed(_ operation: Int, _ callback: Int) -> UInt64 {
        if answering.isDynamic { return UInt64.random(in: .min ... .max) }
        return answering.seed &+ 0xCA11_BAC4 &+ UInt64(operation) &* 1_000 &+ UInt64(callback)
    }

    /// The call of a callback or webhook to a URL: its method, the parameters it requires, and its body.
    private func call(_ callback: ContractCallback, to url: String, body override: Data?, origin: String, seed: UInt64)
        -> WebhookCall
    {
        let operation = callback.operation
        var generator = SchemaGenerator(
            table: contract.schemas, direction: .request, seed: seed, isDynamic: answering.isDynamic)
        var headers: [(name: String, value: String)] = []
        var query: [URLQueryItem] = []
        for parameter in operation.parameters where parameter.isRequired || parameter.example != nil {
            guard let value = parameter.example ?? parameter.schema.map({ generator.value(for: $0) }) else { continue }
            let text = OpenAPIContract.headerText(value)
            switch parameter.place {
            case .header: headers.append((parameter.name, text))
            case .query: query.append(URLQueryItem(name: parameter.name, value: text))
            case .path, .cookie: break
            }
        }
        var target = url
        if !query.isEmpty, var components = URLComponents(string: url) {
            components.queryItems = (components.queryItems ?? []) + query
            target = components.string ?? url
        }
        var warnings: [String] = []
        var bytes: Data?
        if let body = operation.body,
            let media = body.contents.first(where: { MediaTypes.isJSON($0.name) })
                ?? body.contents.first
        {
            let contentType = media.name.contains("*") ? "application/json" : media.name
            headers.append(("Content-Type", contentType))
            let value: SchemaValue?
            if let override {
                bytes = override
                value = try? SchemaValue.parse(override)
            } else {
                value =
                    media.servedExample() ?? media.schema.map { generator.value(for: $0) }
                bytes = value.map { OpenAPIContract.bytes(of: $0, as: contentType) }
            }
            if let schema = media.schema, let value {
                let validator = SchemaValidator(table: contract.schemas, direction: .request)
                warnings += validator.validate(value, against: schema, at: "body").map(\.description)
            }
        } else if let override {
            bytes = override
        }
        var call = WebhookCall(
            method: operation.method.rawValue, urlText: target, headers: headers, body: bytes, delay: .zero,
            origin: origin)
        call.warnings = warnings
        if !operation.responses.isEmpty {
            let contract = self.contract
            call.answerCheck = { status, headers, body in
                contract.violations(ofResponse: status, headers: headers, body: body, to: operation, isHead: false)
                    .map(\.description)
            }
        }
        return call
    }
}
