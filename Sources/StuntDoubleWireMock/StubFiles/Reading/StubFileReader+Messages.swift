import Foundation
import StuntDouble

/// Message stub mappings (WireMock 4's WebSocket stubs, `message-mappings/*.json`): one mapping, or
/// `{"messageMappings": [...]}`, each with a `trigger` and `actions`. StuntDouble adds a `connect` trigger, a
/// `close` action and `delayMilliseconds` on actions; every error is at its file, line and column.
extension StubFileReader {
    static let messageMappingKeys = [
        "id", "uuid", "name", "priority", "trigger", "actions", "metadata", "$schema",
        "insertionIndex",
    ]

    /// Reads the file as message mappings.
    mutating func readMessageFile() {
        guard let root = parseRoot(what: "one message mapping, or {\"messageMappings\": [...]}") else { return }
        guard let written = root.members else {
            error(
                root, nil,
                "a message mapping file holds one mapping object, or {\"messageMappings\": [...]}; found "
                    + root.kindName)
            return
        }
        let members = uniqueMembers(written, field: "")
        guard let list = root["messageMappings"] else {
            if let spec = readMessageMapping(root, field: "", index: 0) { messageSpecs.append(spec) }
            return
        }
        checkKeys(members, field: "", known: ["messageMappings", "meta"], unsupported: [:])
        guard let items = list.items else {
            error(list, "messageMappings", "expected an array of message mappings; found \(list.kindName)")
            return
        }
        for (index, item) in items.enumerated() {
            if var spec = readMessageMapping(item, field: "messageMappings[\(index)]", index: index) {
                spec.isInList = true
                messageSpecs.append(spec)
            }
        }
    }

    mutating func readMessageMapping(_ node: JSONNode, field: String, index: Int) -> MessageMappingSpec? {
        guard let members = object(node, field.isEmpty ? "mapping" : field) else {
            if case .null = node.kind { error(node, field, "a message mapping cannot be null") }
            return nil
        }
        let errorsBefore = errorCount
        let fields = checkKeys(members, field: field, known: Self.messageMappingKeys, unsupported: [:])
        var spec = MessageMappingSpec(
            id: Self.derivedID(file: file, index: index), file: file, line: lines.position(of: node.offset).line,
            json: node)
        spec.environment = templating.environment
        for key in ["uuid", "id"] {
            guard let value = fields[key], let text = string(value, Self.join(field, key)), !text.isEmpty else {
                continue
            }
            if let id = UUID(uuidString: text) {
                spec.id = id
            } else {
                error(
                    value, Self.join(field, key),
                    "\"\(text)\" is not a UUID (such as 8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7)")
            }
        }
        if let name = fields["name"] { spec.name = string(name, Self.join(field, "name")) }
        if let priority = fields["priority"] { spec.priority = integer(priority, Self.join(field, "priority")) }
        if let metadata = fields["metadata"], !Self.isNull(metadata) {
            if metadata.members == nil {
                error(metadata, Self.join(field, "metadata"), "expected an object; found \(metadata.kindName)")
            }
            spec.metadata = metadata
        }
        if let trigger = fields["trigger"], !Self.isNull(trigger) {
            readTrigger(trigger, field: Self.join(field, "trigger"), into: &spec)
        }
        if let actions = fields["actions"], !Self.isNull(actions) {
            let path = Self.join(field, "actions")
            if let items = actions.items {
                for (index, item) in items.enumerated() {
                    if let action = readMessageAction(item, field: "\(path)[\(index)]") { spec.actions.append(action) }
                }
            } else {
                error(actions, path, "expected an array of actions, such as [{\"type\": \"send\", ...}]")
            }
        }
        let hasChannel =
            switch spec.trigger {
            case .message, .connect: true
            case .request, .stub: false
            }
        for (offset, action) in spec.actions.enumerated() where !hasChannel {
            if case .send(_, .originating, _, _) = action {
                warning(
                    fields["actions"]?.items?[offset] ?? node, Self.join(field, "actions[\(offset)]"),
                    "an HTTP trigger has no originating channel, so this send does nothing (as in WireMock): give a "
                        + "channelTarget of type request-initiated")
            } else if case .close = action {
                warning(
                    fields["actions"]?.items?[offset] ?? node, Self.join(field, "actions[\(offset)]"),
                    "an HTTP trigger has no originating channel to close, so this close does nothing")
            }
        }
        return errorCount == errorsBefore ? spec : nil
    }

