import StuntDouble

/// Where an expression is evaluated: the context node, and its position in (and the size of) the context.
struct XPathContext {
    let node: Int32
    let position: Int
    let size: Int
}

/// Evaluates ``XPathSyntax`` on one document.
///
/// Node-sets are arrays of node indexes, always in document order and without duplicates. The recursion follows
/// the expression's nesting only (bounded by ``XPathExpression/maximumNesting``), never the document's.
struct XPathEvaluator {
    /// A value while it is computed: ``XPathValue`` with nodes as indexes.
    enum Value {
        case nodes([Int32])
        case string(String)
        case number(Double)
        case boolean(Bool)
    }

    let tree: XMLTree

    /// An expression's value, its nodes as ``XMLNodeID``s.
    func evaluate(_ syntax: XPathSyntax, _ context: XPathContext) -> XPathValue {
        switch value(of: syntax, context) {
        case .nodes(let nodes): .nodes(nodes.map { XMLNodeID(index: Int($0)) })
        case .string(let text): .string(text)
        case .number(let number): .number(number)
        case .boolean(let boolean): .boolean(boolean)
        }
    }

    /// An expression's value in a context.
    func value(of syntax: XPathSyntax, _ context: XPathContext) -> Value {
        switch syntax.kind {
        case .string(let text):
            return .string(text)
        case .number(let number):
            return .number(number)
        case .or(let operands):
            return .boolean(operands.contains { boolean(value(of: $0, context)) })
        case .and(let operands):
            return .boolean(operands.allSatisfy { boolean(value(of: $0, context)) })
        case .comparison(let first, let rest):
            var result = value(of: first, context)
            for (comparison, operand) in rest {
                result = .boolean(compare(result, comparison, value(of: operand, context)))
            }
            return result
        case .arithmetic(let first, let rest):
            var result = number(value(of: first, context))
            for (operation, operand) in rest {
                let right = number(value(of: operand, context))
                switch operation {
                case .plus: result += right
                case .minus: result -= right
                case .times: result *= right
                case .divide: result /= right
                case .modulo: result = result.truncatingRemainder(dividingBy: right)
                }
            }
            return .number(result)
        case .negation(let operand, let count):
            let number = number(value(of: operand, context))
            return .number(count % 2 == 1 ? -number : number)
        case .union(let operands):
            var result: [Int32] = []
            for operand in operands { result = Self.merge(result, nodes(value(of: operand, context))) }
            return .nodes(result)
        case .path(let start, let steps):
            var current: [Int32]
            switch start {
            case .root: current = [0]
            case .context: current = [context.node]
            case .expression(let syntax): current = nodes(value(of: syntax, context))
            }
            for step in steps where !current.isEmpty { current = apply(step, to: current) }
            return .nodes(current)
        case .filter(let syntax, let predicates):
            var current = nodes(value(of: syntax, context))
            for predicate in predicates where !current.isEmpty { current = filter(current, by: predicate) }
            return .nodes(current)
        case .function(let function, let arguments):
            return call(function, arguments, context)
        }
    }

    /// The nodes of a node-set value (types are checked when parsing: others never get here).
    func nodes(_ value: Value) -> [Int32] {
        if case .nodes(let nodes) = value { return nodes }
        return []
    }

    // MARK: - Node-sets

    /// Two node-sets as one, in document order without duplicates.
    static func merge(_ left: [Int32], _ right: [Int32]) -> [Int32] {
        if left.isEmpty { return right }
        if right.isEmpty { return left }
        var result: [Int32] = []
        result.reserveCapacity(left.count + right.count)
        var leftIndex = 0
        var rightIndex = 0
        while leftIndex < left.count && rightIndex < right.count {
            let leftNode = left[leftIndex]
            let rightNode = right[rightIndex]
            if leftNode <= rightNode {
                result.append(leftNode)
                leftIndex += 1
                if leftNode == rightNode { rightIndex += 1 }
            } else {
                result.append(rightNode)
                rightIndex += 1
            }
        }
        result.append(contentsOf: left[leftIndex...])
        result.append(contentsOf: right[rightIndex...])
        return result
    }

    /// Nodes in document order without duplicates (sorted only when they are not already).
    static func sortedUnique(_ nodes: [Int32]) -> [Int32] {
        var isSorted = true
        for index in nodes.indices.dropFirst() where nodes[index - 1] >= nodes[index] {
            isSorted = false
            break
        }
        if isSorted { return nodes }
        var sorted = nodes
        sorted.sort()
        var result: [Int32] = []
        result.reserveCapacity(sorted.count)
        for node in sorted where result.last != node { result.append(node) }
        return result
    }

