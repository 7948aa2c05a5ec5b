import Foundation
import StuntDouble

/// Reads one stub file (WireMock's mapping format) into mapping specs, with a diagnostic for everything that
/// WireMock would refuse, act on differently, or silently ignore.
///
/// The reading is as lenient as WireMock's (comments, single quotes, duplicate keys, text after the mapping,
/// numbers written as strings), so that files that serve under WireMock serve here; everything it lets
/// through that is probably a mistake is a warning.
struct StubFileReader {
    /// The file as diagnostics name it.
    let file: String
    let bytes: [UInt8]
    let lines: LineTable
    /// The `__files` folder that `bodyFileName` is relative to, or `nil` when the file is not in a root.
    let filesDirectory: URL?
    /// What a mapping that uses a feature StuntDouble lacks becomes: an error, or a stub answering 500.
    let unsupportedFeatures: StubFiles.UnsupportedFeatures
    /// The features the mapping being read uses that StuntDouble lacks, as `file:line:column: field: why`.
    private var unsupportedInMapping: [String] = []
    /// Whether an unknown field is an error, as WireMock's admin API makes it (a file's is a warning).
    var refusesUnknownFields = false
    /// Which responses are templates, and what their rendering reads (the clock, the random source).
    var templating = StubFiles.ResponseTemplating.local
    /// The custom matchers (`customMatcher`) the mappings may name, by name.
    var extensions: [String: StubFileExtension] = [:]
    /// Whether webhooks are sent where the mappings are served (a stub server); elsewhere a mapping with one
    /// uses a feature StuntDouble lacks there.
    var sendsWebhooks = false
    private(set) var diagnostics: [StubFileDiagnostic] = []
    /// How many of the diagnostics are errors (counted as they come: a file may have thousands).
    private(set) var errorCount = 0
    private(set) var specs: [MappingSpec] = []
    /// The message mappings read by ``readMessageFile()``.
    var messageSpecs: [MessageMappingSpec] = []

    init(
        file: String, bytes: [UInt8], filesDirectory: URL?, unsupportedFeatures: StubFiles.UnsupportedFeatures = .refuse
    ) {
        self.file = file
        self.bytes = bytes
        self.filesDirectory = filesDirectory
        self.unsupportedFeatures = unsupportedFeatures
        lines = LineTable(bytes)
    }

    // MARK: - Diagnostics

    mutating func report(_ severity: StubFileDiagnostic.Severity, at offset: Int, field: String?, _ message: String) {
        let position = lines.position(of: offset)
        if severity == .error { errorCount += 1 }
        diagnostics.append(
            StubFileDiagnostic(
                severity: severity, file: file, line: position.line, column: position.column, field: field,
                message: message))
    }

    mutating func error(_ node: JSONNode, _ field: String?, _ message: String) {
        report(.error, at: node.offset, field: field, message)
    }

    mutating func warning(_ node: JSONNode, _ field: String?, _ message: String) {
        report(.warning, at: node.offset, field: field, message)
    }

    /// A feature WireMock would act on and StuntDouble lacks: an error when such mappings are refused; else a
    /// warning, and the mapping's stub answers 500 naming it (never something other than WireMock would).
    mutating func unsupported(at offset: Int, field: String, _ message: String) {
        switch unsupportedFeatures {
        case .refuse:
            report(.error, at: offset, field: field, message)
        case .answerWithError:
            let position = lines.position(of: offset)
            unsupportedInMapping.append("\(file):\(position.line):\(position.column): \(field): \(message)")
            report(.warning, at: offset, field: field, message + "; until then the stub answers 500 saying so")
        }
    }

    /// `parent.key`, or `key` at the top.
    static func join(_ parent: String, _ key: String) -> String {
        parent.isEmpty ? key : "\(parent).\(key)"
    }

    // MARK: - The file

