import Foundation
import StuntDouble

extension StubFileReader {
    static let requestKeys = [
        "method", "url", "urlPattern", "urlPath", "urlPathPattern", "urlPathTemplate", "pathParameters",
        "queryParameters", "headers", "cookies", "bodyPatterns", "basicAuthCredentials", "host", "customMatcher",
    ]

    static let unsupportedRequestKeys = [
        "multipartPatterns": "multipart matching is not supported yet: remove multipartPatterns, or match the body "
            + "with bodyPatterns (contains, matches)",
        "formParameters": "form parameter matching is not supported yet: match the body with bodyPatterns instead",
        "port": "port matching is not supported yet: remove it (the server answers on one port)",
        "scheme": "scheme matching is not supported yet: remove it",
        "clientIp": "client IP matching is not supported yet: remove it",
    ]

    /// The URL fields, in the order WireMock tries them: it uses the first one present.
    static let urlKeys = ["url", "urlPattern", "urlPath", "urlPathPattern", "urlPathTemplate"]

    mutating func readRequest(_ node: JSONNode, field: String, into spec: inout MappingSpec) {
        guard let members = object(node, field) else { return }
        let fields = checkKeys(
            members, field: field, known: Self.requestKeys, unsupported: Self.unsupportedRequestKeys)
        if let method = fields["method"], let name = string(method, Self.join(field, "method")) {
            if name.isEmpty || name.contains(where: { $0 == " " || $0 == "\t" }) {
                error(method, Self.join(field, "method"), "\"\(name)\" is not an HTTP method (such as GET or POST)")
            } else if name.uppercased() != "ANY" {
                spec.method = HTTPMethod(rawValue: name)
            }
        }
        let present = Self.urlKeys.filter { key in fields[key].map { !Self.isNull($0) } ?? false }
        for ignored in present.dropFirst() {
            if let value = fields[ignored] {
                warning(
                    value, Self.join(field, ignored),
                    "ignored: WireMock uses only the first of \(Self.urlKeys.joined(separator: ", ")) (here "
                        + "\(present[0])); remove the others")
            }
        }
        var pathParameters: [(name: String, pattern: ValuePattern)] = []
        if let parameters = fields["pathParameters"],
            let entries = object(parameters, Self.join(field, "pathParameters"))
        {
            if present.first != "urlPathTemplate", !entries.isEmpty {
                warning(
                    parameters, Self.join(field, "pathParameters"), "ignored: path parameters need a urlPathTemplate")
            }
            for entry in entries {
                if let pattern = readPattern(
                    entry.value, field: Self.join(Self.join(field, "pathParameters"), entry.key))
                {
                    pathParameters.append((entry.key, pattern))
                }
            }
        }
        if let key = present.first, let value = fields[key] {
            let path = Self.join(field, key)
            if let text = strictString(value, path, key) {
                if let matcher = urlMatcher(key, text, pathParameters: pathParameters, node: value, field: path) {
                    spec.matchers.append(matcher)
                }
                spec.urlSummary =
                    key == "url" || key == "urlPath" || key == "urlPathTemplate" ? text : "\(text) (regex)"
            }
        }
        for (key, part) in [
            ("queryParameters", StubFileValueMatcher.Part.queryParameter), ("headers", .header), ("cookies", .cookie),
        ] {
            guard let value = fields[key], let entries = object(value, Self.join(field, key)) else { continue }
            var seen = Set<String>()
            for entry in entries {
                let entryField = Self.join(Self.join(field, key), entry.key)
                // A header written twice in different case is one header, and the last one wins.
                let identity = part == .header ? entry.key.lowercased() : entry.key
                if !seen.insert(identity).inserted {
                    spec.matchers.removeAll { matcher in
                        guard let existing = matcher as? StubFileValueMatcher, existing.part == part else {
                            return false
                        }
                        return (part == .header ? existing.name.lowercased() : existing.name) == identity
                    }
                }
                if let pattern = readPattern(entry.value, field: entryField) {
                    spec.matchers.append(StubFileValueMatcher(part: part, name: entry.key, pattern: pattern))
                }
            }
        }
        if let host = fields["host"], let pattern = readPattern(host, field: Self.join(field, "host")) {
            // WireMock 3's host pattern: the request's host name (from the Host header, at the server).
            spec.matchers.append(StubFileValueMatcher(part: .host, name: "host", pattern: pattern))
        }
        if let credentials = fields["basicAuthCredentials"] {
            readBasicAuth(credentials, field: Self.join(field, "basicAuthCredentials"), into: &spec)
        }
        if let patterns = fields["bodyPatterns"] {
            let path = Self.join(field, "bodyPatterns")
            if let items = patterns.items {
                for (index, item) in items.enumerated() {
                    if let pattern = readPattern(item, field: "\(path)[\(index)]") {
                        spec.matchers.append(StubFileBodyMatcher(pattern: pattern))
                    }
                }
            } else if !Self.isNull(patterns) {
                error(patterns, path, "expected an array of body patterns; found \(patterns.kindName)")
            }
        }
        if let custom = fields["customMatcher"], !Self.isNull(custom) {
            readCustomMatcher(custom, field: Self.join(field, "customMatcher"), into: &spec)
        }
    }

