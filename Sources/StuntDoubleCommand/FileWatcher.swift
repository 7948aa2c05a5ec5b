import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// What the files and folders hold now; a file that is missing is left out (its absence is a change). Read
    /// with `stat` and `readdir` (Foundation's file attributes cost tens of times more: a look at 1,000 files
    /// showed in the server's instruction counts).
    static func snapshot(files: [URL], folders: [URL]) -> Snapshot {
        var snapshot = Snapshot()
        func stamp(_ path: String, _ info: stat) {
            #if os(Linux)
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            #else
            let modified = Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9
            #endif
            snapshot.files[path] = Stamp(size: Int(info.st_size), modified: modified)
        }
        func kind(_ info: stat) -> mode_t { info.st_mode & mode_t(S_IFMT) }
        func walk(_ folder: String, depth: Int) {
            guard depth < 32, let directory = opendir(folder) else { return }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                let path = folder + "/" + name
                var info = stat()
                guard stat(path, &info) == 0 else { continue }
                if kind(info) == mode_t(S_IFDIR) {
                    walk(path, depth: depth + 1)
                } else if kind(info) == mode_t(S_IFREG) {
                    stamp(path, info)
                }
            }
        }
        for file in files {
            var info = stat()
            if stat(file.path, &info) == 0, kind(info) == mode_t(S_IFREG) { stamp(file.path, info) }
        }
        for folder in folders { walk(folder.path, depth: 0) }
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
