import Foundation
import StuntDouble

/// Webhooks in stub files: `postServeActions` (WireMock 2, a list of `{"name", "parameters"}` or the older
/// `{"webhook": {...}}`) and `serveEventListeners` (WireMock 3, with `requestPhases`). Each `webhook` is
/// compiled here, with its errors at their file, line and column.
extension StubFileReader {
    static let webhookKeys = ["method", "url", "headers", "body", "base64Body", "delay"]

    /// Reads a mapping's `postServeActions` or `serveEventListeners`.
    mutating func readServeActions(_ node: JSONNode, field: String, into spec: inout MappingSpec) {
        let isListeners = field.hasSuffix("serveEventListeners")
        if let members = node.members, !isListeners {
            // WireMock 2's older form: {"webhook": {...parameters}}.
            for member in uniqueMembers(members, field: field) {
                readServeAction(
                    name: member.key, nameOffset: member.keyOffset, parameters: member.value,
                    field: Self.join(field, member.key), into: &spec)
            }
            return
        }
        guard let items = node.items else {
            if !Self.isNull(node) {
                error(
                    node, field,
                    "expected an array of {\"name\": \"webhook\", \"parameters\": {...}}; found \(node.kindName)")
            }
            return
        }
        for (index, item) in items.enumerated() {
            let path = "\(field)[\(index)]"
            guard let members = object(item, path) else { continue }
            let fields = checkKeys(
                members, field: path,
                known: isListeners ? ["name", "parameters", "requestPhases"] : ["name", "parameters"],
                unsupported: [:])
            guard let nameNode = fields["name"], let name = strictString(nameNode, Self.join(path, "name"), "name")
            else {
                error(item, path, "needs a name, such as \"webhook\"")
                continue
            }
            if let phases = fields["requestPhases"],
                !firesAfterComplete(phases, field: Self.join(path, "requestPhases"))
            {
                continue
            }
            readServeAction(
                name: name, nameOffset: nameNode.offset, parameters: fields["parameters"] ?? .null,
                field: Self.join(path, "parameters"), into: &spec)
        }
    }

    /// Whether a listener's `requestPhases` include the one webhooks fire in (`AFTER_COMPLETE`); when they do
    /// not, a warning says the webhook never fires (as in WireMock).
    private mutating func firesAfterComplete(_ node: JSONNode, field: String) -> Bool {
        guard let items = node.items else {
            error(node, field, "expected an array of phases, such as [\"AFTER_COMPLETE\"]")
            return false
        }
        let known = ["BEFORE_MATCH", "AFTER_MATCH", "BEFORE_RESPONSE_SENT", "AFTER_COMPLETE"]
        var phases: [String] = []
        for (index, item) in items.enumerated() {
            guard let phase = strictString(item, "\(field)[\(index)]", "a phase") else { continue }
            if !known.contains(phase) {
                warning(item, "\(field)[\(index)]", "\"\(phase)\" is not a phase; use \(known.joined(separator: ", "))")
            }
            phases.append(phase)
        }
        if !phases.contains("AFTER_COMPLETE") {
            warning(
                node, field,
                "the webhook never fires: webhooks fire in the AFTER_COMPLETE phase (as in WireMock); add it, or "
                    + "remove requestPhases")
            return false
        }
        return true
    }

    private mutating func readServeAction(
        name: String, nameOffset: Int, parameters: JSONNode, field: String, into spec: inout MappingSpec
    ) {
        guard name == "webhook" else {
            unsupported(
                at: nameOffset, field: field,
                "\"\(name)\" is an extension StuntDouble does not have (only webhook is): WireMock would run it")
            return
        }
        if let webhook = readWebhook(parameters, field: field) {
            spec.webhooks.append(webhook)
        }
    }