    /// `customMatcher`: `{"name": ..., "parameters": {...}}`, run by the extension of that name when one was
    /// given; otherwise a feature StuntDouble lacks here.
    private mutating func readCustomMatcher(_ node: JSONNode, field: String, into spec: inout MappingSpec) {
        guard let members = object(node, field) else { return }
        let fields = checkKeys(members, field: field, known: ["name", "parameters"], unsupported: [:])
        guard let nameNode = fields["name"] else {
            error(node, field, "a custom matcher needs a name, such as \"graphql-body-matcher\"")
            return
        }
        guard let name = string(nameNode, Self.join(field, "name")) else { return }
        guard let found = extensions[name] else {
            let known = extensions.values.map(\.description).sorted()
            unsupported(
                at: nameNode.offset, field: Self.join(field, "name"),
                "the custom matcher \"\(name)\" is a WireMock extension (Java code) that StuntDouble does not run"
                    + (known.isEmpty
                        ? "" : "; it runs \(known.joined(separator: ", "))"))
            return
        }
        var parameters = fields["parameters"] ?? JSONNode(kind: .object([]), offset: node.offset)
        if Self.isNull(parameters) {
            parameters = JSONNode(kind: .object([]), offset: parameters.offset)
        } else if case .object = parameters.kind {
        } else {
            error(parameters, Self.join(field, "parameters"), "expected an object; found \(parameters.kindName)")
            return
        }
        do {
            spec.matchers.append(try found.makeMatcher(parameters))
        } catch {
            let path = ([Self.join(field, "parameters")] + error.path).joined(separator: ".")
            self.error(error.node, path, error.message)
        }
    }

    static func isNull(_ node: JSONNode) -> Bool {
        if case .null = node.kind { true } else { false }
    }

    private mutating func urlMatcher(
        _ key: String, _ text: String, pathParameters: [(name: String, pattern: ValuePattern)], node: JSONNode,
        field: String
    ) -> StubFileURLMatcher? {
        switch key {
        case "url":
            return StubFileURLMatcher(kind: .url(PercentEncoding.normalize(text)))
        case "urlPath":
            return StubFileURLMatcher(kind: .urlPath(PercentEncoding.normalize(text)))
        case "urlPattern", "urlPathPattern":
            guard let regex = compile(text, node: node, field: field) else { return nil }
            return StubFileURLMatcher(
                kind: key == "urlPattern" ? .urlPattern(text, regex) : .urlPathPattern(text, regex))
        default:
            guard text.hasPrefix("/") else {
                error(node, field, "a path template starts with '/' (such as /users/{id})")
                return nil
            }
            let template = HTTPStubURITemplateMatcher(URI: text)
            if let problem = template.problem {
                error(node, field, problem.message)
                return nil
            }
            return StubFileURLMatcher(kind: .urlPathTemplate(template, pathParameters))
        }
    }

    /// Compiles a WireMock regular expression (Java syntax, read by ICU): it must match the whole value, and
    /// `.` matches newlines.
    mutating func compile(_ pattern: String, node: JSONNode, field: String) -> NSRegularExpressionBox? {
        do {
            return try NSRegularExpressionBox(wholeMatch: pattern, options: [.dotMatchesLineSeparators])
        } catch {
            self.error(
                node, field, "the regular expression \"\(pattern)\" does not compile: \(error.localizedDescription)")
            return nil
        }
    }

