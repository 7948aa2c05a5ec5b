import Foundation

/// Making changed copies of parsed nodes, for the repairs of deviations (``DocumentRepair``).
extension DocumentNode {
    /// The node as OpenAPIKit's check reads it, where OpenAPIKit is narrower than JSON Schema (not the
    /// document's deviations): integers beyond what a `Double` holds exactly (an int64 bound) are written as the
    /// largest it does, `null` enum members are left out (OpenAPIKit wants them non-null), and boolean schemas
    /// are written as the mappings that mean the same.
    var forStructureCheck: DocumentNode {
        switch kind {
        case .scalar(let text, .integer):
            guard let value = Double(text), abs(value) > 9_007_199_254_740_991 else { return self }
            return DocumentNode(
                kind: .scalar(value < 0 ? "-9007199254740991" : "9007199254740991", .integer), file: file, line: line,
                column: column)
        case .scalar:
            return self
        case .sequence(let items):
            return withItems(items.map(\.forStructureCheck))
        case .mapping(let members):
            return withMembers(
                members.map { key, value in
                    if key == "contentEncoding", let encoding = value.text, !Self.knownEncodings.contains(encoding) {
                        // An annotation (Smithy writes "byte" for base64): OpenAPIKit reads only RFC 4648's names.
                        return (key, value.withText("base64"))
                    }
                    if key == "items" || key == "contains" || key == "not", let flag = value.bool {
                        // A boolean schema (JSON Schema's, valid in 3.1; `items: false` after `prefixItems`), which
                        // OpenAPIKit reads only as a mapping: `true` admits anything, `false` nothing.
                        return (
                            key,
                            flag ? .mapping([], at: value) : .mapping([("not", .mapping([], at: value))], at: value)
                        )
                    }
                    guard key == "enum", case .sequence(let items) = value.kind, items.contains(where: \.isNull) else {
                        return (key, value.forStructureCheck)
                    }
                    return (key, value.withItems(items.filter { !$0.isNull }.map(\.forStructureCheck)))
                })
        }
    }

    /// The `contentEncoding` values OpenAPIKit reads.
    private static let knownEncodings: Set<String> = [
        "7bit", "8bit", "binary", "quoted-printable", "base16", "base32", "base64",
    ]

    static func string(_ text: String, at node: DocumentNode) -> DocumentNode {
        DocumentNode(kind: .scalar(text, .string), file: node.file, line: node.line, column: node.column)
    }

    static func bool(_ flag: Bool, at node: DocumentNode) -> DocumentNode {
        DocumentNode(
            kind: .scalar(flag ? "true" : "false", .bool), file: node.file, line: node.line, column: node.column)
    }

    static func integer(_ value: Int, at node: DocumentNode) -> DocumentNode {
        DocumentNode(kind: .scalar(String(value), .integer), file: node.file, line: node.line, column: node.column)
    }

    static func mapping(_ members: [(key: String, value: DocumentNode)], at node: DocumentNode) -> DocumentNode {
        DocumentNode(kind: .mapping(members), file: node.file, line: node.line, column: node.column)
    }

    static func sequence(_ items: [DocumentNode], at node: DocumentNode) -> DocumentNode {
        DocumentNode(kind: .sequence(items), file: node.file, line: node.line, column: node.column)
    }

    var isNull: Bool {
        if case .scalar(_, .null) = kind { true } else { false }
    }

    var isContainer: Bool {
        if case .scalar = kind { false } else { true }
    }

    /// The scalar as a string of this text, where it was.
    func withText(_ text: String) -> DocumentNode {
        DocumentNode(kind: .scalar(text, .string), file: file, line: line, column: column)
    }

    func withMembers(_ members: [(key: String, value: DocumentNode)]) -> DocumentNode {
        DocumentNode(kind: .mapping(members), file: file, line: line, column: column)
    }

    func withItems(_ items: [DocumentNode]) -> DocumentNode {
        DocumentNode(kind: .sequence(items), file: file, line: line, column: column)
    }

    func appending(_ item: DocumentNode) -> DocumentNode {
        withItems(items + [item])
    }

    /// The mapping with a member set (in its place, or added last).
    func setting(_ key: String, to value: DocumentNode) -> DocumentNode {
        var members = self.members
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append((key, value))
        }
        return withMembers(members)
    }

    func removing(_ key: String) -> DocumentNode {
        withMembers(members.filter { $0.key != key })
    }

}
