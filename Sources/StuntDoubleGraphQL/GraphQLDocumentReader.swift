import GraphQL

/// Reads a GraphQL document's operation into its canonical form (``GraphQLOperation``), with GraphQLSwift's
/// parser, within bounds that hostile text cannot break: its length, its nesting, and how far its fragments
/// expand.
enum GraphQLDocumentReader {
    typealias Problem = GraphQLQueryError

    /// The longest document read, in UTF-8 bytes.
    static let maximumLength = 1 << 20
    /// The deepest nesting of `{`, `[` and `(` read: the parser recurses once per level.
    static let maximumDepth = 128
    /// The most selections a document may expand to, fragments spread: a few fragments that each spread the
    /// next twice would otherwise make billions.
    static let maximumSelections = 100_000

    /// The operation `name` of a document, or its only operation when `name` is `nil`.
    static func operation(in text: String, named name: String?) throws(Problem) -> GraphQLOperation {
        guard text.utf8.count <= maximumLength else {
            throw Problem(message: "the query is longer than \(maximumLength) bytes")
        }
        try checkNesting(text)
        let document: Document
        do {
            document = try parse(source: text, noLocation: false)
        } catch let error as GraphQLError {
            let location = error.locations.first
            // The parser's message repeats the place and quotes the text: its first line, without the place.
            var message = error.message.prefix { $0 != "\n" }
            if message.hasPrefix("Syntax Error"), let place = message.range(of: ") ") {
                message = message[place.upperBound...]
            }
            throw Problem(
                message: "the query is not GraphQL: \(message)", line: location.map { max(1, $0.line) },
                column: location.map { max(1, $0.column) })
        } catch {
            throw Problem(message: "the query is not GraphQL: \(error)")
        }
        var operations: [OperationDefinition] = []
        var fragments: [String: FragmentDefinition] = [:]
        for definition in document.definitions {
            switch definition {
            case let operation as OperationDefinition:
                operations.append(operation)
            case let fragment as FragmentDefinition:
                guard fragments.updateValue(fragment, forKey: fragment.name.value) == nil else {
                    throw Problem(message: "the query defines the fragment \(fragment.name.value) twice")
                }
            default:
                throw Problem(
                    message: "the query defines types or a schema (\(definition.kind)): send only operations and "
                        + "fragments")
            }
        }
        let chosen: OperationDefinition
        if name != nil, operations.count == 1, let only = operations.first, only.name == nil {
            // One anonymous operation: the one that runs, whatever name the request gives it.
            chosen = only
        } else if let name {
            guard let named = operations.first(where: { $0.name?.value == name }) else {
                let names = operations.compactMap { $0.name?.value }
                throw Problem(
                    message: "the query has no operation named \(name)"
                        + (names.isEmpty ? "" : " (it has \(names.joined(separator: ", ")))"))
            }
            chosen = named
        } else {
            guard operations.count == 1, let only = operations.first else {
                throw Problem(
                    message: operations.isEmpty
                        ? "the query has no operation"
                        : "the query has \(operations.count) operations and no operationName says which one runs")
            }
            chosen = only
        }
        var normalizer = Normalizer(fragments: fragments)
        return GraphQLOperation(
            type: chosen.operation.rawValue, name: chosen.name?.value,
            variables: chosen.variableDefinitions.map { definition in
                GraphQLOperation.Variable(
                    name: definition.variable.name.value, type: GraphQL.print(ast: definition.type),
                    defaultValue: definition.defaultValue.map(Normalizer.value),
                    directives: Normalizer.directives(definition.directives))
            }.sorted { $0.name < $1.name },
            directives: Normalizer.directives(chosen.directives),
            selections: try normalizer.selections(chosen.selectionSet))
    }

