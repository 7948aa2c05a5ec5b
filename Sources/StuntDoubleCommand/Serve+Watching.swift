import Foundation
import StuntDouble
import StuntDoubleOpenAPI
import StuntDoubleServer
import StuntDoubleWireMock

extension Serve {
    /// What `serve` watches and reloads when it changes (as Prism does): each `--openapi` document with every file
    /// its references name, and the `--root` folder's mappings, body files and message mappings. A change that
    /// does not read (a broken edit, a removed document) is logged with where it breaks, and the last good version
    /// serves on.
    func watcher(
        servings: [OpenAPIOptions.Serving], loaded: [LoadedOpenAPIDocument], stubber: HTTPStubber,
        server: HTTPStubServer, root: URL?, display: String
    ) -> FileWatcher {
        let deviations: OpenAPIContract.Deviations = strict ? .refuse : .tolerate
        var watched: [FileWatcher.Watched] = zip(servings, loaded).map { serving, document in
            let current = Locked((serving, document))
            return FileWatcher.Watched(
                files: { current.withLock { $0.0.contract.sourceFiles } }, folders: [],
                reload: { Self.reload(current, into: stubber, deviations: deviations) })
        }
        if let root {
            let folders = (["mappings", "__files"] + StubFiles.messageFolderNames).map {
                root.appendingPathComponent($0)
            }
            watched.append(
                FileWatcher.Watched(
                    files: { [] }, folders: folders, reload: { Self.reloadStubFiles(of: server, display: display) }))
        }
        return FileWatcher(watched)
    }

    /// Reads a document again; on success it replaces the one served (a stateful one starts over), else the
    /// last good one serves on and the error says where the document breaks.
    private static func reload(
        _ current: Locked<(OpenAPIOptions.Serving, LoadedOpenAPIDocument)>, into stubber: HTTPStubber,
        deviations: OpenAPIContract.Deviations
    ) {
        let (serving, old) = current.withLock { $0 }
        let file = serving.contract.file
        do {
            var next = serving
            next.contract = try OpenAPIContract(contentsOf: URL(fileURLWithPath: file), deviations: deviations)
            // The new one first: no request finds neither.
            let document = next.load(into: stubber)
            stubber.unload(old)
            current.withLock { $0 = (next, document) }
            let contract = next.contract
            say(
                "Reloaded OpenAPI \(file) (\(contract.title), \(contract.operationCount) operation"
                    + "\(contract.operationCount == 1 ? "" : "s"))"
                    + (serving.answering.isStateful ? "; its --stateful collections start over" : ""))
            for warning in contract.warnings.prefix(20) {
                printError("warning: \(warning)")
            }
        } catch {
            printError("error: \(error)")
            printError("error: \(file) changed but cannot be read (above): still serving its last good version.")
        }
    }

    /// Reads the stub files again; with errors, the last good reading serves on.
    private static func reloadStubFiles(of server: HTTPStubServer, display: String) {
        do {
            guard let files = try server.reloadStubFiles() else { return }
            let count = files.mappingCount
            say("Reloaded \(count) stub\(count == 1 ? "" : "s") from \(display)")
            for diagnostic in files.diagnostics {
                printError(diagnostic.description)
            }
        } catch {
            for diagnostic in error.diagnostics {
                printError(diagnostic.description)
            }
            if error.diagnostics.isEmpty { printError("error: \(error.message)") }
            printError("error: the stub files changed but have errors (above): still serving their last good reading.")
        }
    }
}
