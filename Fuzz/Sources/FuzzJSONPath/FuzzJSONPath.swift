// Input: a JSONPath expression, a NUL byte, then a JSON text.
//
// JSONPath has one evaluator and two kinds of document: values (what matchers compare: `matchesJsonPath`) and
// JSON as written (what templates print: `jsonPath`). The property is that both kinds select the same values:
// the same found or not found, the same value for a definite path, the same values (in any order: objects are
// walked by name as values, in the order written as written) for an indefinite one, and the same length().

import Foundation
import FuzzSupport

@testable import StuntDouble
@testable import StuntDoubleWireMock

/// libFuzzer's entry point: checks one input; a violated property aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let (before, after) = FuzzInput(data, size).split(at: 0)
    let expression = String(decoding: before, as: UTF8.self)
    let json = Array(after)

    guard let path = try? JSONPath(expression) else { return 0 }
    _ = path.description
    let node = try? JSONNode.parse(json)
    let value = try? JSONValue.parse(Data(json))
    require((node == nil) == (value == nil), "the two JSON readers disagree on whether \(json.count) bytes are JSON")
    // A key written twice is two members as written and one as a value: the documents differ there by design.
    guard let node, let value, !repeatsAKey(node) else { return 0 }
    require(JSONValue(node) == value, "the JSON as written and as a value differ")

    let fromValue = path.evaluate(value)
    let fromNode = path.evaluate(node)
    switch (fromValue, fromNode) {
    case (.notFound, .notFound):
        break
    case (.value(let selected), .value(let written)):
        require(
            JSONValue(written) == selected, "\(expression): \(selected) as a value, \(JSONValue(written)) as written")
    case (.list(let selected), .list(let written)):
        let left = selected.map(\.description).sorted()
        let right = written.map { JSONValue($0).description }.sorted()
        require(left == right, "\(expression): \(left) as values, \(right) as written")
    default:
        require(false, "\(expression): \(fromValue) as a value, \(fromNode) as written")
    }
    return 0
}

/// Whether an object anywhere in the document names a member twice.
func repeatsAKey(_ node: JSONNode) -> Bool {
    switch node.kind {
    case .object(let members):
        var seen = Set<String>()
        for member in members {
            if !seen.insert(member.key).inserted || repeatsAKey(member.value) { return true }
        }
        return false
    case .array(let items):
        return items.contains(where: repeatsAKey)
    default:
        return false
    }
}