    /// Refuses text that nests `{`, `[` or `(` deeper than ``maximumDepth`` (outside strings and comments).
    private static func checkNesting(_ text: String) throws(Problem) {
        var depth = 0
        var line = 1
        var column = 0
        var bytes = text.utf8.makeIterator()
        var pending: UInt8? = nil
        func next() -> UInt8? {
            if let byte = pending {
                pending = nil
                return byte
            }
            guard let byte = bytes.next() else { return nil }
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 0
            } else {
                column += 1
            }
            return byte
        }
        while let byte = next() {
            switch byte {
            case UInt8(ascii: "#"):
                // To the first control byte but a tab, where GraphQLSwift's lexer ends a comment (not only at
                // `\n`: code after a `\r` must be checked too).
                while let skipped = next(), skipped >= 0x20 || skipped == 0x09 {}
            case UInt8(ascii: "\""):
                // A string, or a block string ("""): skipped whole.
                var quotes = 1
                while let following = next() {
                    if following == UInt8(ascii: "\"") {
                        quotes += 1
                    } else {
                        pending = following
                        break
                    }
                    if quotes == 3 { break }
                }
                if quotes == 3 {
                    var closing = 0
                    while let inner = next() {
                        if inner == UInt8(ascii: "\\") {
                            closing = 0
                            _ = next()
                        } else if inner == UInt8(ascii: "\"") {
                            closing += 1
                            if closing == 3 { break }
                        } else {
                            closing = 0
                        }
                    }
                } else if quotes == 1 {
                    while let inner = next(), inner != UInt8(ascii: "\"") {
                        if inner == UInt8(ascii: "\n") { break }
                        guard inner == UInt8(ascii: "\\") else { continue }
                        // GraphQLSwift's lexer reads the four bytes after `\u` without looking for the end of the
                        // text (a `\u00` at the end crashed it, found by FuzzGraphQL): checked here first.
                        guard next() == UInt8(ascii: "u") else { continue }
                        for _ in 0..<4 {
                            guard let digit = next(), digit.isHexDigit else {
                                throw Problem(
                                    message: "the query is not GraphQL: a \\u escape needs four hexadecimal digits",
                                    line: line, column: max(1, column))
                            }
                        }
                    }
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "("):
                depth += 1
                if depth > maximumDepth {
                    throw Problem(
                        message: "the query nests deeper than \(maximumDepth) levels", line: line,
                        column: max(1, column))
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ")"):
                depth = max(0, depth - 1)
            default:
                break
            }
        }
    }

    /// Turns selection sets into canonical selections: fragments expanded, fields merged, sorted.
    private struct Normalizer {
        let fragments: [String: FragmentDefinition]
        var budget = GraphQLDocumentReader.maximumSelections
        /// The fragments being expanded, outermost first: one spread inside itself is a cycle.
        var expanding: [String] = []
        /// How deep the selections being read are, fragments spread: a chain of fragments that each spread the
        /// next nests without a bracket in the text.
        var depth = 0

        typealias Selection = GraphQLOperation.Selection

        mutating func selections(_ set: SelectionSet) throws(Problem) -> [Selection] {
            depth += 1
            defer { depth -= 1 }
            guard depth <= GraphQLDocumentReader.maximumDepth else {
                throw Problem(
                    message: "the query nests deeper than \(GraphQLDocumentReader.maximumDepth) levels with its "
                        + "fragments spread")
            }
            var collected: [Selection] = []
            for selection in set.selections {
                budget -= 1
                guard budget >= 0 else {
                    throw Problem(
                        message: "the query expands to more than \(GraphQLDocumentReader.maximumSelections) "
                            + "selections with its fragments spread")
                }
                switch selection {
                case let field as GraphQL.Field:
                    var children: [Selection]? = nil
                    if let set = field.selectionSet {
                        children = try selections(set)
                    }
                    collected.append(
                        .field(
                            .init(
                                alias: field.alias?.value, name: field.name.value,
                                arguments: Self.arguments(field.arguments),
                                directives: Self.directives(field.directives),
                                selections: children)))
                case let spread as FragmentSpread:
                    let name = spread.name.value
                    guard let definition = fragments[name] else {
                        throw Problem(message: "the query spreads the fragment \(name), which it does not define")
                    }
                    guard !expanding.contains(name) else {
                        throw Problem(
                            message:
                                "the fragment \(name) spreads itself (\((expanding + [name]).joined(separator: " → ")))"
                        )
                    }
                    expanding.append(name)
                    let children = try selections(definition.selectionSet)
                    expanding.removeLast()
                    Self.append(
                        typeCondition: definition.typeCondition.name.value,
                        directives: Self.directives(spread.directives), children, to: &collected)
                case let inline as InlineFragment:
                    let children = try selections(inline.selectionSet)
                    Self.append(
                        typeCondition: inline.typeCondition?.name.value,
                        directives: Self.directives(inline.directives), children, to: &collected)
                default:
                    break
                }
            }
            return Self.merged(collected)
        }

        /// A fragment's selections: spliced in when it has neither a type condition nor a directive.
        private static func append(
            typeCondition: String?, directives: [GraphQLOperation.Directive], _ children: [Selection],
            to collected: inout [Selection]
        ) {
            if typeCondition == nil, directives.isEmpty {
                collected.append(contentsOf: children)
            } else {
                collected.append(.fragment(typeCondition: typeCondition, directives: directives, selections: children))
            }
        }

        private enum MergeKey: Hashable {
            case field(alias: String?, name: String, [GraphQLOperation.Argument], [GraphQLOperation.Directive])
            case fragment(String?, [GraphQLOperation.Directive])
        }

        /// Selections asked for twice, merged as GraphQL merges them (their sub-selections together), then sorted.
        static func merged(_ selections: [Selection]) -> [Selection] {
            var order: [MergeKey] = []
            var byKey: [MergeKey: Selection] = [:]
            for selection in selections {
                let key: MergeKey
                switch selection {
                case .field(let field):
                    key = .field(alias: field.alias, name: field.name, field.arguments, field.directives)
                case .fragment(let typeCondition, let directives, _):
                    key = .fragment(typeCondition, directives)
                }
                guard let existing = byKey[key] else {
                    order.append(key)
                    byKey[key] = selection
                    continue
                }
                switch (existing, selection) {
                case (.field(let first), .field(let second)):
                    let children: [Selection]? =
                        first.selections == nil && second.selections == nil
                        ? nil : merged((first.selections ?? []) + (second.selections ?? []))
                    byKey[key] = .field(
                        .init(
                            alias: first.alias, name: first.name, arguments: first.arguments,
                            directives: first.directives, selections: children))
                case (.fragment(let typeCondition, let directives, let first), .fragment(_, _, let second)):
                    byKey[key] = .fragment(
                        typeCondition: typeCondition, directives: directives, selections: merged(first + second))
                default:
                    break
                }
            }
            // Each key once (a field's holds its selections' text), not once per comparison.
            return order.compactMap { byKey[$0] }.map { ($0.sortKey, $0) }.sorted { $0.0 < $1.0 }.map(\.1)
        }

        static func arguments(_ arguments: [GraphQL.Argument]) -> [GraphQLOperation.Argument] {
            arguments.map { GraphQLOperation.Argument(name: $0.name.value, value: value($0.value)) }
                .sorted { $0.name < $1.name }
        }

        static func directives(_ directives: [GraphQL.Directive]) -> [GraphQLOperation.Directive] {
            directives.map { GraphQLOperation.Directive(name: $0.name.value, arguments: arguments($0.arguments)) }
                .sorted()
        }

        static func value(_ value: GraphQL.Value) -> GraphQLOperation.Value {
            switch value {
            case let variable as GraphQL.Variable: .variable(variable.name.value)
            case let number as IntValue: .int(number.value)
            case let number as FloatValue: .float(number.value)
            case let string as StringValue: .string(string.value)
            case let boolean as BooleanValue: .boolean(boolean.value)
            case let enumeration as EnumValue: .enumeration(enumeration.value)
            case let list as ListValue: .list(list.values.map(Self.value))
            case let object as ObjectValue:
                .object(
                    object.fields.map { GraphQLOperation.Argument(name: $0.name.value, value: Self.value($0.value)) }
                        .sorted { $0.name < $1.name })
            default: .null
            }
        }
    }
}