    /// Reads the file: one mapping, or `{"mappings": [...]}`.
    mutating func read() {
        guard let root = parseRoot(what: "one mapping, or {\"mappings\": [...]}") else { return }
        guard let written = root.members else {
            error(root, nil, "a stub file holds one mapping object, or {\"mappings\": [...]}; found \(root.kindName)")
            return
        }
        let members = uniqueMembers(written, field: "")
        if let list = root["mappings"] {
            checkKeys(members, field: "", known: ["mappings", "meta"] + Self.mappingKeys, unsupported: [:])
            for member in members where Self.mappingKeys.contains(member.key) {
                warning(
                    member.value, member.key,
                    "ignored: a file with \"mappings\" is read as that list only (as WireMock reads it); move this "
                        + "mapping into the list")
            }
            guard let items = list.items else {
                if case .null = list.kind { return }
                error(list, "mappings", "expected an array of mappings; found \(list.kindName)")
                return
            }
            for (index, item) in items.enumerated() {
                if var spec = readMapping(item, field: "mappings[\(index)]", index: index) {
                    spec.isInList = true
                    specs.append(spec)
                }
            }
        } else if let spec = readMapping(root, field: "", index: 0) {
            specs.append(spec)
        }
    }

    /// The file's JSON, or `nil` (and an error) when it is empty or no JSON; `what` says what it should hold.
    mutating func parseRoot(what: String) -> JSONNode? {
        if bytes.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            report(.error, at: 0, field: nil, "the file is empty: write \(what)")
            return nil
        }
        let parser = JSONParser(bytes: bytes, options: .wireMock)
        do {
            let (value, trailing) = try parser.parseDocument()
            if let trailing {
                report(
                    .warning, at: trailing, field: nil,
                    "text after the mapping is ignored (as WireMock ignores it); remove it")
            }
            return value
        } catch {
            report(.error, at: error.offset, field: nil, "the file is not valid JSON: \(error.reason)")
            return nil
        }
    }

    // MARK: - Keys

    static let mappingKeys = [
        "id", "uuid", "name", "priority", "scenarioName", "requiredScenarioState", "newScenarioState", "metadata",
        "persistent", "insertionIndex", "request", "response", "postServeActions", "serveEventListeners",
    ]

    /// Checks an object's keys (its members as ``uniqueMembers(_:field:)`` leaves them): keys WireMock would act
    /// on that StuntDouble does not support, and unknown keys (warnings, with the closest known key; errors
    /// where WireMock's admin API refuses them).
    /// - Returns: The members by key.
    @discardableResult
    mutating func checkKeys(
        _ members: [JSONNode.Member], field: String, known: [String], unsupported: [String: String]
    ) -> [String: JSONNode] {
        var seen: [String: JSONNode] = [:]
        for member in members {
            let path = Self.join(field, member.key)
            seen[member.key] = member.value
            if let reason = unsupported[member.key] {
                if !Self.isEmpty(member.value) {
                    self.unsupported(at: member.keyOffset, field: path, reason)
                }
            } else if !known.contains(member.key) {
                var message =
                    refusesUnknownFields
                    ? "unknown field; WireMock 2.35.1 refuses it too"
                    : "unknown field; WireMock 2.35.1 refuses the file, StuntDouble ignores the field"
                if let suggestion = Self.suggestion(for: member.key, among: known + Array(unsupported.keys)) {
                    message += "; did you mean \"\(suggestion)\"?"
                }
                report(refusesUnknownFields ? .error : .warning, at: member.keyOffset, field: path, message)
            }
        }
        return seen
    }

    /// Whether a value says nothing: null, an empty array or object, or `false`.
    static func isEmpty(_ node: JSONNode) -> Bool {
        switch node.kind {
        case .null: true
        case .array(let items): items.isEmpty
        case .object(let members): members.isEmpty
        case .bool(let flag): !flag
        default: false
        }
    }

    /// The known key closest to a misspelled one, if any is close.
    static func suggestion(for key: String, among known: [String]) -> String? {
        let lowered = key.lowercased()
        let best = known.map { ($0, Similarity.of(lowered, $0.lowercased())) }.max { $0.1 < $1.1 }
        guard let best, best.1 >= 0.6 else { return nil }
        return best.0
    }

    // MARK: - Scalars

    /// A string field. Numbers and booleans are read as text, as WireMock's reader does.
    mutating func string(_ node: JSONNode, _ field: String) -> String? {
        switch node.kind {
        case .string(let text): return text
        case .number(let number): return number.text
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return nil
        default:
            error(node, field, "expected a string; found \(node.kindName)")
            return nil
        }
    }

    /// A string that must be written as one (match operands, header values), as WireMock requires.
    mutating func strictString(_ node: JSONNode, _ field: String, _ what: String) -> String? {
        if case .string(let text) = node.kind { return text }
        error(node, field, "\(what) must be a string; found \(node.kindName)")
        return nil
    }

    /// An integer field; WireMock also reads a number in a string (`"201"`).
    mutating func integer(_ node: JSONNode, _ field: String) -> Int? {
        switch node.kind {
        case .number(let number):
            if let value = Int(number.text) { return value }
            if let value = Double(number.text), value.isFinite, abs(value) < 1e15 {
                warning(
                    node, field, "\(number.text) is read as \(Int(value)), as WireMock reads it; write a whole number")
                return Int(value)
            }
            error(node, field, "expected a whole number; found \(number.text)")
            return nil
        case .string(let text):
            if let value = Int(text.trimmingCharacters(in: .whitespaces)) { return value }
            error(node, field, "expected a whole number; found \"\(text)\"")
            return nil
        case .null:
            return nil
        default:
            error(node, field, "expected a whole number; found \(node.kindName)")
            return nil
        }
    }

    /// A number field (a double).
    mutating func number(_ node: JSONNode, _ field: String) -> Double? {
        switch node.kind {
        case .number(let number):
            return Double(number.text)
        case .string(let text):
            if let value = Double(text.trimmingCharacters(in: .whitespaces)) { return value }
            error(node, field, "expected a number; found \"\(text)\"")
            return nil
        case .null:
            return nil
        default:
            error(node, field, "expected a number; found \(node.kindName)")
            return nil
        }
    }

    /// A boolean field; WireMock also reads `"true"` and `"false"`.
    mutating func bool(_ node: JSONNode, _ field: String) -> Bool? {
        switch node.kind {
        case .bool(let flag): return flag
        case .string("true"): return true
        case .string("false"): return false
        case .null: return nil
        default:
            error(node, field, "expected true or false; found \(node.kindName)")
            return nil
        }
    }

    /// An object's members as WireMock (Jackson) reads them: of a key written twice, the last value, in the
    /// first one's place; a warning names each key written again.
    mutating func uniqueMembers(_ members: [JSONNode.Member], field: String) -> [JSONNode.Member] {
        guard members.count > 1 else { return members }
        var unique: [JSONNode.Member] = []
        unique.reserveCapacity(members.count)
        // Most objects are small: a scan costs less than a dictionary.
        var places: [String: Int]? = members.count > 16 ? [:] : nil
        for member in members {
            let place = if let places { places[member.key] } else { unique.firstIndex { $0.key == member.key } }
            guard let place else {
                places?[member.key] = unique.count
                unique.append(member)
                continue
            }
            report(
                .warning, at: member.keyOffset, field: Self.join(field, member.key),
                "written twice; the last one wins (as in WireMock): remove the other")
            unique[place] = member
        }
        return unique
    }

    /// An object field's members, or `nil` (and an error) for anything else but null.
    mutating func object(_ node: JSONNode, _ field: String) -> [JSONNode.Member]? {
        if let members = node.members { return uniqueMembers(members, field: field) }
        if case .null = node.kind { return nil }
        error(node, field, "expected an object; found \(node.kindName)")
        return nil
    }

    // MARK: - A mapping

    mutating func readMapping(_ node: JSONNode, field: String, index: Int) -> MappingSpec? {
        guard let members = object(node, field.isEmpty ? "mapping" : field) else {
            if case .null = node.kind { error(node, field, "a mapping cannot be null") }
            return nil
        }
        let errorsBefore = errorCount
        unsupportedInMapping = []
        let fields = checkKeys(members, field: field, known: Self.mappingKeys, unsupported: [:])
        let position = lines.position(of: node.offset)
        var spec = MappingSpec(
            id: Self.derivedID(file: file, index: index), file: file, line: position.line, json: node)
        spec.lines = lines
        // `id` and `uuid` name the same thing; of the two, the one written last wins.
        var ids: [(id: UUID, node: JSONNode, field: String)] = []
        for member in members where member.key == "id" || member.key == "uuid" {
            let path = Self.join(field, member.key)
            // An empty id is no id, as WireMock reads it.
            guard let text = string(member.value, path), !text.isEmpty else { continue }
            if let id = UUID(uuidString: text) {
                ids.append((id, member.value, path))
            } else {
                error(member.value, path, "\"\(text)\" is not a UUID (such as 8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7)")
            }
        }
        if let last = ids.last {
            spec.id = last.id
            if Set(ids.map(\.id)).count > 1 {
                warning(last.node, last.field, "id and uuid differ; the last one written wins: make them equal")
            }
        }
        if let name = fields["name"] { spec.name = string(name, Self.join(field, "name")) }
        if let priority = fields["priority"] { spec.priority = integer(priority, Self.join(field, "priority")) }
        if let value = fields["scenarioName"] { spec.scenarioName = string(value, Self.join(field, "scenarioName")) }
        if let value = fields["requiredScenarioState"] {
            spec.requiredScenarioState = string(value, Self.join(field, "requiredScenarioState"))
        }
        if let value = fields["newScenarioState"] {
            spec.newScenarioState = string(value, Self.join(field, "newScenarioState"))
        }
        if spec.scenarioName == nil, spec.requiredScenarioState != nil || spec.newScenarioState != nil {
            warning(
                node, field.isEmpty ? nil : field,
                "requiredScenarioState and newScenarioState need a scenarioName; without one they are ignored "
                    + "(as in WireMock)")
            spec.requiredScenarioState = nil
            spec.newScenarioState = nil
        }
        if let metadata = fields["metadata"], metadata.members == nil, !Self.isEmpty(metadata) {
            error(metadata, Self.join(field, "metadata"), "expected an object; found \(metadata.kindName)")
        }
        if let request = fields["request"] {
            readRequest(request, field: Self.join(field, "request"), into: &spec)
        } else {
            warning(
                node, field.isEmpty ? nil : field,
                "no \"request\": the mapping matches every request, as in WireMock; give one (such as "
                    + "{\"method\": \"GET\", \"url\": \"/\"}) to match fewer")
        }
        if let response = fields["response"] {
            readResponse(response, field: Self.join(field, "response"), into: &spec)
        }
        for key in ["postServeActions", "serveEventListeners"] {
            guard let node = fields[key] else { continue }
            let count = spec.webhooks.count
            readServeActions(node, field: Self.join(field, key), into: &spec)
            if !sendsWebhooks, spec.webhooks.count > count {
                unsupported(
                    at: node.offset, field: Self.join(field, key),
                    "webhooks are sent by the stub server only (stuntdouble serve, HTTPStubServer.loadStubFiles), "
                        + "not in process")
            }
        }
        spec.unsupported = unsupportedInMapping
        return errorCount == errorsBefore ? spec : nil
    }

    /// An id for a mapping that has none: the same for the same file and place on every load.
    static func derivedID(file: String, index: Int) -> UUID {
        StableID.uuid(for: "\(file)#\(index)")
    }
}
