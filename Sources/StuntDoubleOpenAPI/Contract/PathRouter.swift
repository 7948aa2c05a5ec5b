import StuntDouble

/// A path template's segment: literal text, or text with `{variables}` in it.
enum PathTemplate {
    enum Segment: Sendable, Hashable {
        case literal(String)
        /// Literal pieces around variables: `{name}.{ext}` is `["", ".", ""]` and `["name", "ext"]`.
        case pattern(pieces: [String], variables: [String])
    }

    static func segments(of path: String) -> [Segment] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { segment in
            guard segment.contains("{") else { return .literal(String(segment)) }
            var pieces: [String] = []
            var variables: [String] = []
            var rest = segment[...]
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                pieces.append(String(rest[..<open]))
                variables.append(String(rest[rest.index(after: open)..<close]))
                rest = rest[rest.index(after: close)...]
            }
            pieces.append(String(rest))
            return .pattern(pieces: pieces, variables: variables)
        }
    }

    static func variables(in path: String) -> [String] {
        segments(of: path).flatMap { segment -> [String] in
            if case .pattern(_, let variables) = segment { variables } else { [] }
        }
    }

    /// The variables' raw (still percent-encoded) values when a request's segment fits a pattern.
    static func match(_ text: Substring, pieces: [String], variables: [String]) -> [(String, Substring)]? {
        guard text.hasPrefix(pieces[0]) else { return nil }
        var rest = text.dropFirst(pieces[0].count)
        var values: [(String, Substring)] = []
        for (index, variable) in variables.enumerated() {
            let next = pieces[index + 1]
            let isLast = index == variables.count - 1
            let value: Substring
            if isLast {
                guard rest.hasSuffix(next), rest.count >= next.count else { return nil }
                value = rest.dropLast(next.count)
                rest = rest.suffix(0)
            } else {
                guard !next.isEmpty, let range = rest.range(of: next) else { return nil }
                value = rest[..<range.lowerBound]
                rest = rest[range.upperBound...]
            }
            guard !value.isEmpty else { return nil }
            values.append((variable, value))
        }
        return values
    }
}

/// Finds a request's operation: a tree of path segments, literal children before templated ones (as OpenAPI
/// says concrete paths win), so that finding costs the same with ten operations or ten thousand.
struct PathRouter: Sendable {
    struct Node: Sendable {
        var literals: [String: Int] = [:]
        var patterns: [(pieces: [String], variables: [String], node: Int)] = []
        /// Operation indexes by method.
        var operations: [HTTPMethod: Int] = [:]
        var template: String?
    }

    struct Match {
        let operation: Int
        /// Path variables, percent-encoded as sent.
        let variables: [(String, Substring)]
    }

    enum Outcome {
        case found(Match)
        /// A path of the document, without the request's method.
        case methodNotAllowed(template: String, allowed: [HTTPMethod])
        case noPath
    }

    private var nodes = [Node()]
    /// Base paths of the document's servers (`/v1`), longest first; `""` always last.
    let basePaths: [String]

    init(operations: [ContractOperation], basePaths: [String]) {
        self.basePaths = (basePaths.filter { !$0.isEmpty }.sorted { $0.count > $1.count }) + [""]
        for (index, operation) in operations.enumerated() {
            insert(operation, index: index)
        }
    }

    private mutating func insert(_ operation: ContractOperation, index: Int) {
        var current = 0
        for segment in PathTemplate.segments(of: operation.path) {
            switch segment {
            case .literal(let text):
                if let next = nodes[current].literals[text] {
                    current = next
                } else {
                    nodes.append(Node())
                    nodes[current].literals[text] = nodes.count - 1
                    current = nodes.count - 1
                }
            case .pattern(let pieces, let variables):
                if let existing = nodes[current].patterns.first(where: { $0.pieces == pieces }) {
                    current = existing.node
                } else {
                    nodes.append(Node())
                    // More literal text first: `{id}.json` before `{id}` (inserted in place: sorting on every insert
                    // was quadratic in a node's templates).
                    let literal = pieces.reduce(0) { $0 + $1.count }
                    let place =
                        nodes[current].patterns.firstIndex { $0.pieces.reduce(0) { $0 + $1.count } < literal }
                        ?? nodes[current].patterns.endIndex
                    nodes[current].patterns.insert((pieces, variables, nodes.count - 1), at: place)
                    current = nodes.count - 1
                }
            }
        }
        nodes[current].operations[operation.method] = index
        nodes[current].template = operation.path
    }

    /// The operation for a method and a request path (percent-encoded, as sent).
    func route(method: HTTPMethod, path: Substring) -> Outcome {
        var firstPath: Node?
        for base in basePaths {
            guard path.hasPrefix(base) else { continue }
            let rest = path.dropFirst(base.count)
            guard rest.isEmpty || rest.hasPrefix("/") else { continue }
            let segments = Self.segments(of: rest.isEmpty ? "/" : rest)
            var variables: [(String, Substring)] = []
            var found: Match?
            walk(0, segments[...], &variables) { node, variables in
                if firstPath == nil { firstPath = node }
                if let operation = node.operations[method] ?? (method == .head ? node.operations[.get] : nil) {
                    found = Match(operation: operation, variables: variables)
                    return true
                }
                return false
            }
            if let found { return .found(found) }
        }
        if let firstPath {
            return .methodNotAllowed(
                template: firstPath.template ?? "",
                allowed: firstPath.operations.keys.sorted { $0.rawValue < $1.rawValue })
        }
        return .noPath
    }

    /// A path's `/`-separated segments after the first `/`, found by bytes.
    private static func segments(of path: Substring) -> ArraySlice<Substring> {
        var found: [Substring] = []
        let bytes = path.utf8
        var start = bytes.startIndex
        if start < bytes.endIndex, bytes[start] == UInt8(ascii: "/") { start = bytes.index(after: start) }
        var index = start
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "/") {
                found.append(Substring(bytes[start..<index]))
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        found.append(Substring(bytes[start..<bytes.endIndex]))
        return found[...]
    }

    /// Visits every node that the segments reach, literal routes first, until `visit` says to stop.
    @discardableResult
    private func walk(
        _ index: Int, _ segments: ArraySlice<Substring>, _ variables: inout [(String, Substring)],
        _ visit: (Node, [(String, Substring)]) -> Bool
    ) -> Bool {
        let node = nodes[index]
        guard let segment = segments.first else {
            return node.operations.isEmpty ? false : visit(node, variables)
        }
        let rest = segments.dropFirst()
        if let next = node.literals[String(segment)], walk(next, rest, &variables, visit) {
            return true
        }
        for pattern in node.patterns {
            guard let values = PathTemplate.match(segment, pieces: pattern.pieces, variables: pattern.variables)
            else { continue }
            let count = variables.count
            variables += values
            if walk(pattern.node, rest, &variables, visit) { return true }
            variables.removeLast(variables.count - count)
        }
        return false
    }
}
