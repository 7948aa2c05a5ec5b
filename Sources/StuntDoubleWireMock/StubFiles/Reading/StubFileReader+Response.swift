import Foundation
import StuntDouble

extension StubFileReader {
    static let responseKeys = [
        "fault", "status", "statusMessage", "headers", "body", "jsonBody", "base64Body", "bodyFileName",
        "fixedDelayMilliseconds", "delayDistribution", "chunkedDribbleDelay", "transformers", "transformerParameters",
        "additionalProxyRequestHeaders", "removeProxyRequestHeaders", "proxyUrlPrefixToRemove", "fromConfiguredStub",
        "proxyBaseUrl", "serverSentEvents",
    ]

    static let unsupportedResponseKeys: [String: String] = [:]

    /// The body fields, in the order WireMock prefers them when several are given.
    static let bodyKeys = ["body", "jsonBody", "base64Body", "bodyFileName"]

    mutating func readResponse(_ node: JSONNode, field: String, into spec: inout MappingSpec) {
        guard let members = object(node, field) else { return }
        let fields = checkKeys(
            members, field: field, known: Self.responseKeys, unsupported: Self.unsupportedResponseKeys)
        var response = ResponseSpec()
        if let status = fields["status"], let code = integer(status, Self.join(field, "status")) {
            if (100...599).contains(code) {
                response.status = code
            } else {
                error(status, Self.join(field, "status"), "\(code) is not an HTTP status code; use 100 to 599")
            }
        }
        if let message = fields["statusMessage"] {
            response.statusMessage = string(message, Self.join(field, "statusMessage"))
        }
        if let headers = fields["headers"] {
            response.headers = readHeaders(headers, field: Self.join(field, "headers"))
        }
        if let faultNode = fields["fault"], let name = strictString(faultNode, Self.join(field, "fault"), "fault") {
            let fault = HTTPStubFault(rawValue: name)
            if HTTPStubFault.allCases.contains(fault) {
                response.fault = fault
            } else {
                var message =
                    "\"\(name)\" is not a fault; use one of "
                    + HTTPStubFault.allCases.map(\.rawValue).joined(separator: ", ")
                if let suggestion = Self.suggestion(for: name, among: HTTPStubFault.allCases.map(\.rawValue)) {
                    message += " (did you mean \(suggestion)?)"
                }
                error(faultNode, Self.join(field, "fault"), message)
            }
        }
        readBody(fields, field: field, into: &response)
        readTiming(fields, field: field, into: &response)
        var eventTemplates: [ResponseSpec.EventTemplates] = []
        if let node = fields["serverSentEvents"], !Self.isNull(node) {
            let path = Self.join(field, "serverSentEvents")
            eventTemplates = readEventStream(node, field: path, templated: willTemplate(fields), into: &response)
            for key in Self.bodyKeys + ["chunkedDribbleDelay"] {
                if let value = fields[key], !Self.isNull(value) {
                    warning(value, Self.join(field, key), "ignored: the events of serverSentEvents are the body")
                }
            }
            response.dribble = nil
        }
        if let base = fields["proxyBaseUrl"],
            let text = strictString(base, Self.join(field, "proxyBaseUrl"), "proxyBaseUrl")
        {
            if text.contains("{{"), willTemplate(fields) {
                // Worked out per request from the template; the base URL here stands in until then.
                response.proxy = HTTPStubProxy(baseURL: URL(fileURLWithPath: "/"))
            } else if let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host != nil
            {
                var proxy = HTTPStubProxy(baseURL: url)
                if let prefix = fields["proxyUrlPrefixToRemove"] {
                    proxy.prefixToRemove = strictString(
                        prefix, Self.join(field, "proxyUrlPrefixToRemove"), "proxyUrlPrefixToRemove")
                }
                if let extra = fields["additionalProxyRequestHeaders"] {
                    for header in readHeaders(extra, field: Self.join(field, "additionalProxyRequestHeaders")) {
                        proxy.additionalHeaders[header.name.rawValue] = header.value
                    }
                }
                if let removed = fields["removeProxyRequestHeaders"], !Self.isEmpty(removed) {
                    unsupported(
                        at: removed.offset, field: Self.join(field, "removeProxyRequestHeaders"),
                        "removing headers from proxied requests is not supported yet: remove it")
                }
                response.proxy = proxy
            } else {
                error(
                    base, Self.join(field, "proxyBaseUrl"),
                    "\"\(text)\" is not an http or https URL with a host (such as https://api.example.com)")
            }
        } else {
            for key in ["additionalProxyRequestHeaders", "removeProxyRequestHeaders", "proxyUrlPrefixToRemove"] {
                if let value = fields[key], !Self.isEmpty(value) {
                    warning(value, Self.join(field, key), "ignored: it applies to proxied requests only")
                }
            }
        }
        readTemplating(fields, field: field, into: &response)
        response.templates?.events = eventTemplates
        spec.response = response
    }