    // MARK: - Triggers

    private mutating func readTrigger(_ node: JSONNode, field: String, into spec: inout MessageMappingSpec) {
        guard let members = object(node, field) else { return }
        let type = members.first { $0.key == "type" }.flatMap { string($0.value, Self.join(field, "type")) }
        switch type ?? "message" {
        case "message", "connect":
            let fields = checkKeys(members, field: field, known: ["type", "channel", "message"], unsupported: [:])
            var channel = fields["channel"].flatMap { readChannelPattern($0, field: Self.join(field, "channel")) }
            var body: ValuePattern?
            if let message = fields["message"], let parts = object(message, Self.join(field, "message")) {
                let path = Self.join(field, "message")
                let messageFields = checkKeys(parts, field: path, known: ["body", "channel"], unsupported: [:])
                if let node = messageFields["body"], !Self.isNull(node) {
                    body = readPattern(node, field: Self.join(path, "body"))
                }
                if let node = messageFields["channel"], !Self.isNull(node) {
                    let extra = readRequestPattern(node, field: Self.join(path, "channel"))
                    channel = channel.map { $0.merged(with: extra) } ?? extra
                }
            }
            if type == "connect" {
                if body != nil {
                    error(node, field, "a connect trigger has no message: remove \"message\", or use type \"message\"")
                }
                spec.trigger = .connect(channel: channel)
            } else {
                spec.trigger = .message(channel: channel, body: body)
            }
        case "http-request":
            let fields = checkKeys(members, field: field, known: ["type", "requestPattern"], unsupported: [:])
            guard let patternNode = fields["requestPattern"] else {
                error(node, field, "requestPattern is required: the HTTP requests that set the stub off")
                return
            }
            if let pattern = readRequestPattern(patternNode, field: Self.join(field, "requestPattern")) {
                spec.trigger = .request(pattern)
            }
        case "http-stub":
            let fields = checkKeys(members, field: field, known: ["type", "stubId"], unsupported: [:])
            guard let idNode = fields["stubId"], let text = string(idNode, Self.join(field, "stubId")) else {
                error(node, field, "stubId is required: the id of the HTTP mapping whose answers set the stub off")
                return
            }
            guard let id = UUID(uuidString: text) else {
                error(idNode, Self.join(field, "stubId"), "\"\(text)\" is not a UUID")
                return
            }
            spec.trigger = .stub(id)
        default:
            let typeNode = members.first { $0.key == "type" }?.value ?? node
            error(
                typeNode, Self.join(field, "type"),
                "unknown trigger type \"\(type ?? "")\": use message, http-request, http-stub, or connect (StuntDouble's)"
            )
        }
    }

    /// A channel pattern: `{"type": "websocket", "initiatingRequestPattern": {...}}`.
    private mutating func readChannelPattern(_ node: JSONNode, field: String) -> MessageMappingSpec.ChannelPattern? {
        guard let members = object(node, field) else { return nil }
        let fields = checkKeys(
            members, field: field, known: ["type", "initiatingRequestPattern"],
            unsupported: [
                "channelProvider": "fixed channels (WireMock's channel providers) are not supported: StuntDouble's "
                    + "channels are WebSockets",
                "channelName": "fixed channels (WireMock's channel providers) are not supported",
            ])
        if let typeNode = fields["type"], let type = string(typeNode, Self.join(field, "type")),
            type.lowercased() != "websocket"
        {
            error(typeNode, Self.join(field, "type"), "\"\(type)\" channels are not supported: use \"websocket\"")
            return nil
        }
        guard let pattern = fields["initiatingRequestPattern"], !Self.isNull(pattern) else {
            return MessageMappingSpec.ChannelPattern(method: nil, matchers: [])
        }
        return readRequestPattern(pattern, field: Self.join(field, "initiatingRequestPattern"))
    }

    private mutating func readRequestPattern(_ node: JSONNode, field: String) -> MessageMappingSpec.ChannelPattern? {
        let before = errorCount
        var spec = MappingSpec(id: UUID(), file: file, line: 1, json: node)
        readRequest(node, field: field, into: &spec)
        guard errorCount == before else { return nil }
        return MessageMappingSpec.ChannelPattern(method: spec.method, matchers: spec.matchers)
    }

    // MARK: - Actions

