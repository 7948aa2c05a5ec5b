import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Darwin)
/// Darwin's spawn types are opaque pointers, set by their `init` functions.
typealias SpawnActions = posix_spawn_file_actions_t?
typealias SpawnAttributes = posix_spawnattr_t?
#else
typealias SpawnActions = posix_spawn_file_actions_t
typealias SpawnAttributes = posix_spawnattr_t
#endif

/// A program run by tests (curl, python3, the stuntdouble command), started with `posix_spawn`.
///
/// Not `Foundation.Process`: on Linux its `run()` reads past a buffer while listing `/proc/self/fd` and crashes
/// now and then in a process with many open files (swift-corelibs-foundation #5472, fixed after Swift
/// 6.3.1), which tests that hold a thousand sockets make likely. Output is collected as it arrives, so that
/// neither pipe fills up and stalls the program.
public final class ChildProcess: @unchecked Sendable {
    /// Why a program could not start.
    public struct SpawnError: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    private let lock = NSLock()
    private var output = Data()
    private var errorOutput = Data()
    private var exitStatus: Int32?
    private let pid: pid_t
    private let readers = DispatchGroup()

    /// What becomes of a program's standard output.
    public enum OutputReader: Sendable {
        /// Read to its end (``standardOutput``).
        case collected
        /// Read until this many bytes came, then closed, as `| head -c N` does: the program's later writes fail.
        case closedAfter(bytes: Int)
        /// Never read, as `| sleep 60` does: once the pipe is full, the program's writes wait.
        case neverRead
    }