    private mutating func readBasicAuth(_ node: JSONNode, field: String, into spec: inout MappingSpec) {
        guard let members = object(node, field) else { return }
        let fields = checkKeys(members, field: field, known: ["username", "password"], unsupported: [:])
        let username = fields["username"].flatMap { string($0, Self.join(field, "username")) }
        let password = fields["password"].flatMap { string($0, Self.join(field, "password")) }
        guard let username, let password else {
            error(node, field, "basic credentials need a username and a password")
            return
        }
        let encoded = Data("\(username):\(password)".utf8).base64EncodedString()
        spec.matchers.append(
            StubFileValueMatcher(
                part: .header, name: "Authorization", pattern: .equalTo("Basic \(encoded)", caseInsensitive: false)))
    }

    // MARK: - Value patterns

    /// The operators WireMock reads in a matcher object, in the order of our support: the first one written
    /// decides.
    static let supportedOperators = [
        "equalTo", "contains", "doesNotContain", "matches", "doesNotMatch", "absent", "equalToJson", "matchesJsonPath",
        "binaryEqualTo", "and", "or", "not",
    ]

    static let unsupportedOperators = [
        "equalToXml", "matchesXPath", "before", "after", "equalToDateTime", "matchesJsonSchema", "hasExactly",
        "includes", "equalToNumber", "greaterThanNumber", "lessThanNumber",
    ]

    /// Options that may sit beside an operator.
    static let operatorModifiers = [
        "equalTo": ["caseInsensitive"],
        "equalToJson": [
            "ignoreArrayOrder", "ignoreExtraElements", "enablePlaceholders", "placeholderOpeningDelimiterRegex",
            "placeholderClosingDelimiterRegex", "serializeAsString",
        ],
    ]

    /// Reads a matcher object such as `{"equalTo": "x", "caseInsensitive": true}`.
    mutating func readPattern(_ node: JSONNode, field: String, depth: Int = 0) -> ValuePattern? {
        guard let members = node.members.map({ uniqueMembers($0, field: field) }) else {
            error(node, field, "expected a matcher object such as {\"equalTo\": \"value\"}; found \(node.kindName)")
            return nil
        }
        guard depth < 32 else {
            error(node, field, "matchers nested deeper than 32 levels")
            return nil
        }
        let operators = members.filter {
            Self.supportedOperators.contains($0.key) || Self.unsupportedOperators.contains($0.key)
        }
        guard let chosen = operators.first else {
            error(
                node, field,
                "no match operator; use one of " + Self.supportedOperators.joined(separator: ", ")
                    + " (WireMock refuses the file too)")
            return nil
        }
        let operatorField = Self.join(field, chosen.key)
        if Self.unsupportedOperators.contains(chosen.key) {
            unsupported(
                at: chosen.keyOffset, field: operatorField,
                "the \(chosen.key) operator is not supported yet; WireMock would apply it, so a stub without it "
                    + "would match requests it should not: rewrite it with "
                    + Self.supportedOperators.joined(separator: ", "))
            return nil
        }
        let modifiers = Self.operatorModifiers[chosen.key] ?? []
        for member in members where member.key != chosen.key {
            let path = Self.join(field, member.key)
            if Self.supportedOperators.contains(member.key) || Self.unsupportedOperators.contains(member.key) {
                report(
                    .warning, at: member.keyOffset, field: path,
                    "ignored: WireMock uses only the first operator of a matcher object (here \(chosen.key)); put "
                        + "each operator in its own object, joined with \"and\"")
            } else if !modifiers.contains(member.key) {
                var message = "unknown option of \(chosen.key); it is ignored"
                if let suggestion = Self.suggestion(for: member.key, among: modifiers) {
                    message += "; did you mean \"\(suggestion)\"?"
                }
                report(.warning, at: member.keyOffset, field: path, message)
            }
        }
        let value = chosen.value
        switch chosen.key {
        case "equalTo":
            guard let text = strictString(value, operatorField, "the equalTo operand") else { return nil }
            let caseInsensitive = node["caseInsensitive"].flatMap { bool($0, Self.join(field, "caseInsensitive")) }
            return .equalTo(text, caseInsensitive: caseInsensitive ?? false)
        case "contains":
            return strictString(value, operatorField, "the contains operand").map(ValuePattern.contains)
        case "doesNotContain":
            return strictString(value, operatorField, "the doesNotContain operand").map(ValuePattern.doesNotContain)
        case "matches", "doesNotMatch":
            guard let text = strictString(value, operatorField, "the \(chosen.key) operand"),
                let regex = compile(text, node: value, field: operatorField)
            else { return nil }
            return chosen.key == "matches" ? .matches(text, regex) : .doesNotMatch(text, regex)
        case "absent":
            // WireMock reads any value of "absent" (even false) as "must be absent".
            if case .bool(false) = value.kind {
                warning(
                    value, operatorField, "\"absent\": false still means absent (as in WireMock); remove it or use true"
                )
            }
            return .absent
        case "equalToJson":
            return readEqualToJSON(node, value, field: field)
        case "matchesJsonPath":
            return readJSONPath(value, field: operatorField, depth: depth)
        case "binaryEqualTo":
            guard let text = strictString(value, operatorField, "the binaryEqualTo operand") else { return nil }
            guard let data = Data(base64Encoded: text) else {
                error(value, operatorField, "not valid base64")
                return nil
            }
            return .binaryEqualTo(data)
        case "not":
            return readPattern(value, field: operatorField, depth: depth + 1).map(ValuePattern.not)
        default:
            guard let items = value.items, !items.isEmpty else {
                error(value, operatorField, "expected an array of matcher objects")
                return nil
            }
            var patterns: [ValuePattern] = []
            for (index, item) in items.enumerated() {
                guard let pattern = readPattern(item, field: "\(operatorField)[\(index)]", depth: depth + 1) else {
                    return nil
                }
                patterns.append(pattern)
            }
            return chosen.key == "and" ? .and(patterns) : .or(patterns)
        }
    }

