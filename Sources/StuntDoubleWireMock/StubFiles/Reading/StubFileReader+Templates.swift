import Foundation
import StuntDouble

/// Response templating in stub files: `"transformers": ["response-template"]` (or every response, with global
/// templating) compiles the body, the header values, `bodyFileName` and `proxyBaseUrl` once, here, with
/// errors at their file, line and column.
extension StubFileReader {
    /// Reads `transformers` and `transformerParameters`, and compiles the templates of a response that is
    /// templated.
    mutating func readTemplating(_ fields: [String: JSONNode], field: String, into response: inout ResponseSpec) {
        var isTemplated = templating.isGlobal && templating.isEnabled
        if let node = fields["transformers"], !Self.isEmpty(node) {
            let path = Self.join(field, "transformers")
            guard let items = node.items else {
                error(node, path, "expected an array of transformer names, such as [\"response-template\"]")
                return
            }
            for (index, item) in items.enumerated() {
                guard let name = strictString(item, "\(path)[\(index)]", "a transformer name") else { continue }
                if name == "response-template" {
                    isTemplated = templating.isEnabled
                } else {
                    unsupported(
                        at: item.offset, field: "\(path)[\(index)]",
                        "the transformer \"\(name)\" is not supported (only response-template is): WireMock would run "
                            + "an extension StuntDouble does not have")
                }
            }
        }
        var parameters: [(key: String, value: TemplateValue)] = []
        if let node = fields["transformerParameters"], let members = node.members {
            parameters = members.map { ($0.key, TemplateValue($0.value)) }
        }
        guard isTemplated else {
            if templating.isEnabled, fields["transformerParameters"].map({ !Self.isEmpty($0) }) == true {
                warning(
                    fields["transformerParameters"]!, Self.join(field, "transformerParameters"),
                    "ignored: there are no transformers to use them")
            }
            return
        }
        var templates = ResponseSpec.Templates(
            parameters: parameters, environment: templating.environment, filesDirectory: filesDirectory)
        templates.escapesHTML = templating.escapesHTML
        if case .bool(true)? = fields["transformerParameters"]?["disableBodyFileTemplating"]?.kind {
            templates.isBodyFileTemplated = false
        }
        if let node = fields["body"], case .string(let text) = node.kind {
            templates.body = compile(text, in: node, field: Self.join(field, "body"))
        } else if let node = fields["jsonBody"], !Self.isNull(node), let body = response.body {
            templates.body = compile(
                String(decoding: body, as: UTF8.self), in: node, field: Self.join(field, "jsonBody"))
        } else if let node = fields["bodyFileName"], case .string(let name) = node.kind {
            if name.contains("{{") {
                // The file is chosen per request: read then (and templated), not now.
                templates.bodyFileName = compile(name, in: node, field: Self.join(field, "bodyFileName"))
                response.body = nil
                response.bodyFailure = nil
            } else if let body = response.body, templates.isBodyFileTemplated {
                templates.body = compile(
                    String(decoding: body, as: UTF8.self), in: node, field: Self.join(field, "bodyFileName"),
                    source: "__files/\(name)")
            }
        }
        var templatedNames: [HTTPHeaders.Name] = []
        for header in response.headers where header.value.contains("{{") && !templatedNames.contains(header.name) {
            templatedNames.append(header.name)
        }
        for name in templatedNames {
            // Every value of the name, so that a templated one keeps its place among the others.
            let node = fields["headers"]?[name.rawValue] ?? fields["headers"] ?? JSONNode.string("")
            let compiled = response.headers.values(for: name).compactMap { value in
                compile(value, in: node, field: Self.join(field, "headers.\(name)"))
            }
            templates.headers.append((name, compiled))
        }
        if let node = fields["proxyBaseUrl"], case .string(let text) = node.kind, text.contains("{{") {
            templates.proxyBaseURL = compile(text, in: node, field: Self.join(field, "proxyBaseUrl"))
        }
        for member in fields["additionalProxyRequestHeaders"]?.members ?? [] {
            guard case .string(let text) = member.value.kind, text.contains("{{") else { continue }
            let place = Self.join(field, "additionalProxyRequestHeaders.\(member.key)")
            if let template = compile(text, in: member.value, field: place) {
                templates.proxyHeaders.append((member.key, template))
            }
        }
        response.templates = templates
    }

    /// Compiles a template written in a JSON string (or read from a body file, `source`), or reports why it
    /// cannot be, at the place in the file.
    mutating func compile(
        _ text: String, in node: JSONNode, field: String, source: String? = nil, kind: String = "response template"
    ) -> ResponseTemplate? {
        do {
            return try ResponseTemplate(text, escapesHTML: templating.escapesHTML)
        } catch {
            if let source {
                unsupported(
                    at: node.offset, field: field,
                    "the \(kind) in \(source) cannot be compiled: \(error.line):\(error.column): "
                        + error.message)
            } else {
                let place = Self.rawOffset(ofDecoded: error.offset, inStringAt: node.offset, bytes: bytes)
                unsupported(at: place, field: field, "the \(kind) cannot be compiled: \(error.message)")
            }
            return nil
        }
    }

    /// Where, in the file, the byte at `decoded` of a JSON string's decoded text is: escapes (`\n`, `\"`,
    /// `\u00e9`) take more bytes in the file than in the text. A node that is not a string gives its own place.
    static func rawOffset(ofDecoded decoded: Int, inStringAt start: Int, bytes: [UInt8]) -> Int {
        guard start < bytes.count, bytes[start] == UInt8(ascii: "\"") || bytes[start] == UInt8(ascii: "'") else {
            return start
        }
        var raw = start + 1
        var count = 0
        while raw < bytes.count, count < decoded {
            if bytes[raw] == UInt8(ascii: "\\"), raw + 1 < bytes.count {
                if bytes[raw + 1] == UInt8(ascii: "u"), raw + 5 < bytes.count,
                    let scalar = UInt32(String(decoding: bytes[(raw + 2)..<(raw + 6)], as: UTF8.self), radix: 16)
                {
                    count += scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : (0xD800..<0xDC00).contains(scalar) ? 4 : 3
                    raw += (0xD800..<0xDC00).contains(scalar) ? 12 : 6
                } else {
                    count += 1
                    raw += 2
                }
            } else {
                count += 1
                raw += 1
            }
        }
        return raw
    }
}
