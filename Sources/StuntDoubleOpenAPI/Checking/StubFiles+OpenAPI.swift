import Foundation
import StuntDouble
import StuntDoubleWireMock

extension StubFiles {
    /// Checks every mapping (hand-written or recorded) against an OpenAPI document: that the document has
    /// the operation the mapping answers, and that the mapping's response keeps to it (status, media type,
    /// body, required headers). Drift between recordings and the API becomes visible without the network.
    ///
    /// What cannot be known without a request is not checked: a mapping for any URL, a fault, a proxy; a
    /// templated body (its status and media type are). A `urlPathPattern` is checked against each operation
    /// whose example path it matches.
    /// - Parameter contract: The document.
    /// - Returns: One error per broken rule, at the mapping's line and column, naming the document's line.
    public func violations(against contract: OpenAPIContract) -> [StubFileDiagnostic] {
        contract.violations(ofMappings: specs)
    }
}

extension OpenAPIContract {
    /// What mappings break, in their order.
    package func violations(ofMappings specs: [MappingSpec]) -> [StubFileDiagnostic] {
        specs.flatMap { spec in
            // A pattern that matches two operations of one path checks the same answer twice: say it once.
            var seen = Set<String>()
            return violations(of: spec).filter { seen.insert($0.description).inserted }
        }
    }

    /// What one mapping breaks.
    func violations(of spec: MappingSpec) -> [StubFileDiagnostic] {
        guard let requestNode = spec.json["request"] else { return [] }
        let targets: [(path: String, operation: Int?)]
        let urlNode: JSONNode
        let field: String
        if let (key, node) = Self.urlField(of: requestNode) {
            urlNode = node
            field = "request.\(key)"
            guard let text = node.string else { return [] }
            switch key {
            case "url", "urlPath":
                targets = [(text, nil)]
            case "urlPathTemplate":
                let shape = Self.templateShape(text)
                targets = operations.indices.filter { index in
                    basePaths.contains { base in Self.templateShape(base + operations[index].path) == shape }
                }
                .map { (samplePath(for: $0), $0) }
                if targets.isEmpty {
                    return [
                        diagnostic(spec, urlNode, field, "\(text) is not a path of \(fileName)", rule: "path", at: nil)
                    ]
                }
            default:
                guard let expression = try? NSRegularExpression(pattern: "^(?:" + text + ")$") else { return [] }
                targets = operations.indices.map { (samplePath(for: $0), $0) }.filter { target in
                    expression.firstMatch(in: target.path, range: NSRange(target.path.startIndex..., in: target.path))
                        != nil
                }
                if targets.isEmpty {
                    return [
                        diagnostic(
                            spec, urlNode, field, "no operation of \(fileName) has a path that \(text) matches",
                            rule: "path", at: nil)
                    ]
                }
            }
        } else {
            return []  // any URL: nothing to check it against
        }
        guard let answer = spec.fixedAnswer else { return [] }
        let responseNode = spec.json["response"] ?? requestNode
        var found: [StubFileDiagnostic] = []
        for target in targets {
            let method: HTTPMethod
            if let specMethod = spec.method {
                method = specMethod
            } else if let operation = target.operation {
                method = operations[operation].method
            } else {
                method = .get
            }
            guard let url = URL(string: "http://localhost" + (target.path.hasPrefix("/") ? "" : "/") + target.path),
                let request = try? HTTPIncomingRequest(method: method, url: url)
            else { continue }
            var violations = violations(
                ofResponse: answer.status, headers: answer.headers, body: answer.body, to: request)
            if answer.isTemplated {
                violations.removeAll { $0.location.hasPrefix("body") }
            }
            // For a pattern, only the operations of the mapping's method.
            if target.operation != nil, spec.method != nil, violations.contains(where: { $0.rule == "method" }) {
                continue
            }
            for violation in violations {
                let isRoute = violation.rule == "path" || violation.rule == "method"
                found.append(
                    diagnostic(
                        spec, isRoute ? urlNode : responseNode, isRoute ? field : "response",
                        "\(violation.location): \(violation.message)", rule: violation.rule,
                        at: violation.documentLocation))
            }
        }
        return found
    }

    private func diagnostic(
        _ spec: MappingSpec, _ node: JSONNode, _ field: String, _ message: String, rule: String,
        at place: OpenAPISourceLocation?
    ) -> StubFileDiagnostic {
        let position = spec.position(of: node)
        let reference = place.map { "\(rule), \($0)" } ?? "\(rule), \(fileName)"
        return StubFileDiagnostic(
            severity: .error, file: spec.file, line: position.line, column: position.column, field: field,
            message: "breaks \(fileName): \(message) (\(reference))")
    }

    private static func urlField(of request: JSONNode) -> (String, JSONNode)? {
        for key in ["url", "urlPath", "urlPathTemplate", "urlPattern", "urlPathPattern"] {
            if let node = request[key] { return (key, node) }
        }
        return nil
    }

    /// A template with its variables' names dropped: `/pets/{id}` and `/pets/{petId}` are the same path.
    private static func templateShape(_ template: String) -> String {
        var shape = ""
        var inVariable = false
        for character in template {
            if character == "{" {
                inVariable = true
                shape += "{}"
            } else if character == "}" {
                inVariable = false
            } else if !inVariable {
                shape.append(character)
            }
        }
        return shape
    }

    /// The base paths of the document's servers (`/v2`), `""` last.
    var basePaths: [String] { router.basePaths }

    /// A path of an operation, its variables filled with their examples (or values made from their
    /// schemas), under the first server's base path.
    func samplePath(for index: Int) -> String {
        let operation = operations[index]
        var generator = SchemaGenerator(table: schemas, direction: .request, seed: 0, isDynamic: false)
        var path = ""
        for segment in PathTemplate.segments(of: operation.path) {
            path += "/"
            switch segment {
            case .literal(let text): path += text
            case .pattern(let pieces, let variables):
                for (position, variable) in variables.enumerated() {
                    path += pieces[position]
                    let parameter = operation.parameters.first { $0.place == .path && $0.name == variable }
                    let value = parameter?.example ?? parameter?.schema.map { generator.value(for: $0) } ?? .string("1")
                    let text: String =
                        switch value {
                        case .string(let string): string
                        case .number(_, let text): text
                        default: value.jsonText
                        }
                    // A value is one segment: `/` in it is encoded too.
                    var allowed = CharacterSet.urlPathAllowed
                    allowed.remove("/")
                    path += text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
                }
                path += pieces[pieces.count - 1]
            }
        }
        return (basePaths.first ?? "") + path
    }
}
