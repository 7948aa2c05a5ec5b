// Input: an XPath expression, a NUL byte, then an XML text.
//
// The XML reader and writer behind `matchesXPath` and the templates' XML helpers, and the XPath evaluator. The
// properties: what the writer writes (plain or pretty) reads back; writing is a fixed point once its text has been
// read back (a first write drops whitespace-only text among elements and redundant namespace declarations, and
// may rename a declaration as Java's serializer does, `xmlnsfoo="y"` to `xmlns="y"`, which can move it among the
// attributes, written in the order of their names: so the second and third writes must agree); and an
// expression in parentheses parses and selects what the expression does (XPath 1.0: PrimaryExpr ::= '(' Expr
// ')'), its count() counting the nodes selected.

import Foundation
import FuzzSupport

@testable import StuntDoubleWireMock

/// libFuzzer's entry point: checks one input; a violated property aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let (before, after) = FuzzInput(data, size).split(at: 0)
    let expression = String(decoding: before, as: UTF8.self)
    let xml = String(decoding: after, as: UTF8.self)

    guard let tree = try? XMLTree(parsing: xml) else { return 0 }
    let first = tree.serialized(tree.root, pretty: false)
    let second = rewrite(first)
    let third = rewrite(second)
    require(third == second, "writing what was read back changed the text: \(first), \(second), then \(third)")
    let pretty = tree.serialized(tree.root, pretty: true)
    require((try? XMLTree(parsing: pretty)) != nil, "the pretty writer's text does not read back: \(pretty)")

    guard let path = try? XPathExpression(expression) else { return 0 }
    let value = path.evaluate(in: tree)
    guard let parenthesized = try? XPathExpression("(\(expression))") else {
        require(false, "(\(expression)) does not parse, though \(expression) does")
        return 0
    }
    require(same(value, parenthesized.evaluate(in: tree)), "(\(expression)) selects other than \(expression)")
    if case .nodes(let nodes) = value, let count = try? XPathExpression("count(\(expression))") {
        require(
            same(count.evaluate(in: tree), .number(Double(nodes.count))),
            "count(\(expression)) is not the \(nodes.count) nodes it selects")
    }
    return 0
}

/// What the writer writes of what the reader reads from a text the writer wrote (which must read back).
func rewrite(_ written: String) -> String {
    do {
        let tree = try XMLTree(parsing: written)
        return tree.serialized(tree.root, pretty: false)
    } catch {
        require(false, "the writer's text does not read back (\(error)): \(written)")
        return ""
    }
}

/// XPath values' equality, with NaN equal to itself (`0 div 0` twice is the same answer).
func same(_ left: XPathValue, _ right: XPathValue) -> Bool {
    if case .number(let a) = left, case .number(let b) = right, a.isNaN, b.isNaN { return true }
    return left == right
}