    /// One webhook's parameters.
    private mutating func readWebhook(_ node: JSONNode, field: String) -> WebhookSpec? {
        guard let members = object(node, field) else {
            if Self.isNull(node) { error(node, field, "a webhook needs parameters: at least a url") }
            return nil
        }
        var fields: [String: JSONNode] = [:]
        for member in members {
            fields[member.key] = member.value
            // Other keys are parameters for templates (`{{parameters.name}}`); one close to a known key is
            // probably that key misspelled.
            if !Self.webhookKeys.contains(member.key),
                let suggestion = Self.suggestion(for: member.key, among: Self.webhookKeys)
            {
                report(
                    .warning, at: member.keyOffset, field: Self.join(field, member.key),
                    "not a webhook field, so only a parameter for templates; did you mean \(suggestion)?")
            }
        }
        let place = lines.position(of: node.offset)
        let errorsBefore = errorCount
        // The URL: required.
        var url: ResponseTemplate?
        if let urlNode = fields["url"], let text = strictString(urlNode, Self.join(field, "url"), "url") {
            if text.contains("{{") {
                url = compile(text, in: urlNode, field: Self.join(field, "url"), kind: "webhook template")
            } else if let parsed = URL(string: text), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
                parsed.host != nil
            {
                url = compile(text, in: urlNode, field: Self.join(field, "url"), kind: "webhook template")
            } else {
                error(urlNode, Self.join(field, "url"), "\"\(text)\" is not an http or https URL")
            }
        } else if fields["url"] == nil {
            error(node, field, "a webhook needs a url, such as \"http://localhost:9000/callback\"")
        }
        // The method: GET unless given, sent as written.
        var method = try? ResponseTemplate("GET")
        var methodText = "GET"
        if let methodNode = fields["method"], let text = strictString(methodNode, Self.join(field, "method"), "method")
        {
            methodText = text
            method = compile(text, in: methodNode, field: Self.join(field, "method"), kind: "webhook template")
            if !text.contains("{{") {
                if text.isEmpty || !text.utf8.allSatisfy(HTTPResponsePlan.Response.isTokenByte) {
                    error(methodNode, Self.join(field, "method"), "\"\(text)\" is not an HTTP method, such as POST")
                } else if text != text.uppercased(),
                    WebhookSpec.methodsWithBody.contains(text.uppercased()) || text.uppercased() == "GET"
                {
                    warning(
                        methodNode, Self.join(field, "method"),
                        "\"\(text)\" is sent as written, and without a body (WireMock sends a body only with POST, "
                            + "PUT and PATCH in capitals); write \"\(text.uppercased())\"")
                }
            }
        }
        // Headers: a value or a list of values per name.
        var headers: [(name: String, value: ResponseTemplate)] = []
        if let headersNode = fields["headers"], let headerMembers = object(headersNode, Self.join(field, "headers")) {
            for member in headerMembers {
                let path = Self.join(field, "headers.\(member.key)")
                let values =
                    member.value.items.map { items in items.enumerated().map { ($0.element, "\(path)[\($0.offset)]") } }
                    ?? [(member.value, path)]
                for (valueNode, valuePath) in values {
                    guard let text = strictString(valueNode, valuePath, "a header value") else { continue }
                    if let template = compile(text, in: valueNode, field: valuePath, kind: "webhook template") {
                        headers.append((member.key, template))
                    }
                }
            }
        }
        // The body: `body` (a template) or `base64Body`; `body` wins.
        var body = WebhookSpec.Body.none
        if let bodyNode = fields["body"], !Self.isNull(bodyNode) {
            if case .string(let text) = bodyNode.kind {
                if let template = compile(text, in: bodyNode, field: Self.join(field, "body"), kind: "webhook template")
                {
                    body = .template(template)
                }
            } else {
                error(
                    bodyNode, Self.join(field, "body"),
                    "a webhook's body is text; write the JSON as a string (\"{\\\"id\\\": 1}\")")
            }
            if let ignored = fields["base64Body"], !Self.isNull(ignored) {
                warning(ignored, Self.join(field, "base64Body"), "ignored: body is given, and wins (as in WireMock)")
            }
        } else if let base64Node = fields["base64Body"], !Self.isNull(base64Node),
            let text = strictString(base64Node, Self.join(field, "base64Body"), "base64Body")
        {
            if let data = Data(base64Encoded: text) {
                body = .bytes(data)
            } else {
                error(base64Node, Self.join(field, "base64Body"), "not Base64 text")
            }
        }
        if case .none = body {
        } else if !methodText.contains("{{"), !WebhookSpec.methodsWithBody.contains(methodText) {
            warning(
                fields["body"] ?? fields["base64Body"] ?? node,
                Self.join(field, fields["body"] != nil ? "body" : "base64Body"),
                "never sent: WireMock sends a webhook's body only with POST, PUT and PATCH, and this one is \(methodText)"
            )
        }
        var delay: ResponseSpec.DelayDistribution?
        if let delayNode = fields["delay"], !Self.isNull(delayNode) {
            delay = readDistribution(delayNode, field: Self.join(field, "delay"))
        }
        guard errorCount == errorsBefore, let url, let method else { return nil }
        return WebhookSpec(
            method: method, url: url, headers: headers, body: body, delay: delay,
            parameters: JSONData.wrap(node), environment: templating.environment,
            origin: "\(file):\(place.line):\(place.column)")
    }
}
