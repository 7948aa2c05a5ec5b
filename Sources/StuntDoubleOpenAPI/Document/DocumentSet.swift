import Foundation
import StuntDouble
import Yams

/// The files of one OpenAPI document: the main file and every local file its `$ref`s name, read once each,
/// with the resolution of references between them.
final class DocumentSet {
    struct File {
        let url: URL
        /// As shown in messages: relative to the main file's folder.
        let displayName: String
        let root: DocumentNode
    }

    private(set) var files: [File] = []
    private var indexByPath: [String: Int] = [:]
    private let baseFolder: URL
    /// Whether files read from now on have their deviations from the specification repaired
    /// (``DocumentRepair``), and as which version (`true`: 3.0); `nil`: read as written.
    var repairsAsVersion30: Bool?
    /// The deviations repaired in the files read so far (the main file's are the contract's to add).
    private(set) var deviations: [OpenAPIDeviation] = []

    init(mainFile url: URL, displayName: String) throws(OpenAPIContractError) {
        baseFolder = url.deletingLastPathComponent().standardizedFileURL
        _ = try load(url.standardizedFileURL, displayName: displayName)
    }

    /// Makes a set from text, for documents that are not files (tests, generated documents).
    init(text: String, name: String, folder: URL) throws(OpenAPIContractError) {
        baseFolder = folder.standardizedFileURL
        mainIsText = true
        let root = try Self.parse(Array(text.utf8), file: 0, name: name)
        files.append(File(url: folder.appendingPathComponent(name), displayName: name, root: root))
        indexByPath[folder.appendingPathComponent(name).standardizedFileURL.path] = 0
    }

    var main: DocumentNode { files[0].root }
    /// Whether the main document was given as text rather than read from a file.
    private(set) var mainIsText = false

    /// The files read from disk so far: the main file (unless it was text), then those `$ref`s named.
    var filesOnDisk: [URL] { files.dropFirst(mainIsText ? 1 : 0).map(\.url) }

    func location(of node: DocumentNode) -> OpenAPISourceLocation {
        OpenAPISourceLocation(file: files[node.file].displayName, line: node.line, column: node.column)
    }

    private func load(_ url: URL, displayName: String) throws(OpenAPIContractError) -> Int {
        if let index = indexByPath[url.path] { return index }
        let data: Data
        guard let contents = FileManager.default.contents(atPath: url.path) else {
            let reason = FileManager.default.fileExists(atPath: url.path) ? "it cannot be read" : "no such file"
            throw OpenAPIContractError(
                "cannot read \(url.path): \(reason). Give the path of an OpenAPI document (JSON or YAML), or of a "
                    + "file one of its $refs names.")
        }
        data = contents
        let index = files.count
        let root = try Self.parse(Array(data), file: index, name: displayName)
        files.append(File(url: url, displayName: displayName, root: root))
        indexByPath[url.path] = index
        if let repairsAsVersion30 {
            var repair = DocumentRepair(documents: self, isVersion30: repairsAsVersion30)
            files[index] = File(url: url, displayName: displayName, root: repair.repairFile(root))
            deviations += repair.deviations
        }
        return index
    }

    /// Puts a repaired main file in place (what `$ref`s resolved so far is forgotten: it may be of the old one).
    func replaceMain(_ root: DocumentNode) {
        files[0] = File(url: files[0].url, displayName: files[0].displayName, root: root)
        resolved = [:]
    }

    /// Resolves a `$ref` written in a file: `#/components/schemas/Pet`, `pet.yaml`, `common.yaml#/Pet`.
    /// - Returns: The node referred to and its own file's number (a node's `file` already says so).
    func resolve(_ reference: String, from file: Int, at location: DocumentNode) throws(OpenAPIContractError)
        -> DocumentNode
    {
        // The same `$ref` is written many times (every operation naming its schema): walked once per file.
        let key = ResolvedKey(file: file, reference: reference)
        if let known = resolved[key] { return known }
        let node = try walk(reference, from: file, at: location)
        resolved[key] = node
        return node
    }

    private struct ResolvedKey: Hashable {
        let file: Int
        let reference: String
    }

    private var resolved: [ResolvedKey: DocumentNode] = [:]

