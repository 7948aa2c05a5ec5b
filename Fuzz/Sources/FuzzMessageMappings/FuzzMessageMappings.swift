// Input: the bytes of a message-mapping file (WireMock's `message-mappings/*.json`: one mapping, or
// {"messageMappings": [...]}).
//
// Properties: reading never traps, and every error names its line; a mapping that reads, written back as the
// admin API lists it (its JSON with its id) and read again, is the same mapping: the same id, name, priority,
// trigger and actions, and the same JSON. Each mapping also becomes a stub without trapping.

import Foundation
import FuzzSupport

@testable import StuntDouble
@testable import StuntDoubleWireMock

/// libFuzzer's entry point: checks one input; a violated property aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let (specs, diagnostics) = StubFiles.readMessageMappings(json: bytes, name: "fuzz.json", filesDirectory: nil)
    for diagnostic in diagnostics {
        require(!diagnostic.message.isEmpty, "a diagnostic without a message")
        require(diagnostic.line >= 1, "a diagnostic at line \(diagnostic.line): \(diagnostic.message)")
    }
    for spec in specs {
        _ = spec.makeStub()
        let written = withID(spec.json, spec.id).rendered(pretty: true)
        let (again, problems) = StubFiles.readMessageMappings(
            json: Data(written.utf8), name: "written.json", filesDirectory: nil)
        require(
            again.count == 1,
            "a mapping written back reads as \(again.count) mappings: \(problems.map(\.message)) in \(written)")
        let reread = again[0]
        require(reread.id == spec.id, "the id changed: \(spec.id) then \(reread.id)")
        require(reread.name == spec.name, "the name changed: \(String(describing: spec.name))")
        require(reread.priority == spec.priority, "the priority changed")
        require(reread.summary == spec.summary, "the trigger changed: \(spec.summary) then \(reread.summary)")
        require(reread.actions.count == spec.actions.count, "the actions changed in \(written)")
        require(reread.json.rendered(pretty: true) == written, "the JSON changed: \(written)")
    }
    return 0
}

/// The mapping's JSON with `id` set to its id, first, as the admin API lists it (a mapping read without one
/// gets one made from its file and place, which another file would not give it).
func withID(_ json: JSONNode, _ id: UUID) -> JSONNode {
    let others = (json.members ?? []).filter { $0.key != "id" && $0.key != "uuid" }
    return JSONNode(
        kind: .object([JSONNode.Member(key: "id", value: .string(id.uuidString.lowercased()))] + others))
}
