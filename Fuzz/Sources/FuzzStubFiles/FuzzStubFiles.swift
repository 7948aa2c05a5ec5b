// Input: the bytes of a stub file (WireMock's mapping format).

import Foundation
import FuzzSupport

@testable import StuntDouble
@testable import StuntDoubleWireMock

/// Requests every mapping that loads is asked about: matchers of every kind run on them.
let probes: [HTTPIncomingRequest] = [
    try! HTTPIncomingRequest(method: .get, url: URL(string: "http://127.0.0.1:8080/")!),
    try! HTTPIncomingRequest(
        method: .post, url: URL(string: "http://127.0.0.1:8080/users/42?q=a+b&tag=x&tag=y")!,
        headers: [
            "Content-Type": "application/json", "Cookie": "session=abc; theme=dark", "Authorization": "Basic eDp5",
        ],
        body: Data(#"{"name": "mark", "items": [{"price": 5, "tags": ["a"]}, {"price": 12.5}], "ok": true}"#.utf8)),
    try! HTTPIncomingRequest(
        method: .put, url: URL(string: "http://localhost/a%20b/c;d?x")!, headers: ["X": "1"], body: Data([0, 255, 10])),
]

/// libFuzzer's entry point: checks one input; a violated property aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var reader = StubFileReader(file: "fuzz.json", bytes: bytes, filesDirectory: nil)
    reader.read()
    // Every diagnostic points into the file, and names what is wrong.
    let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    for diagnostic in reader.diagnostics {
        require(
            diagnostic.line >= 1 && diagnostic.line <= lines.count && diagnostic.column >= 1
                && diagnostic.column <= lines[diagnostic.line - 1].count + 1,
            "\(diagnostic) points outside the file")
        require(!diagnostic.message.isEmpty, "a diagnostic without a message")
        _ = diagnostic.description
    }
    let files = StubFiles(json: Data(bytes), name: "fuzz.json", filesDirectory: nil)
    let stubber = HTTPStubber(journalCapacity: 0)
    do {
        let mappings = try stubber.load(files)
        // A file without errors loads, every mapping of it.
        require(files.errors.isEmpty, "the files loaded despite errors")
        require(mappings.count == reader.specs.count, "\(reader.specs.count) mappings read, \(mappings.count) loaded")
        for mapping in mappings {
            _ = mapping.description
            _ = mapping.requestSummary
        }
        for probe in probes {
            switch stubber.decision(for: probe) {
            case .stub(let plan):
                _ = plan.chunks
                // An event stream's events read back from its body, one for each event with a field.
                if let events = plan.events {
                    require(
                        events.count <= plan.chunks.count, "\(events.count) events from \(plan.chunks.count) chunks")
                }
            case .unmatched(let report): _ = report.description
            case .passThrough: break
            }
        }
    } catch {
        require(!files.errors.isEmpty, "load threw \(error) without errors")
        require(error.code == .invalidStubFile, "load threw \(error.code)")
    }
    return 0
}