    /// A node-set filtered by a predicate: the node at a position (in the order given) when it is a number, those
    /// for which it is true otherwise. As in Xalan, a number is truncated to an integer: `[1.5]` is `[1]`.
    func filter(_ nodes: [Int32], by predicate: XPathSyntax) -> [Int32] {
        switch predicate.kind {
        case .number(let position):
            let index = Self.javaInt(position)
            guard index >= 1, index <= nodes.count else { return [] }
            return [nodes[index - 1]]
        case .function(.last, _):
            return nodes.last.map { [$0] } ?? []
        default:
            break
        }
        var result: [Int32] = []
        for (offset, node) in nodes.enumerated() {
            let value = value(of: predicate, XPathContext(node: node, position: offset + 1, size: nodes.count))
            let keeps: Bool
            if case .number(let position) = value {
                keeps = Self.javaInt(position) == offset + 1
            } else {
                keeps = boolean(value)
            }
            if keeps { result.append(node) }
        }
        return result
    }

    // MARK: - Steps

    /// A node test resolved against the document's names.
    enum Matcher {
        case nothing
        case any
        case kind(XMLNodeKind)
        /// An element or attribute with this local name (an index in ``XMLTree/localNames``).
        case named(XMLNodeKind, Int32)
        case processingInstruction(String)
    }

    /// A node test as names and kinds of this document: a name the document lacks matches nothing at once.
    func matcher(for test: XPathNodeTest, on axis: XPathAxis) -> Matcher {
        let principal: XMLNodeKind = axis == .attribute ? .attribute : .element
        switch test {
        case .anyName: return .kind(principal)
        case .localName(let name): return tree.localNameTable[name].map { .named(principal, $0) } ?? .nothing
        case .prefixed: return .nothing
        case .node: return .any
        case .text: return .kind(.text)
        case .comment: return .kind(.comment)
        case .processingInstruction(let target):
            return target.map { .processingInstruction($0) } ?? .kind(.processingInstruction)
        }
    }

    func matches(_ node: Int, _ matcher: Matcher) -> Bool {
        switch matcher {
        case .nothing: false
        case .any: true
        case .kind(let kind): tree.kinds[node] == kind
        case .named(let kind, let localName):
            tree.kinds[node] == kind && tree.localNameIDs[Int(tree.nameIDs[node])] == localName
        case .processingInstruction(let target):
            tree.kinds[node] == .processingInstruction && tree.names[Int(tree.nameIDs[node])] == target
        }
    }

    /// A location step from each node of a node-set.
    func apply(_ step: XPathStep, to input: [Int32]) -> [Int32] {
        let matcher = matcher(for: step.test, on: step.axis)
        if case .nothing = matcher { return [] }
        if step.axis == .namespace { return [] }
        if step.predicates.isEmpty { return select(step.axis, from: input, matcher) }
        // `[3]` first needs no more than 3 nodes of each axis (`following::x[1]` reads one, not the document).
        var limit = Int.max
        if case .number(let position) = step.predicates[0].kind {
            let index = Self.javaInt(position)
            guard index >= 1, index <= tree.nodeCount else { return [] }
            limit = index
        }
        var result: [Int32] = []
        var axisNodes: [Int32] = []
        for node in input {
            axisNodes.removeAll(keepingCapacity: true)
            collect(step.axis, from: Int(node), matcher, into: &axisNodes, limit: limit)
            var selected = axisNodes
            for predicate in step.predicates where !selected.isEmpty { selected = filter(selected, by: predicate) }
            result.append(contentsOf: selected)
        }
        return Self.sortedUnique(result)
    }