    private mutating func readEqualToJSON(_ node: JSONNode, _ value: JSONNode, field: String) -> ValuePattern? {
        let operatorField = Self.join(field, "equalToJson")
        let expected: JSONValue
        if case .string(let text) = value.kind {
            let parser = JSONParser(bytes: Array(text.utf8), options: .wireMock)
            do {
                let (parsed, trailing) = try parser.parseDocument()
                if trailing != nil {
                    warning(value, operatorField, "text after the JSON value is ignored")
                }
                expected = JSONValue(parsed)
            } catch {
                self.error(value, operatorField, "the expected JSON does not parse: \(error)")
                return nil
            }
        } else {
            expected = JSONValue(value)
        }
        if let placeholder = JSONComparison.unknownPlaceholder(in: expected) {
            error(
                value, operatorField,
                "\(placeholder) is not a placeholder StuntDouble knows; use one of "
                    + JSONComparison.placeholders.joined(separator: ", ") + " or \(JSONComparison.regexPlaceholder)...")
            return nil
        }
        var options = JSONComparison.Options()
        if let flag = node["ignoreArrayOrder"] {
            options.ignoreArrayOrder = bool(flag, Self.join(field, "ignoreArrayOrder")) ?? false
        }
        if let flag = node["ignoreExtraElements"] {
            options.ignoreExtraElements = bool(flag, Self.join(field, "ignoreExtraElements")) ?? false
        }
        return .equalToJSON(expected, options)
    }

    private mutating func readJSONPath(_ value: JSONNode, field: String, depth: Int) -> ValuePattern? {
        if case .string(let expression) = value.kind {
            return jsonPath(expression, node: value, field: field).map { .matchesJSONPath($0, nil) }
        }
        guard let members = value.members else {
            error(value, field, "expected a JSONPath string, or {\"expression\": ..., <operator>: ...}")
            return nil
        }
        guard let expressionNode = value["expression"],
            let expression = strictString(expressionNode, Self.join(field, "expression"), "expression")
        else {
            error(value, field, "the object form needs an \"expression\"")
            return nil
        }
        guard let path = jsonPath(expression, node: expressionNode, field: Self.join(field, "expression")) else {
            return nil
        }
        let rest = members.filter { $0.key != "expression" }
        let sub = JSONNode(kind: .object(rest), offset: value.offset)
        guard let pattern = readPattern(sub, field: field, depth: depth + 1) else { return nil }
        return .matchesJSONPath(path, pattern)
    }

    private mutating func jsonPath(_ expression: String, node: JSONNode, field: String) -> JSONPath? {
        do {
            return try JSONPath(expression)
        } catch {
            self.error(node, field, "the JSONPath \"\(expression)\" does not parse: \(error.message)")
            return nil
        }
    }
}
