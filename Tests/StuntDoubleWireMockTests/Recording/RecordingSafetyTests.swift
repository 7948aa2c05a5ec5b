import Foundation
import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a recording must never write or lose: form fields named for redaction (as JSON fields are), and the
/// previous recording when a save was killed half way.
@Suite struct RecordingSafetyTests {
    func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("recording-safety-\(UUID().uuidString)")
    }

    func everyByte(under root: URL) -> String {
        var text = ""
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        while let path = enumerator?.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) {
                text += String(decoding: data, as: UTF8.self)
            }
        }
        return text
    }

    @Test func formFieldsAreRedactedByTheJSONFieldNames() throws {
        let root = folder()
        defer { try? FileManager.default.removeItem(at: root) }
        var options = HTTPRecording.Options()
        options.redactedJSONFields = ["password", "token"]
        options.matchesBody = true
        var request = URLRequest(url: URL(string: "https://login.test/session")!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("user=mark&password=hunter2&remember=1".utf8)
        let exchange = HTTPRecordedExchange(
            request: try HTTPIncomingRequest(request),
            response: HTTPRecordedResponse(
                statusCode: 200, headers: [("Content-Type", "application/x-www-form-urlencoded")]),
            body: Data("token=s3cr3t&expires=60".utf8))
        _ = try HTTPRecording.write([exchange], to: root, options: options)
        let written = everyByte(under: root)
        #expect(!written.contains("hunter2") && !written.contains("s3cr3t"), "\(written)")
        #expect(written.contains("token=REDACTED&expires=60"))
        // On replay, the redacted field matches any value; the others as recorded.
        let stubber = HTTPStubber()
        try stubber.load(stubFilesAt: root)
        request.httpBody = Data("user=mark&password=other&remember=1".utf8)
        #expect(try stubber.decision(for: request).plan != nil)
        request.httpBody = Data("user=eve&password=hunter2&remember=1".utf8)
        #expect(try stubber.decision(for: request).plan == nil)
    }

    @Test func aKilledSavesLeftoversAreCleanedAndTheRecordingRestored() throws {
        let root = folder()
        let parent = root.deletingLastPathComponent()
        let name = root.lastPathComponent
        let manager = FileManager.default
        // A save killed after setting the recording aside, before the new one took its place; and another
        // killed while writing. Process 999999 runs on no machine.
        let previous = parent.appendingPathComponent(".\(name).previous-999999-abcd1234")
        let staging = parent.appendingPathComponent(".\(name).writing-999999-abcd1234")
        try manager.createDirectory(at: previous.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try Data(#"{"request": {"url": "/kept"}, "response": {"body": "kept"}}"#.utf8)
            .write(to: previous.appendingPathComponent("mappings/kept.json"))
        try manager.createDirectory(at: staging.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        // A save in progress in a process that runs (this one) is left alone.
        let running = parent.appendingPathComponent(
            ".\(name).writing-\(ProcessInfo.processInfo.processIdentifier)-ffff0000")
        try manager.createDirectory(at: running, withIntermediateDirectories: true)
        defer {
            for url in [root, previous, staging, running] { try? manager.removeItem(at: url) }
        }

        let recording = try HTTPRecording(root: root, mode: .once, environment: [:])
        #expect(recording.mode == .replay, "the set-aside recording is back, so there is something to replay")
        #expect(manager.fileExists(atPath: root.appendingPathComponent("mappings/kept.json").path))
        #expect(!manager.fileExists(atPath: previous.path))
        #expect(!manager.fileExists(atPath: staging.path))
        #expect(manager.fileExists(atPath: running.path))
    }
}