    /// The nodes on an axis of a node in the axis's order (nearest first on reverse axes) that match, until
    /// `result` holds `limit` nodes.
    func collect(
        _ axis: XPathAxis, from node: Int, _ matcher: Matcher, into result: inout [Int32], limit: Int = .max
    ) {
        let kinds = tree.kinds
        let parents = tree.parents
        switch axis {
        case .child:
            var child = tree.firstChild(of: node)
            while child >= 0 {
                if matches(child, matcher) { result.append(Int32(child)) }
                if result.count >= limit { return }
                child = tree.nextSibling(of: child)
            }
        case .descendant, .descendantOrSelf:
            if axis == .descendantOrSelf && matches(node, matcher) { result.append(Int32(node)) }
            for descendant in (node + 1)..<Int(tree.ends[node])
            where kinds[descendant] != .attribute && matches(descendant, matcher) {
                if result.count >= limit { return }
                result.append(Int32(descendant))
            }
        case .parent:
            let parent = Int(parents[node])
            if parent >= 0 && matches(parent, matcher) { result.append(Int32(parent)) }
        case .ancestor, .ancestorOrSelf:
            if axis == .ancestorOrSelf && matches(node, matcher) { result.append(Int32(node)) }
            var ancestor = Int(parents[node])
            while ancestor >= 0 {
                if matches(ancestor, matcher) { result.append(Int32(ancestor)) }
                if result.count >= limit { return }
                ancestor = Int(parents[ancestor])
            }
        case .followingSibling:
            var sibling = tree.nextSibling(of: node)
            while sibling >= 0 {
                if matches(sibling, matcher) { result.append(Int32(sibling)) }
                if result.count >= limit { return }
                sibling = tree.nextSibling(of: sibling)
            }
        case .precedingSibling:
            var sibling = Int(tree.previousSiblings[node])
            while sibling >= 0 {
                if matches(sibling, matcher) { result.append(Int32(sibling)) }
                if result.count >= limit { return }
                sibling = Int(tree.previousSiblings[sibling])
            }
        case .following:
            for following in Int(tree.ends[node])..<kinds.count
            where kinds[following] != .attribute && matches(following, matcher) {
                if result.count >= limit { return }
                result.append(Int32(following))
            }
        case .preceding:
            var preceding = node - 1
            while preceding > 0 {
                if kinds[preceding] != .attribute && Int(tree.ends[preceding]) <= node && matches(preceding, matcher) {
                    result.append(Int32(preceding))
                    if result.count >= limit { return }
                }
                preceding -= 1
            }
        case .attribute:
            guard kinds[node] == .element else { return }
            var attribute = node + 1
            while attribute < kinds.count && kinds[attribute] == .attribute && Int(parents[attribute]) == node {
                if !tree.isNamespaceDeclaration[Int(tree.nameIDs[attribute])] && matches(attribute, matcher) {
                    result.append(Int32(attribute))
                }
                attribute += 1
            }
        case .selfAxis:
            if matches(node, matcher) { result.append(Int32(node)) }
        case .namespace:
            break
        }
    }

    /// A step without predicates from a node-set, in time linear in the document for the axes that overlap
    /// (descendants, ancestors, siblings, following and preceding nodes): each node is visited once.
    func select(_ axis: XPathAxis, from input: [Int32], _ matcher: Matcher) -> [Int32] {
        var result: [Int32] = []
        let kinds = tree.kinds
        switch axis {
        case .descendant, .descendantOrSelf:
            // Nodes inside a subtree already walked add nothing: their descendants were walked with it. Attributes
            // are not walked as descendants, so one selects itself (on descendant-or-self) wherever it is.
            var walkedUntil = 0
            var attributes: [Int32] = []
            for node in input.lazy.map(Int.init) {
                if kinds[node] == .attribute {
                    if axis == .descendantOrSelf && matches(node, matcher) { attributes.append(Int32(node)) }
                } else if node >= walkedUntil {
                    collect(axis, from: node, matcher, into: &result)
                    walkedUntil = Int(tree.ends[node])
                }
            }
            return Self.merge(result, attributes)
        case .following:
            // Everything after the subtree that ends first.
            guard let start = input.lazy.map({ Int(self.tree.ends[Int($0)]) }).min() else { return [] }
            for node in start..<kinds.count where kinds[node] != .attribute && matches(node, matcher) {
                result.append(Int32(node))
            }
            return result
        case .preceding:
            // What precedes the last node includes what precedes any other.
            guard let last = input.last.map(Int.init) else { return [] }
            for node in 1..<max(last, 1)
            where kinds[node] != .attribute && Int(tree.ends[node]) <= last && matches(node, matcher) {
                result.append(Int32(node))
            }
            return result
        case .ancestor, .ancestorOrSelf, .followingSibling, .precedingSibling:
            guard input.count > 1 else {
                collect(axis, from: Int(input[0]), matcher, into: &result)
                return Self.sortedUnique(result)
            }
            // A node reached before had the rest of its chain walked then.
            var visited = [Bool](repeating: false, count: kinds.count)
            for node in input.lazy.map(Int.init) {
                var current: Int
                switch axis {
                case .ancestorOrSelf: current = node
                case .ancestor: current = Int(tree.parents[node])
                case .followingSibling: current = tree.nextSibling(of: node)
                default: current = Int(tree.previousSiblings[node])
                }
                while current >= 0 && !visited[current] {
                    visited[current] = true
                    if matches(current, matcher) { result.append(Int32(current)) }
                    switch axis {
                    case .ancestor, .ancestorOrSelf: current = Int(tree.parents[current])
                    case .followingSibling: current = tree.nextSibling(of: current)
                    default: current = Int(tree.previousSiblings[current])
                    }
                }
            }
            return Self.sortedUnique(result)
        case .child, .parent, .attribute, .selfAxis, .namespace:
            for node in input { collect(axis, from: Int(node), matcher, into: &result) }
            return Self.sortedUnique(result)
        }
    }
}
