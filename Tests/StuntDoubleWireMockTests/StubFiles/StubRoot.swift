import Foundation
import StuntDouble
import StuntDoubleWireMock

/// A stub-file root in a temporary folder, written for one test and removed with it.
final class StubRoot {
    let url: URL

    /// Writes files (paths relative to the root, such as `mappings/users.json`).
    init(_ files: [String: String]) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("stubroot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        for (path, text) in files {
            try write(path, Data(text.utf8))
        }
    }

    /// A root with one mapping file.
    convenience init(mapping json: String) throws {
        try self.init(["mappings/stub.json": json])
    }

    func write(_ path: String, _ data: Data) throws {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The files, read.
    var files: StubFiles { StubFiles(root: url) }

    /// A stubber with the files loaded.
    func stubber() throws -> HTTPStubber {
        let stubber = HTTPStubber()
        try stubber.load(stubFilesAt: url)
        return stubber
    }

    /// The diagnostics, as `line:column: severity: field: message` (without the file).
    var problems: [String] {
        files.diagnostics.map {
            "\($0.line):\($0.column): \($0.severity.rawValue): \($0.field.map { "\($0): " } ?? "")\($0.message)"
        }
    }
}
