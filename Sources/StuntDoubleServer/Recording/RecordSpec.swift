import Foundation
import StuntDouble
import StuntDoubleWireMock

/// WireMock's record spec, the body of `POST /__admin/recordings/start` and `snapshot`: what to record from,
/// which requests, and how to write their stubs.
struct RecordSpec: Sendable {
    /// Where a recording proxies to (`targetBaseUrl`); required to start one, ignored by a snapshot.
    var target: URL?
    /// `filters`: a request pattern the recorded requests must match, if any.
    var pattern: StubRequestPattern?
    /// `filters.ids`: the journal ids to take, if given.
    var ids: Set<String>?
    /// `filters.allowNonProxied`: whether requests stubs answered (not proxied) are recorded too.
    var allowsNonProxied = false
    /// `captureHeaders`: request headers the stubs match, each `caseInsensitive` or not.
    var capturedHeaders: [(name: String, caseInsensitive: Bool)] = []
    /// `requestBodyPattern`: how a request body is matched.
    var bodyMatcher = BodyMatcher.automatic
    /// `extractBodyCriteria`: bodies longer than these go to `__files/` (`nil`: never).
    var textSizeThreshold: Int?
    var binarySizeThreshold: Int?
    /// `outputFormat`: whole mappings (`FULL`) or their ids (`IDS`).
    var answersIDs = false
    /// `persist`: whether the stubs are written to the root's `mappings/`.
    var persists = true
    /// `repeatsAsScenarios`: whether a repeated request becomes a scenario (else only its first answer is kept).
    var repeatsAsScenarios = true

    /// How a recorded request's body is matched.
    enum BodyMatcher: Sendable, Equatable {
        /// By the request's `Content-Type`: `equalToJson` for JSON, `equalToXml` for XML, `binaryEqualTo` for
        /// other non-text types, else `equalTo`.
        case automatic
        case equalTo(caseInsensitive: Bool)
        case equalToJson(ignoreArrayOrder: Bool?, ignoreExtraElements: Bool?)
        case equalToXml
    }

    /// What is wrong with a spec: one message per problem, each naming its field.
    struct Problems: Error {
        let messages: [String]
        init(_ messages: [String]) { self.messages = messages }
    }

    static let keys = [
        "targetBaseUrl", "filters", "captureHeaders", "requestBodyPattern", "extractBodyCriteria", "outputFormat",
        "persist", "repeatsAsScenarios", "transformers", "transformerParameters",
    ]