/// Why a GraphQL query cannot be read, and where in its text, when known.
public struct GraphQLQueryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let message: String
    /// The line of the query where it is, from 1, when known.
    public var line: Int? = nil
    /// The column of the query where it is, from 1, when known.
    public var column: Int? = nil

    /// The message, with the line and column when known.
    public var description: String {
        guard let line, let column else { return message }
        return "\(message) (at line \(line), column \(column) of the query)"
    }
}

extension GraphQLOperation {
    /// Reads an operation of a GraphQL document into its canonical form.
    ///
    /// ```swift
    /// let stubbed = try GraphQLOperation("{ hero { name id } }")
    /// let sent = try GraphQLOperation("query { hero { id, name } }")
    /// stubbed == sent  // true
    /// ```
    /// - Parameters:
    ///   - query: The document.
    ///   - operationName: Which of its operations; `nil` when it has one.
    /// - Throws: ``GraphQLQueryError`` for text that is not GraphQL (with its line and column), a document
    ///   without that operation, a fragment spread but not defined or spread in itself, or text beyond the
    ///   bounds hostile input could break (1 MiB, 128 levels of nesting, 100,000 selections once fragments
    ///   are spread).
    public init(_ query: String, operationName: String? = nil) throws(GraphQLQueryError) {
        self = try GraphQLDocumentReader.operation(in: query, named: operationName)
    }
}

extension UInt8 {
    /// Whether the byte is an ASCII hexadecimal digit.
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
