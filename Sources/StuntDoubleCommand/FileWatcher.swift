import Foundation

/// Watches files and folders for changes by looking at every file's size and modification time, over and over:
/// the same on Linux and macOS, with no file-system events to miss or overflow. `serve` reloads what changed.
///
/// A change is acted on once it has settled (two looks in a row see the same files), so that a file still being
/// written is not read half done. Each look costs a stat per file; the watcher waits at least 20 times as long
/// as its last look took (and at least `interval`), so that a root of 10,000 files costs a few percent of one core
/// at most.
final class FileWatcher: Sendable {
    /// What one look saw: each file's path, size and modification time.
    struct Snapshot: Equatable, Sendable {
        var files: [String: Stamp] = [:]
    }

    /// A file's size and modification time.
    struct Stamp: Equatable, Sendable {
        let size: Int
        let modified: Double
    }

    /// One thing watched: the files it is (a document, and the files its references name) or the folders it
    /// holds (a stub root), and what to do when they change.
    struct Watched: Sendable {
        /// What the files are now (they can change with each reload: a document's references).
        let files: @Sendable () -> [URL]
        /// Folders whose files, at any depth, are watched.
        let folders: [URL]
        /// Reads the files again.
        let reload: @Sendable () async -> Void
    }

    let watched: [Watched]
    let interval: Duration

    init(_ watched: [Watched], interval: Duration = .milliseconds(500)) {
        self.watched = watched
        self.interval = interval
    }

    /// What the files and folders hold now; a file that is missing is left out (its absence is a change).
    static func snapshot(files: [URL], folders: [URL]) -> Snapshot {
        var snapshot = Snapshot()
        let manager = FileManager.default
        func stamp(_ url: URL) {
            guard let attributes = try? manager.attributesOfItem(atPath: url.path),
                attributes[.type] as? FileAttributeType != .typeDirectory
            else { return }
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSinceReferenceDate ?? 0
            snapshot.files[url.path] = Stamp(size: size, modified: modified)
        }
        for file in files { stamp(file) }
        for folder in folders {
            guard let enumerator = manager.enumerator(atPath: folder.path) else { continue }
            while let relative = enumerator.nextObject() as? String {
                stamp(folder.appendingPathComponent(relative))
            }
        }
        return snapshot
    }

    /// Looks until the task is cancelled, reloading each watched thing whose files changed and settled.
    func run() async {
        var seen = watched.map { Self.snapshot(files: $0.files(), folders: $0.folders) }
        var pending: [Snapshot?] = Array(repeating: nil, count: watched.count)
        while !Task.isCancelled {
            let started = ContinuousClock.now
            for (index, item) in watched.enumerated() {
                let now = Self.snapshot(files: item.files(), folders: item.folders)
                if now == seen[index] {
                    pending[index] = nil
                } else if now == pending[index] {
                    // Settled: the same change on two looks in a row.
                    await item.reload()
                    // What the reload read (a document's references may be others now).
                    seen[index] = Self.snapshot(files: item.files(), folders: item.folders)
                    pending[index] = nil
                } else {
                    pending[index] = now
                }
            }
            let took = ContinuousClock.now - started
            try? await Task.sleep(for: max(interval, took * 20))
        }
    }
}