    /// Reads a spec; an empty body is every default.
    /// - Returns: The spec, or what is wrong with the body (each problem naming its field).
    static func read(_ body: Data) -> Result<RecordSpec, Problems> {
        var spec = RecordSpec()
        if body.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) { return .success(spec) }
        guard let node = JSONNode.parse(lenient: body), let members = node.members else {
            return .failure(
                Problems(["the record spec is not a JSON object, such as {\"targetBaseUrl\": \"http://...\"}"]))
        }
        var problems: [String] = []
        for member in members where !keys.contains(member.key) {
            problems.append("\(member.key): not a field of a record spec; use \(keys.joined(separator: ", "))")
        }
        if let target = node["targetBaseUrl"], !isNull(target) {
            if let text = target.string, let url = URL(string: text),
                ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil
            {
                spec.target = url
            } else {
                problems.append("targetBaseUrl: \(target.rendered()) is not an http or https URL")
            }
        }
        if let filters = node["filters"], !isNull(filters) {
            readFilters(filters, into: &spec, problems: &problems)
        }
        if let headers = node["captureHeaders"], !isNull(headers) {
            if let members = headers.members {
                for member in members {
                    let insensitive = member.value["caseInsensitive"]
                    if let insensitive, insensitive.bool == nil {
                        problems.append("captureHeaders.\(member.key).caseInsensitive: expected true or false")
                    }
                    spec.capturedHeaders.append((member.key, insensitive?.bool ?? false))
                }
            } else {
                problems.append("captureHeaders: expected an object such as {\"Accept\": {}}")
            }
        }
        if let pattern = node["requestBodyPattern"], !isNull(pattern) {
            readBodyPattern(pattern, into: &spec, problems: &problems)
        }
        if let criteria = node["extractBodyCriteria"], !isNull(criteria) {
            for (key, path) in [
                ("textSizeThreshold", \RecordSpec.textSizeThreshold), ("binarySizeThreshold", \.binarySizeThreshold),
            ] {
                guard let value = criteria[key], !isNull(value) else { continue }
                if let size = byteCount(value) {
                    spec[keyPath: path] = size
                } else {
                    problems.append(
                        "extractBodyCriteria.\(key): \(value.rendered()) is not a size, such as 2048 or \"2 kb\"")
                }
            }
        }
        if let format = node["outputFormat"], !isNull(format) {
            switch format.string?.uppercased() {
            case "FULL": spec.answersIDs = false
            case "IDS": spec.answersIDs = true
            default: problems.append("outputFormat: \(format.rendered()) is not FULL or IDS")
            }
        }
        for (key, path) in [("persist", \RecordSpec.persists), ("repeatsAsScenarios", \.repeatsAsScenarios)] {
            guard let value = node[key], !isNull(value) else { continue }
            if let flag = value.bool {
                spec[keyPath: path] = flag
            } else {
                problems.append("\(key): expected true or false")
            }
        }
        if let transformers = node["transformers"], let names = transformers.items, !names.isEmpty {
            problems.append(
                "transformers: \(transformers.rendered()): StuntDouble has no stub-mapping transformers for "
                    + "recordings (they are WireMock extensions); remove them")
        }
        return problems.isEmpty ? .success(spec) : .failure(Problems(problems))
    }

    private static func readFilters(_ filters: JSONNode, into spec: inout RecordSpec, problems: inout [String]) {
        guard let members = filters.members else {
            problems.append("filters: expected an object, such as {\"urlPathPattern\": \"/api/.*\"}")
            return
        }
        var patternMembers: [JSONNode.Member] = []
        for member in members {
            switch member.key {
            case "ids":
                if let items = member.value.items, items.allSatisfy({ $0.string != nil }) {
                    spec.ids = Set(items.compactMap { $0.string?.lowercased() })
                } else {
                    problems.append("filters.ids: expected an array of request ids")
                }
            case "allowNonProxied":
                if let flag = member.value.bool {
                    spec.allowsNonProxied = flag
                } else {
                    problems.append("filters.allowNonProxied: expected true or false")
                }
            default:
                patternMembers.append(member)
            }
        }
        guard !patternMembers.isEmpty else { return }
        let text = JSONNode(kind: .object(patternMembers)).rendered()
        let (pattern, diagnostics) = StubRequestPattern.read(Data(text.utf8), name: "filters")
        if let pattern {
            spec.pattern = pattern
        } else {
            problems += diagnostics.filter { $0.severity == .error }.map {
                "filters\($0.field.map { ".\($0)" } ?? ""): \($0.message)"
            }
        }
    }

    private static func readBodyPattern(_ pattern: JSONNode, into spec: inout RecordSpec, problems: inout [String]) {
        guard let members = pattern.members else {
            problems.append("requestBodyPattern: expected an object, such as {\"matcher\": \"equalToJson\"}")
            return
        }
        for member in members where member.key != "matcher" {
            guard ["caseInsensitive", "ignoreArrayOrder", "ignoreExtraElements"].contains(member.key) else {
                problems.append(
                    "requestBodyPattern.\(member.key): not a field; use matcher, caseInsensitive, ignoreArrayOrder, "
                        + "ignoreExtraElements")
                continue
            }
            if member.value.bool == nil { problems.append("requestBodyPattern.\(member.key): expected true or false") }
        }
        if let matcher = pattern["matcher"], matcher.string == nil {
            problems.append("requestBodyPattern.matcher: expected a string, such as \"auto\"")
        }
        switch pattern["matcher"]?.string {
        case nil, "auto"?: spec.bodyMatcher = .automatic
        case "equalTo"?: spec.bodyMatcher = .equalTo(caseInsensitive: pattern["caseInsensitive"]?.bool ?? false)
        case "equalToJson"?:
            spec.bodyMatcher = .equalToJson(
                ignoreArrayOrder: pattern["ignoreArrayOrder"]?.bool,
                ignoreExtraElements: pattern["ignoreExtraElements"]?.bool)
        case "equalToXml"?: spec.bodyMatcher = .equalToXml
        case let other?:
            problems.append("requestBodyPattern.matcher: \"\(other)\" is not auto, equalTo, equalToJson or equalToXml")
        }
    }

    /// A size as WireMock reads one: a number of bytes, or text such as `"2 kb"`, `"1.5m"` (K, M, G: ×1024).
    static func byteCount(_ node: JSONNode) -> Int? {
        if case .number(let number) = node.kind, let value = Double(number.text), value >= 0, value < 1e15 {
            return Int(value)
        }
        guard let text = node.string?.lowercased().replacingOccurrences(of: ",", with: ".") else { return nil }
        var digits = Substring(text.trimmingCharacters(in: .whitespaces))
        if digits.hasSuffix("b") { digits = digits.dropLast() }
        var factor = 1.0
        if let unit = digits.last, let power = ["k": 1.0, "m": 2.0, "g": 3.0][String(unit)] {
            factor = pow(1024, power)
            digits = digits.dropLast()
        }
        guard let value = Double(digits.trimmingCharacters(in: .whitespaces)), value >= 0, value * factor < 1e15 else {
            return nil
        }
        return Int(value * factor)
    }

    private static func isNull(_ node: JSONNode) -> Bool {
        if case .null = node.kind { true } else { false }
    }
}
