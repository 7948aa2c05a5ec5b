import Foundation
import StuntDouble
import StuntDoubleWireMock

/// `/__admin/files`: the body files under the root's `__files/`, listed, read, written and deleted (WireMock's
/// `GetAllStubFilesTask`, `EditStubFileTask`, `DeleteStubFileTask`). A name never leads outside `__files/`.
///
/// A mapping's `bodyFileName` is read when the mappings are loaded: a file written here serves once the mappings
/// are read again (`POST /__admin/mappings/reset`), and at once to templated names and static `__files/` GETs.
extension AdminAPI {
    /// `GET /__admin/files`: every file's path relative to `__files/`, sorted (WireMock 2.35.1 lists absolute
    /// paths, which no other endpoint takes).
    func listFiles() -> AdminResponse {
        guard let folder = store.root?.appendingPathComponent("__files") else { return .json(.array([])) }
        let base = folder.resolvingSymlinksInPath().path
        let names =
            (FileManager.default.enumerator(atPath: base)?.allObjects as? [String] ?? [])
            .filter { name in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: base + "/" + name, isDirectory: &isDirectory)
                    && !isDirectory.boolValue
            }
            .sorted()
        return .json(.array(names.map(JSONNode.string)))
    }

    /// `GET /__admin/files/{name}`: the file's bytes.
    func file(_ name: String) -> AdminResponse {
        switch fileURL(name, writing: false) {
        case .failure(let failure): return failure.response
        case .success(let url):
            guard let data = FileManager.default.contents(atPath: url.path), !Self.isFolder(url) else {
                return .error(404, "No file \(name) in __files/.")
            }
            return AdminResponse(status: 200, contentType: "application/octet-stream", body: data)
        }
    }

    /// `PUT /__admin/files/{name}`: writes the request body to the file (making its folders); answers it in
    /// Base64, as WireMock does.
    func writeFile(_ name: String, _ body: Data) -> AdminResponse {
        switch fileURL(name, writing: true) {
        case .failure(let failure): return failure.response
        case .success(let url):
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try body.write(to: url, options: .atomic)
            } catch {
                return .error(500, "The file \(name) could not be written to __files/: \(error.localizedDescription)")
            }
            // As WireMock answers: the bytes written, as a JSON string in Base64.
            return .json(.string(body.base64EncodedString()))
        }
    }

    /// `DELETE /__admin/files/{name}`.
    func deleteFile(_ name: String) -> AdminResponse {
        switch fileURL(name, writing: true) {
        case .failure(let failure): return failure.response
        case .success(let url):
            guard FileManager.default.fileExists(atPath: url.path), !Self.isFolder(url) else {
                return .error(404, "No file \(name) in __files/.")
            }
            do {
                try FileManager.default.removeItem(at: url)
            } catch {
                return .error(500, "The file \(name) could not be deleted: \(error.localizedDescription)")
            }
            return .json(.object([]))
        }
    }

    /// Where a file of `__files/` is: only inside it, and, for writing, in a root folder that is the user's.
    private func fileURL(_ name: String, writing: Bool) -> Result<URL, AdminFailure> {
        let root: URL
        if writing {
            switch store.writableRoot() {
            case .success(let url): root = url
            case .failure(let failure): return .failure(AdminFailure(Self.response(for: failure)))
            }
        } else {
            guard let url = store.root else {
                return .failure(AdminFailure(.error(404, "No file \(name): the server has no root folder.")))
            }
            root = url
        }
        guard let url = StubFiles.fileURL(named: name, in: root.appendingPathComponent("__files")) else {
            return .failure(
                AdminFailure(
                    .error(
                        422,
                        "\"\(name)\" leads outside __files/ (an absolute path, .., or a symbolic link out); name a "
                            + "file inside it, such as users/42.json.")))
        }
        return .success(url)
    }

    private static func isFolder(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