    private mutating func readMessageAction(_ node: JSONNode, field: String) -> MessageMappingSpec.Action? {
        guard let members = object(node, field) else {
            if case .null = node.kind { error(node, field, "an action cannot be null") }
            return nil
        }
        guard let typeNode = members.first(where: { $0.key == "type" })?.value,
            let type = string(typeNode, Self.join(field, "type"))
        else {
            error(node, field, "type is required: \"send\", or \"close\" (StuntDouble's)")
            return nil
        }
        switch type {
        case "send":
            let fields = checkKeys(
                members, field: field,
                known: [
                    "type", "message", "channelTarget", "transformers", "transformerParameters", "delayMilliseconds",
                ],
                unsupported: [:])
            guard let message = fields["message"], let parts = object(message, Self.join(field, "message")) else {
                error(
                    node, field,
                    "message is required: {\"body\": \"text\"}, {\"body\": {\"data\": ...}} or "
                        + "{\"body\": {\"base64Data\": ...}}")
                return nil
            }
            let path = Self.join(field, "message")
            let messageFields = checkKeys(parts, field: path, known: ["body"], unsupported: [:])
            guard let bodyNode = messageFields["body"],
                let body = readMessageBody(bodyNode, field: Self.join(path, "body"))
            else {
                if messageFields["body"] == nil { error(message, path, "body is required: the message to send") }
                return nil
            }
            var target = MessageMappingSpec.Target.originating
            if let targetNode = fields["channelTarget"], !Self.isNull(targetNode) {
                guard let read = readTarget(targetNode, field: Self.join(field, "channelTarget")) else { return nil }
                target = read
            }
            if let names = fields["transformers"]?.items {
                for (index, name) in names.enumerated() {
                    guard let text = string(name, Self.join(field, "transformers[\(index)]")),
                        !["message-template", "response-template"].contains(text)
                    else { continue }
                    error(
                        name, Self.join(field, "transformers[\(index)]"),
                        "the transformer \"\(text)\" is not supported: message bodies are always templates, as in "
                            + "WireMock; other transformers are extensions StuntDouble does not have")
                }
            }
            let parameters =
                fields["transformerParameters"]?.members.map { members in
                    members.map { (key: $0.key, value: TemplateValue($0.value)) }
                } ?? []
            guard let delay = readDelay(fields, field: field) else { return nil }
            return .send(body, to: target, delay: delay, parameters: parameters)
        case "close":
            let fields = checkKeys(
                members, field: field, known: ["type", "code", "reason", "delayMilliseconds"], unsupported: [:])
            var code = 1000
            if let node = fields["code"], let value = integer(node, Self.join(field, "code")) {
                guard
                    value == 1000 || (1003...1014).contains(value) && value != 1004 && value != 1005 && value != 1006
                        || (3000...4999).contains(value)
                else {
                    error(
                        node, Self.join(field, "code"),
                        "\(value) is no close code a server may send: use 1000 (normal), "
                            + "1001, 1003, 1007-1014, or 3000-4999 (your application's)")
                    return nil
                }
                code = value
            }
            let reason = fields["reason"].flatMap { string($0, Self.join(field, "reason")) } ?? ""
            if reason.utf8.count > 123, let node = fields["reason"] {
                error(node, Self.join(field, "reason"), "a close reason is at most 123 bytes of UTF-8 (RFC 6455)")
                return nil
            }
            guard let delay = readDelay(fields, field: field) else { return nil }
            return .close(code: code, reason: reason, delay: delay)
        default:
            error(
                typeNode, Self.join(field, "type"),
                "unknown action type \"\(type)\": use send, or close (StuntDouble's)")
            return nil
        }
    }

    private mutating func readDelay(_ fields: [String: JSONNode], field: String) -> TimeInterval? {
        guard let node = fields["delayMilliseconds"], !Self.isNull(node) else { return 0 }
        guard let value = number(node, Self.join(field, "delayMilliseconds")) else { return nil }
        guard value >= 0, value <= 3_600_000 else {
            error(node, Self.join(field, "delayMilliseconds"), "expected milliseconds from 0 to 3,600,000")
            return nil
        }
        return value / 1000
    }

