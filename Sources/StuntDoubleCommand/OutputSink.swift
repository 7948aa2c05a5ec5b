import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the command's lines go (standard output or standard error) without ever blocking the caller or taking
/// the process down.
///
/// Lines are queued and a thread of the sink's own writes them. When the output is not read (`serve | sleep`),
/// that thread waits, and the lines that no longer fit in the queue (1 MiB) are dropped and counted: the server's
/// event loops, which log every request, never wait for a reader. When the output is closed
/// (`serve | head -c 10`), writing fails with EPIPE (SIGPIPE is ignored, see ``ignoreBrokenPipes()``) and the sink
/// stops writing; the server goes on serving.
final class OutputSink: @unchecked Sendable {
    /// Standard output: the listing and the request log.
    static let standardOutput = OutputSink(descriptor: 1)
    /// Standard error: diagnostics.
    static let standardError = OutputSink(descriptor: 2)

    /// The most bytes queued; lines beyond are dropped.
    static let capacity = 1 << 20

    private let descriptor: Int32
    private let condition = NSCondition()
    // Guarded by `condition`:
    private var queued: [String] = []
    private var queuedBytes = 0
    private var dropped = 0
    /// Dropped since the last note saying so.
    private var droppedUnreported = 0
    private var isClosed = false
    private var isWriting = false
    private var writer: Thread?

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// How many lines were dropped because the output was not read, or was closed.
    var droppedLineCount: Int {
        condition.withLock { dropped }
    }

    /// Queues a line (a newline is added); never waits.
    func write(_ line: String) {
        condition.withLock {
            let size = line.utf8.count + 1
            guard !isClosed, queuedBytes + size <= Self.capacity else {
                dropped += 1
                droppedUnreported += 1
                return
            }
            queued.append(line)
            queuedBytes += size
            if writer == nil {
                let thread = Thread { [self] in run() }
                thread.name = "stuntdouble output \(descriptor)"
                writer = thread
                thread.start()
            }
            condition.signal()
        }
    }

    /// Waits until every queued line is written (or the output closed), for up to `timeout`: before the
    /// process exits.
    func flush(timeout: Duration = .seconds(2)) {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds))
        condition.withLock {
            while !isClosed, !queued.isEmpty || isWriting, Date() < deadline {
                _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.05)))
            }
        }
    }

    private func run() {
        while true {
            let (lines, note) = condition.withLock { () -> ([String], String?) in
                while queued.isEmpty {
                    condition.wait()
                }
                defer {
                    queued = []
                    queuedBytes = 0
                    droppedUnreported = 0
                    isWriting = true
                }
                let note =
                    droppedUnreported > 0
                    ? "stuntdouble: \(droppedUnreported) line\(droppedUnreported == 1 ? "" : "s") dropped: the output "
                        + "was not read fast enough (\(dropped) in all)" : nil
                return (queued, note)
            }
            var text = note.map { $0 + "\n" } ?? ""
            for line in lines {
                text += line
                text += "\n"
            }
            let written = writeAll(Array(text.utf8))
            condition.withLock {
                isWriting = false
                if !written {
                    // EPIPE (nobody reads any more) or another error: stop writing, keep counting.
                    isClosed = true
                    dropped += lines.count + queued.count
                    queued = []
                    queuedBytes = 0
                }
                condition.broadcast()
            }
            if !written { return }
        }
    }

    /// Writes every byte; `false` when the output failed.
    private func writeAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { raw in
                #if canImport(Darwin)
                Darwin.write(descriptor, raw.baseAddress, raw.count)
                #elseif canImport(Glibc)
                Glibc.write(descriptor, raw.baseAddress, raw.count)
                #else
                Musl.write(descriptor, raw.baseAddress, raw.count)
                #endif
            }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    // A non-blocking descriptor (some terminals): wait for it rather than spin.
                    usleep(1000)
                    continue
                }
                return false
            }
            offset += count
        }
        return true
    }

    /// Makes a write to a closed pipe fail with EPIPE instead of killing the process with SIGPIPE.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Flushes both outputs (before the process exits).
    static func flushAll() {
        standardOutput.flush()
        standardError.flush()
    }
}