    /// Starts a program, found on the `PATH` unless the path has a slash.
    /// - Parameters:
    ///   - program: The program's name or path.
    ///   - arguments: Its arguments.
    ///   - reader: What becomes of its standard output: collected by default.
    /// - Throws: ``SpawnError`` when the program cannot be started.
    public init(_ program: String, _ arguments: [String], standardOutput reader: OutputReader = .collected) throws {
        var outputPipe: [Int32] = [0, 0]
        var errorPipe: [Int32] = [0, 0]
        guard pipe(&outputPipe) == 0, pipe(&errorPipe) == 0 else {
            throw SpawnError(description: "pipe failed: \(String(cString: strerror(errno)))")
        }
        // Close-on-exec, so that other programs started meanwhile do not hold these pipes open.
        for descriptor in outputPipe + errorPipe {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        #if canImport(Darwin)
        var actions: SpawnActions = nil
        #else
        var actions = SpawnActions()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        Self.closeInheritedDescriptors(&actions)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            environment.forEach { free($0) }
        }
        // A child starts with no signal blocked and the terminating signals at their defaults: the thread that
        // spawns it (a Dispatch or Swift concurrency worker) may block or ignore some, and a child inherits both,
        // so that SIGTERM would never reach, say, a Python program.
        #if canImport(Darwin)
        var attributes: SpawnAttributes = nil
        #else
        var attributes = SpawnAttributes()
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        #if canImport(Darwin)
        // Darwin closes every descriptor the file actions do not name (see closeInheritedDescriptors).
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_CLOEXEC_DEFAULT))
        #else
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        #endif
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, program, &actions, &attributes, argv, environment)
        close(outputPipe[1])
        close(errorPipe[1])
        guard status == 0 else {
            close(outputPipe[0])
            close(errorPipe[0])
            throw SpawnError(description: "cannot run \(program): \(String(cString: strerror(status)))")
        }
        self.pid = pid
        switch reader {
        case .collected:
            collect(outputPipe[0]) { self.output.append($0) }
        case .closedAfter(let limit):
            collect(outputPipe[0], upTo: limit) { self.output.append($0) }
        case .neverRead:
            unread = outputPipe[0]
        }
        collect(errorPipe[0]) { self.errorOutput.append($0) }
    }

    /// The read end of a standard output that is never read, closed once the program ends.
    private var unread: Int32?

    deinit {
        if let unread { close(unread) }
    }

    /// Makes the child close every descriptor above standard error: SwiftNIO's sockets are not close-on-exec,
    /// and a child holding a copy of a test server's socket keeps its port bound and its connections open.
    /// (On Darwin, `POSIX_SPAWN_CLOEXEC_DEFAULT` does it: nothing to add.)
    private static func closeInheritedDescriptors(_ actions: inout SpawnActions) {
        #if !canImport(Darwin)
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<SpawnActions>, Int32) -> Int32
        // glibc 2.34 and later; not in the headers Swift imports, so looked up by name.
        if let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        #endif
    }

    /// Reads a pipe to its end (or `limit` bytes) on a thread of its own, then closes it.
    private func collect(_ descriptor: Int32, upTo limit: Int = .max, into append: @escaping @Sendable (Data) -> Void) {
        readers.enter()
        let lock = self.lock
        Thread.detachNewThread { [readers] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            var total = 0
            while total < limit {
                let count = read(descriptor, &buffer, min(buffer.count, limit - total))
                if count > 0 {
                    total += count
                    let chunk = Data(buffer[0..<count])
                    lock.withLock { append(chunk) }
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(descriptor)
            readers.leave()
        }
    }

    /// Standard output so far.
    public var standardOutput: String { lock.withLock { String(decoding: output, as: UTF8.self) } }
    /// Standard error so far.
    public var standardError: String { lock.withLock { String(decoding: errorOutput, as: UTF8.self) } }

    /// Whether the program still runs.
    public var isRunning: Bool { reap() == nil }
    /// The program's process id.
    public var processIdentifier: pid_t { pid }

    /// Sends a signal.
    public func signal(_ number: Int32) {
        kill(pid, number)
    }

    /// The exit status once the program ended (128 + the signal number when a signal ended it).
    @discardableResult
    private func reap() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        exitStatus = code
        return code
    }

    /// Waits for the program to end, then for its output; kills it after `timeout`.
    /// - Returns: Its exit status, or `nil` when it had to be killed.
    public func waitForExit(timeout: Duration = .seconds(120)) async throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while reap() == nil {
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                while reap() == nil { try await Task.sleep(for: .milliseconds(10)) }
                return nil
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        // The output pipes close when the program (and any child it left) ends.
        while readers.wait(timeout: .now()) == .timedOut {
            try await Task.sleep(for: .milliseconds(10))
        }
        return reap()
    }

    /// Whether a program runs and exits 0 (within 60 seconds), waiting for it on this thread: for test
    /// conditions, which are not `async`.
    /// - Parameters:
    ///   - program: The program's name or path.
    ///   - arguments: Its arguments.
    /// - Returns: Whether it exited 0.
    public static func succeeds(_ program: String, _ arguments: [String]) -> Bool {
        guard let process = try? ChildProcess(program, arguments) else { return false }
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning {
            if Date() > deadline {
                process.signal(SIGKILL)
                return false
            }
            usleep(10_000)
        }
        return process.reap() == 0
    }

    /// Runs a program to its end.
    /// - Returns: Its exit status (`nil` when it had to be killed after `timeout`) and outputs.
    public static func run(_ program: String, _ arguments: [String], timeout: Duration = .seconds(120)) async throws
        -> (status: Int32?, output: String, error: String)
    {
        let process = try ChildProcess(program, arguments)
        let status = try await process.waitForExit(timeout: timeout)
        return (status, process.standardOutput, process.standardError)
    }
}

/// Whether a test that needs an outside program (curl, Chromium, a Python package) runs: when the program is
/// there, and always under CI (`CI=true`), where `.ci/run` installs it, so that a missing program fails the
/// run there instead of skipping the test.
/// - Parameter isInstalled: Whether the program is installed.
/// - Returns: Whether to run the test.
public func runsWithOutsideProgram(_ isInstalled: @autoclosure () -> Bool) -> Bool {
    ProcessInfo.processInfo.environment["CI"] == "true" || isInstalled()
}