    /// Whether the response is templated: global templating, or `response-template` among its transformers.
    func willTemplate(_ fields: [String: JSONNode]) -> Bool {
        templating.isEnabled
            && (templating.isGlobal
                || (fields["transformers"]?.items ?? []).contains { item in
                    if case .string("response-template") = item.kind { true } else { false }
                })
    }

    private mutating func readHeaders(_ node: JSONNode, field: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        guard let members = object(node, field) else { return headers }
        var seen = Set<String>()
        for member in members {
            let path = Self.join(field, member.key)
            let name = HTTPHeaders.Name(rawValue: member.key)
            if !seen.insert(member.key.lowercased()).inserted {
                report(.warning, at: member.keyOffset, field: path, "written twice; the last one wins")
                headers.remove(name)
            }
            if let items = member.value.items {
                for (index, item) in items.enumerated() {
                    if let value = strictString(item, "\(path)[\(index)]", "a header value") {
                        headers.add(name: name, value: value)
                    }
                }
            } else if let value = strictString(member.value, path, "a header value (or an array of them)") {
                headers.add(name: name, value: value)
            }
        }
        return headers
    }

    private mutating func readBody(_ fields: [String: JSONNode], field: String, into response: inout ResponseSpec) {
        let given = Self.bodyKeys.filter { key in fields[key].map { !Self.isNull($0) } ?? false }
        for ignored in given.dropFirst() {
            warning(
                fields[ignored]!, Self.join(field, ignored),
                "ignored: WireMock uses only the first of \(Self.bodyKeys.joined(separator: ", ")) (here "
                    + "\(given[0])); remove the others")
        }
        guard let key = given.first, let node = fields[key] else { return }
        let path = Self.join(field, key)
        switch key {
        case "body":
            response.body = strictString(node, path, "body (a JSON value goes in jsonBody)").map { Data($0.utf8) }
        case "jsonBody":
            // As WireMock sends it: compact, keys in the file's order.
            response.body = Data(node.compactText.utf8)
        case "base64Body":
            guard let text = strictString(node, path, "base64Body") else { return }
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                error(node, path, "not valid base64")
                return
            }
            response.body = data
        default:
            guard let name = strictString(node, path, "bodyFileName") else { return }
            // A templated name is read per request (`readTemplating`).
            if name.contains("{{"), willTemplate(fields) { return }
            switch readBodyFile(name) {
            case .success(let data):
                response.body = data
            case .failure(let problem):
                warning(node, path, problem.message + "; the stub answers 500, as WireMock does")
                response.bodyFailure = problem.message
            }
        }
        checkContentLength(fields["headers"], field: field, response: &response)
    }

    /// A `Content-Length` written in the headers (recorded files carry them) that disagrees with the body
    /// would make clients wait for bytes that never come, or cut the body: the body's length is sent instead.
    private mutating func checkContentLength(_ headersNode: JSONNode?, field: String, response: inout ResponseSpec) {
        guard let written = response.headers[.contentLength], let headersNode else { return }
        let actual = response.body?.count ?? 0
        if response.headers.contains(.transferEncoding) {
            warning(
                headersNode, Self.join(field, "headers"),
                "both Content-Length and Transfer-Encoding are given; Content-Length is dropped, as HTTP requires")
            response.headers.remove(.contentLength)
        } else if Int(written.trimmingCharacters(in: .whitespaces)) != actual {
            warning(
                headersNode, Self.join(field, "headers.Content-Length"),
                "\(written) does not match the body's \(actual) bytes; StuntDouble sends \(actual) (WireMock sends "
                    + "\(written), and clients wait for bytes that never come or cut the body)")
            response.headers.remove(.contentLength)
        }
    }

    /// Why a body file cannot be served.
    struct BodyFileProblem: Error {
        let message: String
    }

    /// Reads `__files/<name>`, never a file outside `__files/` (by `..`, an absolute path or a symbolic link).
    func readBodyFile(_ name: String) -> Result<Data, BodyFileProblem> {
        Self.readBodyFile(name, in: filesDirectory)
    }

    /// Reads `__files/<name>` of a root, never a file outside it.
    static func readBodyFile(_ name: String, in filesDirectory: URL?) -> Result<Data, BodyFileProblem> {
        guard let filesDirectory else {
            return .failure(
                BodyFileProblem(
                    message: "bodyFileName \"\(name)\" cannot be read: the mapping is not in a root folder's "
                        + "mappings/, so there is no __files/ folder"))
        }
        if name.hasPrefix("/") || name.hasPrefix("\\") {
            return .failure(
                BodyFileProblem(
                    message: "bodyFileName \"\(name)\" is an absolute path; it must be relative to __files/ and is "
                        + "never read"))
        }
        guard let target = StubFiles.fileURL(named: name, in: filesDirectory) else {
            return .failure(
                BodyFileProblem(
                    message: "bodyFileName \"\(name)\" leads outside __files/; it is never read"))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target.path, isDirectory: &isDirectory), !isDirectory.boolValue
        else {
            return .failure(BodyFileProblem(message: "bodyFileName \"\(name)\" does not exist in __files/"))
        }
        guard let data = FileManager.default.contents(atPath: target.path) else {
            return .failure(BodyFileProblem(message: "bodyFileName \"\(name)\" cannot be read"))
        }
        return .success(data)
    }

    private mutating func readTiming(_ fields: [String: JSONNode], field: String, into response: inout ResponseSpec) {
        if let node = fields["fixedDelayMilliseconds"],
            let delay = milliseconds(node, Self.join(field, "fixedDelayMilliseconds"))
        {
            response.fixedDelay = delay
        }
        if let node = fields["delayDistribution"] {
            response.delayDistribution = readDistribution(node, field: Self.join(field, "delayDistribution"))
        }
        if let node = fields["chunkedDribbleDelay"] {
            let path = Self.join(field, "chunkedDribbleDelay")
            guard let members = object(node, path) else { return }
            let values = checkKeys(members, field: path, known: ["numberOfChunks", "totalDuration"], unsupported: [:])
            guard let chunksNode = values["numberOfChunks"], let durationNode = values["totalDuration"] else {
                error(node, path, "needs numberOfChunks and totalDuration (milliseconds)")
                return
            }
            guard let chunks = integer(chunksNode, Self.join(path, "numberOfChunks")),
                let duration = milliseconds(durationNode, Self.join(path, "totalDuration"))
            else { return }
            guard (1...HTTPResponsePlan.maximumChunkCount).contains(chunks) else {
                error(
                    chunksNode, Self.join(path, "numberOfChunks"),
                    "\(chunks) chunks; use 1 to \(HTTPResponsePlan.maximumChunkCount)")
                return
            }
            response.dribble = (chunks, duration)
        }
    }

    /// A non-negative whole number of milliseconds, as seconds.
    mutating func milliseconds(_ node: JSONNode, _ field: String) -> TimeInterval? {
        guard let value = integer(node, field) else { return nil }
        guard value >= 0, Double(value) <= HTTPResponsePlan.maximumSeconds * 1000 else {
            error(node, field, "\(value) ms; use 0 to \(Int(HTTPResponsePlan.maximumSeconds) * 1000) (one year)")
            return nil
        }
        return Double(value) / 1000
    }

    /// WireMock's delay distribution: `fixed` (milliseconds), `uniform` (lower, upper) or `lognormal` (median,
    /// sigma), in milliseconds.
    mutating func readDistribution(_ node: JSONNode, field: String) -> ResponseSpec.DelayDistribution? {
        guard let members = object(node, field) else { return nil }
        let values = checkKeys(
            members, field: field, known: ["type", "milliseconds", "lower", "upper", "median", "sigma", "maxValue"],
            unsupported: [:])
        guard let typeNode = values["type"], let type = string(typeNode, Self.join(field, "type")) else {
            error(
                node, field,
                "needs a type: \"fixed\" (milliseconds), \"uniform\" (lower, upper) or \"lognormal\" (median, sigma)")
            return nil
        }
        switch type {
        case "fixed":
            guard let millisecondsNode = values["milliseconds"],
                let seconds = milliseconds(millisecondsNode, Self.join(field, "milliseconds"))
            else {
                error(node, field, "a fixed delay needs milliseconds")
                return nil
            }
            return .fixed(seconds)
        case "uniform":
            guard let lowerNode = values["lower"], let upperNode = values["upper"],
                let lower = milliseconds(lowerNode, Self.join(field, "lower")),
                let upper = milliseconds(upperNode, Self.join(field, "upper"))
            else {
                error(node, field, "a uniform distribution needs lower and upper (milliseconds)")
                return nil
            }
            guard lower <= upper else {
                error(node, field, "lower is above upper")
                return nil
            }
            return .uniform(lower: lower, upper: upper)
        case "lognormal":
            guard let medianNode = values["median"], let median = milliseconds(medianNode, Self.join(field, "median"))
            else {
                error(node, field, "a lognormal distribution needs a median (milliseconds) and a sigma")
                return nil
            }
            let sigma = values["sigma"].flatMap { number($0, Self.join(field, "sigma")) } ?? 0.1
            guard sigma.isFinite, sigma >= 0, sigma <= 10 else {
                error(node, field, "sigma \(sigma); use 0 to 10")
                return nil
            }
            if let maxValue = values["maxValue"] {
                warning(maxValue, Self.join(field, "maxValue"), "ignored: StuntDouble does not cap lognormal delays")
            }
            return .lognormal(median: median, sigma: sigma)
        default:
            error(
                typeNode, Self.join(field, "type"),
                "\"\(type)\" is not a delay distribution; use fixed, uniform or lognormal")
            return nil
        }
    }
}

extension JSONNode {
    /// The value as compact JSON text, as WireMock writes a `jsonBody`: members in the order written
    /// (duplicates: the last one), numbers as Java prints them (`2.50` as `2.5`, `1e2` as `100.0`).
    var compactText: String { rendered(numbers: .java) }
}