    private func walk(_ reference: String, from file: Int, at location: DocumentNode) throws(OpenAPIContractError)
        -> DocumentNode
    {
        let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first.map(String.init) ?? ""
        let fragment = parts.count > 1 ? String(parts[1]) : ""
        var target = file
        if !path.isEmpty {
            if path.contains("://") {
                throw OpenAPIContractError(
                    "\(self.location(of: location)): $ref \"\(reference)\" names a remote document: only local "
                        + "files are read (tests must not need the network). Download it next to the document and "
                        + "refer to it by a relative path.")
            }
            let decoded = path.removingPercentEncoding ?? path
            let fileURL = files[file].url.deletingLastPathComponent().appendingPathComponent(decoded)
                .standardizedFileURL
            let display =
                fileURL.path.hasPrefix(baseFolder.path + "/")
                ? String(fileURL.path.dropFirst(baseFolder.path.count + 1)) : fileURL.path
            target = try load(fileURL, displayName: display)
        }
        var node = files[target].root
        guard !fragment.isEmpty, fragment != "/" else { return node }
        guard fragment.hasPrefix("/") else {
            throw OpenAPIContractError(
                "\(self.location(of: location)): $ref \"\(reference)\": the part after # must be a JSON pointer "
                    + "(#/components/schemas/Name); anchors are not supported.")
        }
        for token in fragment.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let key = (String(token).removingPercentEncoding ?? String(token))
                .replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            var next: DocumentNode?
            if case .sequence(let items) = node.kind, let index = Int(key), items.indices.contains(index) {
                next = items[index]
            } else {
                next = node[key]
            }
            if next == nil, repairsAsVersion30 != nil, let inner = node["$ref"]?.string, node.members.count == 1 {
                // A pointer that passes through a $ref (into what it names), as json-schema-ref-parser follows it.
                let followed = try dereference(node)
                deviations.append(
                    OpenAPIDeviation(
                        location: self.location(of: location),
                        message: "$ref \"\(reference)\" passes through another $ref (\(inner)), which a JSON pointer "
                            + "does not follow: followed"))
                node = followed
                next =
                    node[key]
                    ?? Int(key).flatMap { index in node.items.indices.contains(index) ? node.items[index] : nil }
            }
            guard let next else {
                throw OpenAPIContractError(
                    "\(self.location(of: location)): $ref \"\(reference)\" points at nothing: \(files[target].displayName) "
                        + "has no \"\(key)\" there. Check the name's spelling and the path of the pointer.")
            }
            node = next
        }
        return node
    }

    /// Follows `$ref`s (a chain of them) to the node they end at.
    func dereference(_ node: DocumentNode) throws(OpenAPIContractError) -> DocumentNode {
        var current = node
        var seen = 0
        while let reference = current["$ref"]?.string {
            seen += 1
            guard seen < 64 else {
                throw OpenAPIContractError("\(location(of: node)): $ref \"\(reference)\" refers to itself in a loop.")
            }
            current = try resolve(reference, from: current.file, at: current)
        }
        return current
    }

    // MARK: - Parsing

    static func parse(_ bytes: [UInt8], file: Int, name: String) throws(OpenAPIContractError) -> DocumentNode {
        // A byte-order mark (Windows tools write one) is no part of the text: JSON and YAML both let it go.
        let bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        let firstByte = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 && $0 != 0xEF }
        if firstByte == UInt8(ascii: "{") || firstByte == UInt8(ascii: "[") {
            let lines = LineTable(bytes)
            let node: JSONNode
            do {
                node = try JSONNode.parse(bytes)
            } catch {
                let position = lines.position(of: error.offset)
                throw OpenAPIContractError("\(name):\(position): not valid JSON: \(error.reason).")
            }
            return try convert(node, file: file, name: name, lines: lines, depth: 0)
        }
        return try parseYAML(bytes, file: file, name: name)
    }

    /// YAML text (a flow mapping `{a: 1}` too, which is YAML and not JSON), by YAML 1.2's core types.
    static func parseYAML(_ bytes: [UInt8], file: Int, name: String) throws(OpenAPIContractError) -> DocumentNode {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw OpenAPIContractError("\(name): not UTF-8 text. JSON and YAML are read as UTF-8.")
        }
        do {
            guard let root = try Yams.compose(yaml: text, resolver) else {
                throw OpenAPIContractError("\(name): the file is empty.")
            }
            var budget = maximumNodes
            return try convert(root, file: file, name: name, budget: &budget, depth: 0)
        } catch let error as OpenAPIContractError {
            throw error
        } catch {
            throw OpenAPIContractError("\(name): not valid YAML: \(error)")
        }
    }

    /// YAML 1.2's core types: `yes`, `no`, `on` and `off` stay strings (YAML 1.1 made them booleans, which
    /// turns a country code `NO` in an enum into `false`); timestamps stay strings.
    private static let resolver: Resolver = {
        let core = Resolver.default.removing(.timestamp).removing(.merge).removing(.value)
        return (try? core.replacing(.bool, with: "^(?:true|True|TRUE|false|False|FALSE)$")) ?? core
    }()

    private static func convert(_ node: JSONNode, file: Int, name: String, lines: LineTable, depth: Int)
        throws(OpenAPIContractError) -> DocumentNode
    {
        let position = lines.position(of: node.offset)
        guard depth < maximumDepth else {
            throw OpenAPIContractError(
                "\(name):\(position): values nested more than \(maximumDepth) deep; no OpenAPI document needs that many."
            )
        }
        let kind: DocumentNode.Kind
        switch node.kind {
        case .null: kind = .scalar("null", .null)
        case .bool(let value): kind = .scalar(value ? "true" : "false", .bool)
        case .number(let number):
            kind = .scalar(number.text, number.text.contains(where: { ".eE".contains($0) }) ? .number : .integer)
        case .string(let string): kind = .scalar(string, .string)
        case .array(let items):
            kind = .sequence(
                try items.map { item throws(OpenAPIContractError) in
                    try convert(item, file: file, name: name, lines: lines, depth: depth + 1)
                })
        case .object(let members):
            kind = .mapping(
                try members.map { member throws(OpenAPIContractError) in
                    (member.key, try convert(member.value, file: file, name: name, lines: lines, depth: depth + 1))
                })
        }
        return DocumentNode(kind: kind, file: file, line: position.line, column: position.column)
    }

    /// The most values a YAML file may expand to: aliases (`*name`) repeat what they name, and a few lines of
    /// them nested can stand for billions of values.
    static let maximumNodes = 2_000_000

    /// The deepest nesting read. Documents are read on a thread of their own with a large stack (see
    /// `OpenAPIContract.onLargeStack`): the YAML parser (which stops at 1,000 levels itself) and the compiler
    /// recurse once per level.
    static let maximumDepth = 512

    private static func convert(_ node: Yams.Node, file: Int, name: String, budget: inout Int, depth: Int)
        throws(OpenAPIContractError) -> DocumentNode
    {
        guard depth < maximumDepth else {
            throw OpenAPIContractError(
                "\(name):\(node.mark?.description ?? "1:1"): values nested more than \(maximumDepth) deep; no OpenAPI document needs "
                    + "that many.")
        }
        budget -= 1
        guard budget >= 0 else {
            throw OpenAPIContractError(
                "\(name): the document expands to more than \(maximumNodes) values (YAML aliases repeating aliases?); "
                    + "write the repeated parts once, in components, and refer to them with $ref.")
        }
        let line = node.mark?.line ?? 0
        let column = node.mark?.column ?? 0
        let kind: DocumentNode.Kind
        switch node {
        case .scalar(let scalar):
            let type: DocumentNode.ScalarType
            if scalar.style != .plain {
                type = .string
            } else {
                switch node.tag.rawValue {
                case Tag.Name.bool.rawValue: type = .bool
                case Tag.Name.int.rawValue: type = .integer
                case Tag.Name.float.rawValue: type = .number
                case Tag.Name.null.rawValue: type = .null
                default: type = .string
                }
            }
            kind = .scalar(scalar.string, type)
        case .mapping(let mapping):
            var members: [(key: String, value: DocumentNode)] = []
            members.reserveCapacity(mapping.count)
            for (key, value) in mapping {
                members.append(
                    (key.string ?? "", try convert(value, file: file, name: name, budget: &budget, depth: depth + 1)))
            }
            kind = .mapping(members)
        case .sequence(let sequence):
            var items: [DocumentNode] = []
            for item in sequence {
                items.append(try convert(item, file: file, name: name, budget: &budget, depth: depth + 1))
            }
            kind = .sequence(items)
        case .alias:
            // Yams puts what an alias names in its place; one left is an alias of no anchor.
            throw OpenAPIContractError("\(name):\(line):\(column): a YAML alias (*name) that names no anchor.")
        }
        return DocumentNode(kind: kind, file: file, line: line, column: column)
    }
}