    private mutating func readTarget(_ node: JSONNode, field: String) -> MessageMappingSpec.Target? {
        guard let members = object(node, field) else { return nil }
        let type = members.first { $0.key == "type" }.flatMap { string($0.value, Self.join(field, "type")) }
        switch type ?? "originating" {
        case "originating":
            checkKeys(members, field: field, known: ["type"], unsupported: [:])
            return .originating
        case "request-initiated":
            let fields = checkKeys(
                members, field: field, known: ["type", "channelType", "requestPattern"], unsupported: [:])
            if let typeNode = fields["channelType"],
                let channelType = string(typeNode, Self.join(field, "channelType")),
                channelType.lowercased() != "websocket"
            {
                error(
                    typeNode, Self.join(field, "channelType"),
                    "\"\(channelType)\" channels are not supported: use websocket")
                return nil
            }
            guard let pattern = fields["requestPattern"], !Self.isNull(pattern) else {
                return .channels(MessageMappingSpec.ChannelPattern(method: nil, matchers: []))
            }
            return readRequestPattern(pattern, field: Self.join(field, "requestPattern")).map { .channels($0) }
        default:
            error(
                node, Self.join(field, "type"),
                "the channel target \"\(type ?? "")\" is not supported: use originating or request-initiated")
            return nil
        }
    }

    /// A message body (WireMock's entity definition): `"text"`, `{"data": text or JSON}`, `{"base64Data": ...}`
    /// or `{"filePath": ...}` (under `__files/`), with `format` (`binary` for a binary frame).
    private mutating func readMessageBody(_ node: JSONNode, field: String) -> MessageMappingSpec.Body? {
        if case .string(let text) = node.kind { return template(text, node: node, field: field) }
        guard let members = object(node, field) else { return nil }
        let fields = checkKeys(
            members, field: field,
            known: ["data", "base64Data", "filePath", "format", "encoding", "charset", "compression"],
            unsupported: [
                "dataStore": "data stores (WireMock's blob and object stores) are not supported: give data, "
                    + "base64Data or filePath",
                "dataRef": "data stores are not supported: give data, base64Data or filePath",
            ])
        let sources = ["data", "base64Data", "filePath"].filter { fields[$0] != nil }
        guard sources.count <= 1 else {
            error(node, field, "give one of \(sources.joined(separator: ", ")), not several")
            return nil
        }
        let formatNode = fields["format"] ?? fields["encoding"]
        let format = formatNode.flatMap { string($0, Self.join(field, "format")) }?.lowercased()
        if let format, !["text", "json", "html", "xml", "yaml", "csv", "binary"].contains(format) {
            error(formatNode!, Self.join(field, "format"), "unknown format \"\(format)\": use text, json or binary")
            return nil
        }
        if let compression = fields["compression"].flatMap({ string($0, Self.join(field, "compression")) }),
            compression.lowercased() != "none"
        {
            error(
                fields["compression"]!, Self.join(field, "compression"), "compressed message bodies are not supported")
            return nil
        }
        if let data = fields["data"] {
            if case .string(let text) = data.kind {
                if format == "binary" {
                    warning(
                        data, Self.join(field, "data"),
                        "sent as a binary frame of this text's own bytes (as WireMock sends it); for bytes written in "
                            + "base64, use base64Data")
                    return .binary(Data(text.utf8))
                }
                return template(text, node: data, field: Self.join(field, "data"))
            }
            return template(MessageMappingSpec.jacksonPretty(data), node: data, field: Self.join(field, "data"))
        }
        if let base64 = fields["base64Data"] {
            guard let text = strictString(base64, Self.join(field, "base64Data"), "base64Data") else { return nil }
            guard let bytes = Data(base64Encoded: text) else {
                error(base64, Self.join(field, "base64Data"), "not valid base64")
                return nil
            }
            return .binary(bytes)
        }
        if let path = fields["filePath"] {
            guard let name = strictString(path, Self.join(field, "filePath"), "filePath") else { return nil }
            switch Self.readBodyFile(name, in: filesDirectory) {
            case .success(let bytes):
                return format == "binary" ? .binary(bytes) : .text(String(decoding: bytes, as: UTF8.self))
            case .failure(let problem):
                error(
                    path, Self.join(field, "filePath"),
                    problem.message.replacingOccurrences(of: "bodyFileName", with: "filePath"))
                return nil
            }
        }
        error(node, field, "give the message: data, base64Data or filePath")
        return nil
    }

    private mutating func template(_ text: String, node: JSONNode, field: String) -> MessageMappingSpec.Body? {
        guard text.contains("{{") else { return .text(text) }
        guard let compiled = compile(text, in: node, field: field, kind: "message template") else { return nil }
        return .template(compiled)
    }
}
