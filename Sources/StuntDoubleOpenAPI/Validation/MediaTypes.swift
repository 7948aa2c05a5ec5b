import Foundation
import StuntDouble

/// Media type names: matching a `Content-Type` or an `Accept` to the ones a document lists.
enum MediaTypes {
    /// `application/json; charset=utf-8` -> `application/json`.
    static func essence(_ text: String) -> String {
        // By bytes: Foundation's trimming cost more than the rest of a small body's check.
        let bytes = text.utf8
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        var part = bytes[..<end]
        while let first = part.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            part = part.dropFirst()
        }
        while let last = part.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { part = part.dropLast() }
        let name = String(Substring(part))
        return name.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
            ? name.lowercased() : name
    }

    /// `application/json` and its kin (`+json`), and the wildcards, whose bodies are read as JSON.
    static func isJSON(_ name: String) -> Bool {
        name == "application/json" || name.hasSuffix("+json") || name == "*/*" || name == "application/*"
    }

    /// YAML's names (`application/yaml` and the older `application/x-yaml`, `text/yaml`, `text/x-yaml`,
    /// `text/yml`) and its kin (`+yaml`, as Kubernetes' `application/apply-patch+yaml`), whose bodies are read as
    /// YAML.
    static func isYAML(_ name: String) -> Bool {
        switch name {
        case "application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml", "text/yml", "text/vnd.yaml",
            "application/yml":
            true
        default: name.hasSuffix("+yaml")
        }
    }

    /// Media types whose bodies are parsed into a value (JSON, YAML, forms): an empty body is none of their
    /// values, where an empty file or text is.
    static func isStructured(_ name: String) -> Bool {
        isJSON(name) || isYAML(name) || name == "application/x-www-form-urlencoded"
    }

    /// The document's media type for a request's `Content-Type`: exact, then `type/*`, then `*/*`.
    static func best(for contentType: String, among contents: [ContractOperation.MediaType])
        -> ContractOperation.MediaType?
    {
        let name = essence(contentType)
        if name.isEmpty { return contents.count == 1 && contents[0].name == "*/*" ? contents[0] : nil }
        if let exact = contents.first(where: { essence($0.name) == name }) { return exact }
        let type = name.split(separator: "/").first.map(String.init) ?? ""
        return contents.first { $0.name == "\(type)/*" } ?? contents.first { $0.name == "*/*" }
    }

    /// A body read as its media type says, for its schema to check.
    enum DecodedBody {
        /// The body as a value: JSON, YAML, a form's fields (`application/x-www-form-urlencoded`), or text.
        case value(SchemaValue)
        /// The body is not the JSON or YAML its media type promises: the violation says where it breaks.
        case malformed(OpenAPIViolation)
        /// A media type whose bytes are not read (multipart, binary ...): only its content type is checked.
        case unread
    }

    /// Reads a request's or a response's body as its media type says.
    /// - Parameters:
    ///   - body: The bytes.
    ///   - name: The media type's essence (`application/json`).
    ///   - media: The document's media type it matched, whose location a violation names.
    ///   - table: The document's schemas, for a form's fields.
    /// - Returns: The value for the schema to check, the violation of a body that is not the JSON or YAML it says
    ///   it is, or `.unread`.
    static func decode(_ body: Data, as name: String, _ media: ContractOperation.MediaType, table: SchemaTable)
        -> DecodedBody
    {
        // A body that a wildcard (`*/*`, `application/*`) took in a media type other than JSON or YAML is written
        // in a way the document does not say (an object as XML, as text, as a form): only its content type is
        // checked. (`text/*` takes text, whose value is the text.)
        if media.name.contains("*"), media.name != "text/*", !isJSON(name), !isYAML(name) { return .unread }
        if isJSON(name) {
            do {
                return .value(try SchemaValue.parse(body))
            } catch {
                return .malformed(
                    OpenAPIViolation(
                        rule: "json", location: "body",
                        message: "not JSON: \(error.reason) at \(LineTable(Array(body)).position(of: error.offset))",
                        documentLocation: media.location))
            }
        }
        if isYAML(name) {
            do {
                return .value(try DocumentSet.parseYAML(Array(body), file: 0, name: "body").value)
            } catch {
                return .malformed(
                    OpenAPIViolation(
                        // The parser's message starts with the name it was given: "body: not valid YAML: ...".
                        rule: "yaml", location: "body", message: String(error.message.trimmingPrefix("body: ")),
                        documentLocation: media.location))
            }
        }
        if name == "application/x-www-form-urlencoded", let schema = media.schema {
            let text = String(decoding: body, as: UTF8.self)
            let pairs = PercentEncoding.queryPairs(text[...])
            return .value(ParameterDecoder(table: table).formObject(pairs, schema: schema))
        }
        if name.hasPrefix("text/") { return .value(.string(String(decoding: body, as: UTF8.self))) }
        return .unread
    }
}
