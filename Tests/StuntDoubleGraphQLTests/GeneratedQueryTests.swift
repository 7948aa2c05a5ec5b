import Foundation
import StuntDouble
import StuntDoubleGraphQL
import Testing

/// Queries this test did not write: random operations, each rewritten in a random layout (order, whitespace,
/// commas, comments, fragments named or inline, fields asked twice), must stay equal; with one field renamed,
/// they must not.
@Suite struct GeneratedQueryTests {
    indirect enum Node {
        case field(alias: String?, name: String, arguments: [(String, String)], children: [Node])
        case fragment(type: String, children: [Node])
    }

    struct Generator {
        var random: SeededGenerator
        var fragments: [String] = []

        mutating func selections(depth: Int) -> [Node] {
            let names = ["id", "name", "friends", "hero", "ship", "length", "starships", "appearsIn"].shuffled(
                using: &random)
            let count = Int.random(in: 1...4, using: &random)
            var nodes: [Node] = []
            for name in names.prefix(count) {
                var arguments: [(String, String)] = []
                for argument in ["first", "after", "unit", "filter"]
                where Bool.random(using: &random) && arguments.count < 2 {
                    let values = ["3", "\"abc\"", "METER", "{kind: DROID, from: 1977}", "[1, 2]", "$cursor", "null"]
                    arguments.append((argument, values.randomElement(using: &random)!))
                }
                let alias = Int.random(in: 0..<6, using: &random) == 0 ? "my" + name.capitalized : nil
                let children = depth < 3 && Bool.random(using: &random) ? selections(depth: depth + 1) : []
                nodes.append(.field(alias: alias, name: name, arguments: arguments, children: children))
            }
            if depth < 3, Int.random(in: 0..<3, using: &random) == 0 {
                nodes.append(
                    .fragment(
                        type: ["Droid", "Human"].randomElement(using: &random)!, children: selections(depth: depth + 1))
                )
            }
            return nodes
        }

        /// The selections as written plainly.
        static func plain(_ nodes: [Node]) -> String {
            "{ "
                + nodes.map { node in
                    switch node {
                    case .field(let alias, let name, let arguments, let children):
                        (alias.map { "\($0): " } ?? "") + name
                            + (arguments.isEmpty
                                ? "" : "(" + arguments.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + ")")
                            + (children.isEmpty ? "" : " " + plain(children))
                    case .fragment(let type, let children):
                        "... on \(type) " + plain(children)
                    }
                }.joined(separator: " ") + " }"
        }

        mutating func space() -> String {
            ["", " ", "\n", "  ", ", ", " # note\n", "\t"].randomElement(using: &random)!
        }

        /// The same selections in another layout.
        mutating func rewritten(_ nodes: [Node]) -> String {
            var parts: [String] = []
            for node in nodes.shuffled(using: &random) {
                switch node {
                case .field(let alias, let name, let arguments, let children):
                    var text = (alias.map { "\($0)" + space() + ":" + space() } ?? "") + name
                    if !arguments.isEmpty {
                        text += space() + "(" + space()
                        text += arguments.shuffled(using: &random).map { "\($0.0)" + ":" + space() + $0.1 }
                            .joined(separator: "," + space())
                        text += space() + ")"
                    }
                    if !children.isEmpty {
                        if children.count > 1, Int.random(in: 0..<4, using: &random) == 0 {
                            // The field asked for twice, its selections split between the two.
                            let cut = Int.random(in: 1..<children.count, using: &random)
                            let head = text
                            text += space() + rewritten(Array(children[..<cut]))
                            parts.append(text)
                            text = head + space() + rewritten(Array(children[cut...]))
                        } else {
                            text += space() + rewritten(children)
                        }
                    }
                    if Int.random(in: 0..<5, using: &random) == 0 {
                        // An inline fragment without a condition.
                        text = "..." + space() + "{" + space() + text + space() + "}"
                    }
                    parts.append(text)
                case .fragment(let type, let children):
                    if Bool.random(using: &random) {
                        let name = "F\(fragments.count)"
                        fragments.append("")  // reserve the name before the children take theirs
                        let body = rewritten(children)
                        fragments[Int(name.dropFirst())!] = "fragment \(name) on \(type) \(body)"
                        parts.append("..." + space() + name)
                    } else {
                        parts.append("..." + space() + "on " + type + space() + rewritten(children))
                    }
                }
            }
            return "{" + space() + parts.joined(separator: [" ", "\n", ", ", " , "].randomElement(using: &random)!)
                + space() + "}"
        }
    }

    /// The first leaf field renamed: another operation.
    static func renamingALeaf(_ nodes: [Node]) -> [Node]? {
        for (index, node) in nodes.enumerated() {
            switch node {
            case .field(let alias, _, let arguments, let children) where children.isEmpty:
                var copy = nodes
                copy[index] = .field(alias: alias, name: "renamed", arguments: arguments, children: [])
                return copy
            case .field(let alias, let name, let arguments, let children):
                if let changed = renamingALeaf(children) {
                    var copy = nodes
                    copy[index] = .field(alias: alias, name: name, arguments: arguments, children: changed)
                    return copy
                }
            case .fragment(let type, let children):
                if let changed = renamingALeaf(children) {
                    var copy = nodes
                    copy[index] = .fragment(type: type, children: changed)
                    return copy
                }
            }
        }
        return nil
    }

    // Yields between cases: 500 parses in one go held one of the process's two cooperative threads for seconds
    // in the whole suite, while other tests' servers waited for it.
    @Test func fiveHundredOperationsInRandomLayouts() async throws {
        let seed = UInt64.random(in: 1...UInt64.max)
        var generator = Generator(random: SeededGenerator(seed: seed))
        var named = 0
        for number in 0..<500 {
            if number % 10 == 0 { await Task.yield() }
            let nodes = generator.selections(depth: 0)
            generator.fragments = []
            let plain = "query Q($cursor: String) " + Generator.plain(nodes)
            let rewritten =
                "query Q(" + generator.space() + "$cursor" + generator.space() + ":" + generator.space() + "String)"
                + generator.space() + generator.rewritten(nodes) + "\n" + generator.fragments.joined(separator: "\n")
            if rewritten.contains("fragment F") { named += 1 }
            let expected = try GraphQLOperation(plain)
            let actual = try GraphQLOperation(rewritten)
            #expect(expected == actual, "seed \(seed), case \(number):\n\(plain)\n\(rewritten)")
            if let changed = Self.renamingALeaf(nodes) {
                let other = try GraphQLOperation("query Q($cursor: String) " + Generator.plain(changed))
                #expect(other != actual, "seed \(seed), case \(number): a renamed field must differ:\n\(plain)")
            }
        }
        // The layouts tried named fragments in many cases (not only whitespace and order).
        #expect(named > 50, "seed \(seed): \(named) of 500 cases had a named fragment")
    }
}
