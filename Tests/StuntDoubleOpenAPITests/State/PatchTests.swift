import Foundation
import Testing

@testable import StuntDoubleOpenAPI

/// JSON Merge Patch (RFC 7396) and JSON Patch (RFC 6902), as the stateful mock applies them to a resource.
@Suite struct PatchTests {
    private func value(_ json: String) throws -> SchemaValue {
        try SchemaValue.parse(Data(json.utf8))
    }

    @Test(arguments: [
        (#"{"a": 1, "b": {"c": 2, "d": 3}}"#, #"{"a": null, "b": {"c": 9}}"#, #"{"b": {"c": 9, "d": 3}}"#),
        (#"{"tags": [1, 2]}"#, #"{"tags": [3]}"#, #"{"tags": [3]}"#),
        (#"{"a": 1}"#, #"{"b": {"c": null, "d": 4}}"#, #"{"a": 1, "b": {"d": 4}}"#),
        (#"{"a": 1}"#, #"[1]"#, #"[1]"#),
        (#"[1]"#, #"{"a": 1}"#, #"{"a": 1}"#),
        (#"{"a": 1}"#, #"{}"#, #"{"a": 1}"#),
    ])
    func aMergePatchChangesWhatItNames(original: String, patch: String, expected: String) throws {
        #expect(try value(original).mergePatched(with: try value(patch)) == (try value(expected)))
    }

    @Test(arguments: [
        (#"{"a": 1}"#, #"[{"op": "add", "path": "/b", "value": [1]}]"#, #"{"a": 1, "b": [1]}"#),
        (#"{"l": [1, 3]}"#, #"[{"op": "add", "path": "/l/1", "value": 2}]"#, #"{"l": [1, 2, 3]}"#),
        (#"{"l": [1]}"#, #"[{"op": "add", "path": "/l/-", "value": 2}]"#, #"{"l": [1, 2]}"#),
        (#"{"a": 1}"#, #"[{"op": "add", "path": "", "value": {"z": 0}}]"#, #"{"z": 0}"#),
        (#"{"a": 1, "b": 2}"#, #"[{"op": "remove", "path": "/a"}]"#, #"{"b": 2}"#),
        (#"{"l": [1, 2, 3]}"#, #"[{"op": "remove", "path": "/l/0"}]"#, #"{"l": [2, 3]}"#),
        (#"{"a": 1}"#, #"[{"op": "replace", "path": "/a", "value": "x"}]"#, #"{"a": "x"}"#),
        (#"{"a": {"b": 1}}"#, #"[{"op": "move", "from": "/a/b", "path": "/c"}]"#, #"{"a": {}, "c": 1}"#),
        (#"{"a": [1]}"#, #"[{"op": "copy", "from": "/a", "path": "/b"}]"#, #"{"a": [1], "b": [1]}"#),
        (#"{"n": 1}"#, #"[{"op": "test", "path": "/n", "value": 1.0}]"#, #"{"n": 1}"#),
        (#"{"a/b": 1, "m~n": 2}"#, #"[{"op": "remove", "path": "/a~1b"}, {"op": "remove", "path": "/m~0n"}]"#, #"{}"#),
    ])
    func aJSONPatchAppliesEveryOperationInOrder(original: String, patch: String, expected: String) throws {
        #expect(try value(original).jsonPatched(with: try value(patch)) == (try value(expected)))
    }

    @Test(arguments: [
        (#"{"op": "remove", "path": "/missing"}"#, 409, "/missing is not there"),
        (#"{"op": "replace", "path": "/missing", "value": 1}"#, 409, "/missing is not there"),
        (#"{"op": "add", "path": "/l/5", "value": 1}"#, 409, "past the array's end"),
        (#"{"op": "add", "path": "/a/b/c", "value": 1}"#, 409, "/a/b/c"),
        (#"{"op": "test", "path": "/a", "value": 2}"#, 409, "/a is 1, not 2"),
        (#"{"op": "move", "from": "/l", "path": "/l/0"}"#, 422, "moves /l/0 into itself"),
        (#"{"op": "copy", "path": "/b"}"#, 422, "has no from"),
        (#"{"op": "add", "path": "/b"}"#, 422, "has no value"),
        (#"{"op": "append", "path": "/b", "value": 1}"#, 422, "\"append\" is no JSON Patch op"),
        (#"{"op": "add", "path": "b", "value": 1}"#, 422, "\"b\" is no JSON Pointer"),
        (#"{"path": "/b"}"#, 422, "has no op"),
        (#"{"op": "remove", "path": ""}"#, 422, "the whole resource cannot be removed"),
    ])
    func aPatchThatCannotApplySaysWhy(operation: String, status: Int, words: String) throws {
        let original = try value(#"{"a": 1, "l": [1]}"#)
        let patch = try value("[\(operation)]")
        do throws(PatchFailure) {
            _ = try original.jsonPatched(with: patch)
            Issue.record("\(operation) applied")
        } catch {
            #expect(error.status == status)
            #expect(error.message.contains(words), "\(error.message)")
        }
    }

    @Test func aPatchThatIsNoArrayIsRefused() throws {
        #expect(throws: PatchFailure.self) { try (try value("{}")).jsonPatched(with: try value(#"{"op": "add"}"#)) }
    }
}
