import GraphQL
import StuntDouble

/// An operation of a GraphQL document in a canonical form: what a query means, whatever its layout.
///
/// Two operations are equal when they ask for the same thing: the same operation type, variables (in any
/// order, with their types and defaults), directives and selections, whatever the whitespace, commas,
/// comments, the order of fields, arguments, variables and input-object fields, and whether a fragment is
/// spread (`...HeroFields` with `fragment HeroFields on Character { name }`) or written inline
/// (`... on Character { name }`). A field asked for twice is asked for once (GraphQL merges them), and an inline
/// fragment with neither a type condition nor a directive is its selections. Aliases count: they change the
/// answer's shape. So do arguments' values, the operation type, and `__typename`.
public struct GraphQLOperation: Hashable, Sendable, CustomStringConvertible {
    /// `query`, `mutation` or `subscription`.
    public let type: String
    /// The operation's name in the document, or `nil` for an anonymous operation.
    public let name: String?
    let variables: [Variable]
    let directives: [Directive]
    let selections: [Selection]

    /// The operation as one line of GraphQL, in canonical order:
    /// `query Hero($id: ID!) { hero(id: $id) { friends { name } name } }`.
    public var description: String {
        var text = type
        if let name { text += " " + name }
        if !variables.isEmpty {
            text += "(" + variables.map(\.description).joined(separator: ", ") + ")"
        }
        for directive in directives { text += " " + directive.description }
        return text + " " + Selection.text(of: selections)
    }

    /// Whether this operation, as a stub wrote it, asks for what `request` asks for: the same operation,
    /// except that an anonymous one here accepts any name.
    func accepts(_ request: GraphQLOperation) -> Bool {
        type == request.type && (name == nil || name == request.name) && variables == request.variables
            && directives == request.directives && selections == request.selections
    }

    /// What differs between this operation, as a stub wrote it, and a request's: the fields only one of them
    /// asks for (as paths, `hero.friends.name`), and differing types, names or variables.
    func difference(from actual: GraphQLOperation) -> String {
        var notes: [String] = []
        if type != actual.type { notes.append("the request runs a \(actual.type), not a \(type)") }
        if let name, name != actual.name { notes.append("the request's operation is \(actual.name ?? "anonymous")") }
        if variables != actual.variables {
            notes.append(
                "the variables declared differ: (\(variables.map(\.description).joined(separator: ", "))) against ("
                    + actual.variables.map(\.description).joined(separator: ", ") + ")")
        }
        if directives != actual.directives { notes.append("the operation's directives differ") }
        let wanted = Set(Self.paths(of: selections, under: ""))
        let found = Set(Self.paths(of: actual.selections, under: ""))
        let missing = wanted.subtracting(found).sorted()
        let extra = found.subtracting(wanted).sorted()
        if !missing.isEmpty {
            notes.append("only the stub asks for " + Self.list(missing))
        }
        if !extra.isEmpty {
            notes.append("only the request asks for " + Self.list(extra))
        }
        return notes.joined(separator: "; ")
    }

    private static func list(_ paths: [String]) -> String {
        paths.prefix(5).joined(separator: ", ") + (paths.count > 5 ? " and \(paths.count - 5) more" : "")
    }

    /// Every leaf of a selection set as a path: `hero(id: $id).friends.name`.
    private static func paths(of selections: [Selection], under prefix: String) -> [String] {
        selections.flatMap { selection -> [String] in
            let step: String
            let children: [Selection]?
            switch selection {
            case .field(let field):
                var text = field.alias.map { "\($0): " } ?? ""
                text += field.name + Argument.text(of: field.arguments)
                for directive in field.directives { text += " " + directive.description }
                step = text
                children = field.selections
            case .fragment(let typeCondition, let directives, let selections):
                step = "(... on \(typeCondition ?? "*")" + directives.map { " " + $0.description }.joined() + ")"
                children = selections
            }
            let path = prefix.isEmpty ? step : prefix + "." + step
            guard let children, !children.isEmpty else { return [path] }
            return paths(of: children, under: path)
        }
    }

    // MARK: - The parts

    struct Variable: Hashable, Sendable, CustomStringConvertible {
        let name: String
        let type: String
        let defaultValue: Value?
        let directives: [Directive]

        var description: String {
            var text = "$\(name): \(type)"
            if let defaultValue { text += " = \(defaultValue)" }
            for directive in directives { text += " " + directive.description }
            return text
        }
    }

    struct Directive: Hashable, Sendable, Comparable, CustomStringConvertible {
        let name: String
        let arguments: [Argument]

        var description: String {
            "@" + name + Argument.text(of: arguments)
        }

        static func < (lhs: Directive, rhs: Directive) -> Bool {
            lhs.name != rhs.name ? lhs.name < rhs.name : lhs.description < rhs.description
        }
    }

    struct Argument: Hashable, Sendable, CustomStringConvertible {
        let name: String
        let value: Value

        var description: String { "\(name): \(value)" }

        static func text(of arguments: [Argument]) -> String {
            arguments.isEmpty ? "" : "(" + arguments.map(\.description).joined(separator: ", ") + ")"
        }
    }

    indirect enum Value: Hashable, Sendable, CustomStringConvertible {
        case variable(String)
        case int(String)
        case float(String)
        case string(String)
        case boolean(Bool)
        case null
        case enumeration(String)
        case list([Value])
        /// Fields sorted by name: an input object's fields have no order.
        case object([Argument])

        var description: String {
            switch self {
            case .variable(let name): "$" + name
            case .int(let text), .float(let text), .enumeration(let text): text
            // JSON's escapes are GraphQL's.
            case .string(let text): JSONNode.quoted(text)
            case .boolean(let value): value ? "true" : "false"
            case .null: "null"
            case .list(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
            case .object(let fields): "{" + fields.map(\.description).joined(separator: ", ") + "}"
            }
        }
    }

    indirect enum Selection: Hashable, Sendable, CustomStringConvertible {
        case field(Field)
        case fragment(typeCondition: String?, directives: [Directive], selections: [Selection])

        struct Field: Hashable, Sendable {
            let alias: String?
            let name: String
            let arguments: [Argument]
            let directives: [Directive]
            let selections: [Selection]?

            /// The key the answer holds the field under.
            var responseKey: String { alias ?? name }
        }

        var description: String {
            switch self {
            case .field(let field):
                var text = field.alias.map { "\($0): " } ?? ""
                text += field.name + Argument.text(of: field.arguments)
                for directive in field.directives { text += " " + directive.description }
                if let selections = field.selections { text += " " + Self.text(of: selections) }
                return text
            case .fragment(let typeCondition, let directives, let selections):
                var text = "..."
                if let typeCondition { text += " on " + typeCondition }
                for directive in directives { text += " " + directive.description }
                return text + " " + Self.text(of: selections)
            }
        }

        static func text(of selections: [Selection]) -> String {
            "{ " + selections.map(\.description).joined(separator: " ") + " }"
        }

        /// Where a selection sorts: fields by the key the answer holds them under, then fragments by type.
        var sortKey: (Int, String, String) {
            switch self {
            case .field(let field): (0, field.responseKey, description)
            case .fragment(let typeCondition, _, _): (1, typeCondition ?? "", description)
            }
        }
    }
}
