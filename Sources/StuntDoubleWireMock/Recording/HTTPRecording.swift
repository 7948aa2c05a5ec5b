import Foundation
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Real HTTP exchanges, recorded once as stub files (WireMock's `mappings/` and `__files/`) and replayed
/// forever after.
///
/// ```swift
/// let stubber = HTTPStubber()
/// let recording = try stubber.record(to: fixtures.appendingPathComponent("GitHub"), mode: .once)
/// let session = stubber.session()              // or stubber.stubSession(), or HTTPStubber.shared.enable()
/// _ = try await session.data(from: URL(string: "https://api.github.com/users/mark/repos")!)
/// try recording.save()                         // the first run writes the files; later runs replay them
/// ```
///
/// While it records, requests that no stub matches go to the network through a real `URLSession`, and the
/// caller gets the real answer; ``save()`` writes each exchange as a mapping. While it replays, the files are
/// stubs like any others: an unrecorded request fails with the near-miss report, and nothing reaches the
/// network. The ``modeVariable`` environment variable switches every recording of a test run to one mode.
///
/// The files are for review: pretty JSON with sorted keys, JSON bodies as JSON, text as text, binary bodies in
/// `__files/`, no timestamps or random ids, so recording the same exchanges twice writes the same bytes.
/// Secrets are redacted before anything is written (``Options``).
public final class HTTPRecording: HTTPExchangeRecorder {
    /// What a recording does.
    public enum Mode: String, Sendable, CaseIterable, CustomStringConvertible {
        /// Every request no stub matches goes to the network, and ``HTTPRecording/save()`` replaces the
        /// recording with what was received.
        case record
        /// Nothing goes to the network: the recording's files answer, and a request they do not cover fails
        /// with the near-miss report.
        case replay
        /// ``record`` when the recording has no files yet, ``replay`` when it has.
        case once
        /// The files answer what they cover; what they do not goes to the network and is added to them.
        case newEpisodes = "new_episodes"

        /// The name, as the environment variable takes it (`new_episodes`).
        public var description: String { rawValue }
    }

    /// The environment variable that sets every recording's mode for a run (`record`, `replay`, `once` or
    /// `new_episodes`), whatever the code asks for: `STUNTDOUBLE_RECORD_MODE=record swift test` re-records a
    /// suite.
    public static let modeVariable = "STUNTDOUBLE_RECORD_MODE"

    /// What is recorded, redacted, and matched on replay.
    public struct Options: Sendable {
        /// Headers whose values are never written (request and response, names ignoring case). By default
        /// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`.
        public var redactedHeaders: Set<String> = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]
        /// Query parameters whose values are never written; the replayed request matches any value.
        public var redactedQueryParameters: Set<String> = []
        /// JSON object fields (by name, at any depth) whose values are never written, in request and response
        /// bodies. A redacted request field matches any value on replay.
        public var redactedJSONFields: Set<String> = []
        /// What replaces a redacted value in a file.
        public var redactionMarker = "REDACTED"
        /// Whether a replayed request must have the recorded body too (JSON compared as JSON). Method and URL
        /// always count.
        public var matchesBody = false
        /// Request headers a replayed request must have with the recorded values (a redacted one: any value).
        public var matchedHeaders: [String] = []
        /// Response headers not written because they change from run to run or describe the connection
        /// rather than the response (`Date`, `Content-Length`, ...). Names ignore case.
        public var droppedResponseHeaders: Set<String> = [
            "Date", "Age", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Content-Encoding",
        ]
        /// Called with every stub loaded from the recording for replay, to add matchers of your own
        /// (`stub.match(...)`), or change its priority.
        public var configureReplayStub: (@Sendable (HTTPStubRequest) -> Void)?
        /// Extensions that write the requests they recognize with their own matcher: with
        /// `StubFileExtension.graphQL`, a GraphQL operation is written as a `graphql-body-matcher` of its query,
        /// variables and operation name (whatever ``matchesBody`` says), named after the operation, and replayed
        /// by operation rather than in the order of every request to the same URL. A recording that replays
        /// loads its files with these extensions; load them elsewhere with the same.
        public var extensions: [StubFileExtension] = []

        /// The defaults: match on method and URL, redact the credential headers.
        public init() {}
    }

    /// The folder holding the recording's `mappings/` and `__files/`.
    public let root: URL
    /// The mode asked for in code.
    public let requestedMode: Mode
    /// The mode in effect: the environment variable's, if set, else the requested one; ``Mode/once`` is
    /// resolved to ``Mode/record`` or ``Mode/replay`` by whether the recording has files.
    public let mode: Mode
    /// What is redacted and matched.
    public let options: Options

    private struct State: Sendable {
        var exchanges: [HTTPRecordedExchange] = []
        var failures: [String] = []
    }

    private let state = Locked(State())

    /// Creates a recording of a folder; `HTTPStubber.record(to:mode:options:environment:)` makes one and attaches it.
    /// - Parameters:
    ///   - root: The folder (created when the recording is saved).
    ///   - mode: The mode, unless the ``modeVariable`` environment variable says otherwise.
    ///   - options: Redaction and replay matching.
    ///   - environment: Where to read ``modeVariable`` (the process's environment by default).
    /// - Throws: `HTTPStubberError.Code.invalidRecordingMode` when the environment variable names no mode.
    public init(
        root: URL, mode: Mode = .once, options: Options = Options(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(HTTPStubberError) {
        self.root = root.standardizedFileURL
        self.requestedMode = mode
        self.options = options
        var effective = mode
        if let value = environment[Self.modeVariable], !value.isEmpty {
            guard
                let named = Mode(rawValue: value.lowercased())
                    ?? (value.lowercased() == "newepisodes" ? .newEpisodes : nil)
            else {
                throw HTTPStubberError(
                    code: .invalidRecordingMode,
                    message: "\(Self.modeVariable) is \"\(value)\", which is no recording mode; use one of "
                        + Mode.allCases.map(\.rawValue).joined(separator: ", ") + ", or unset it.")
            }
            effective = named
        }
        // A save that a killed process left half done: its staging folder goes, a set-aside recording comes back.
        Self.cleanUpInterruptedSaves(of: self.root)
        if effective == .once {
            effective = Self.hasMappings(at: self.root) ? .replay : .record
        }
        self.mode = effective
    }

    /// Whether requests no stub matches go to the network and are recorded.
    public var records: Bool { mode == .record || mode == .newEpisodes }

    /// Whether the recording's files answer requests.
    var replays: Bool { mode == .replay || mode == .newEpisodes }

    /// The exchanges recorded so far in this run, in the order they completed.
    public var exchanges: [HTTPRecordedExchange] { state.withLock { $0.exchanges } }

    /// The folder and the mode.
    public var description: String { "recording \(root.path), \(mode)" }

    /// Keeps an exchange that went to the network.
    public func add(_ request: HTTPIncomingRequest, response: HTTPURLResponse?, body: Data?, error: (any Error)?) {
        add(request, response: response, body: body, error: error, arrivals: [])
    }

    /// Keeps an exchange that went to the network, with when its parts came (an event stream's pace).
    public func add(
        _ request: HTTPIncomingRequest, response: HTTPURLResponse?, body: Data?, error: (any Error)?,
        arrivals: [HTTPRecordedExchange.Arrival]
    ) {
        state.withLock { state in
            if let response, error == nil {
                state.exchanges.append(
                    HTTPRecordedExchange(
                        request: request, response: HTTPRecordedResponse(response), body: body ?? Data(),
                        arrivals: arrivals))
            } else {
                let reason = error.map { "\($0.localizedDescription)" } ?? "no response"
                state.failures.append("\(request.method) \(request.url.absoluteString): \(reason)")
            }
        }
    }

    /// Keeps an exchange that a proxy (the stub server) forwarded: the upstream's status, headers and body, and
    /// when they arrived; `contractNotes`, what a validating proxy found wrong with it.
    package func add(
        _ request: HTTPIncomingRequest, status: Int, headers: [(name: String, value: String)], body: Data,
        arrivals: [HTTPRecordedExchange.Arrival] = [], contractNotes: [String] = []
    ) {
        let response = HTTPRecordedResponse(statusCode: status, headers: headers)
        let exchange = HTTPRecordedExchange(
            request: request, response: response, body: body, arrivals: arrivals, contractNotes: contractNotes)
        state.withLock { $0.exchanges.append(exchange) }
    }

    /// Notes a recorded request that failed: ``save()`` then refuses, naming it.
    package func addFailure(_ request: HTTPIncomingRequest, reason: String) {
        state.withLock { $0.failures.append("\(request.method) \(request.url.absoluteString): \(reason)") }
    }

    /// Writes what was recorded: in ``Mode/record``, the recording's files are replaced by this run's
    /// exchanges; in ``Mode/newEpisodes`` this run's exchanges are added to them; when replaying, nothing is
    /// written. The files are written to a temporary folder beside the recording and moved into place only when
    /// all of them are written, so a failure leaves the previous recording as it was.
    /// - Returns: How many mappings were written.
    /// - Throws: `HTTPStubberError.Code.recordingFailed` when a recorded request failed on the network (each
    ///   is named; nothing is written, since a recording without them would replay differently), or when the
    ///   folder cannot be written.
    @discardableResult
    public func save() throws(HTTPStubberError) -> Int {
        guard records else { return 0 }
        let (exchanges, failures) = state.withLock { ($0.exchanges, $0.failures) }
        guard failures.isEmpty else {
            throw HTTPStubberError(
                code: .recordingFailed,
                message: "The recording at \(root.path) was not saved: \(failures.count) request(s) failed on the "
                    + "network while recording:\n" + failures.map { "  \($0)" }.joined(separator: "\n")
                    + "\nFix the upstream (or the request) and record again; the previous files are unchanged.")
        }
        let existing = mode == .newEpisodes ? Self.existingFiles(at: root) : [:]
        let files = RecordingWriter(options: options).files(for: exchanges, keeping: existing)
        do {
            try Self.replace(root, with: files)
        } catch {
            throw HTTPStubberError(
                code: .recordingFailed,
                message: "The recording at \(root.path) could not be written: \(error.localizedDescription). The "
                    + "previous files are unchanged.")
        }
        return exchanges.count
    }

    /// Writes exchanges as stub files (a HAR file's, say), as a recording would: the folder's files are
    /// replaced once all are written.
    /// - Parameters:
    ///   - exchanges: The exchanges, in order.
    ///   - root: The folder for `mappings/` and `__files/`.
    ///   - options: Redaction and replay matching.
    /// - Returns: How many mappings were written.
    /// - Throws: `HTTPStubberError.Code.recordingFailed` when the folder cannot be written.
    @discardableResult
    public static func write(
        _ exchanges: [HTTPRecordedExchange], to root: URL, options: Options = Options()
    ) throws(HTTPStubberError) -> Int {
        let files = RecordingWriter(options: options).files(for: exchanges, keeping: [:])
        do {
            try replace(root.standardizedFileURL, with: files)
        } catch {
            throw HTTPStubberError(
                code: .recordingFailed,
                message: "The stub files at \(root.path) could not be written: \(error.localizedDescription). The "
                    + "previous files are unchanged.")
        }
        return exchanges.count
    }

    // MARK: - Files

    static func hasMappings(at root: URL) -> Bool {
        let mappings = root.appendingPathComponent("mappings")
        guard let enumerator = FileManager.default.enumerator(atPath: mappings.path) else { return false }
        while let path = enumerator.nextObject() as? String {
            if path.hasSuffix(".json") { return true }
        }
        return false
    }

    /// The files of a recording, by path relative to its root.
    static func existingFiles(at root: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        for folder in ["mappings", "__files"] {
            let base = root.appendingPathComponent(folder)
            guard let enumerator = FileManager.default.enumerator(atPath: base.path) else { continue }
            while let path = enumerator.nextObject() as? String {
                let url = base.appendingPathComponent(path)
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    let data = FileManager.default.contents(atPath: url.path)
                {
                    files["\(folder)/\(path)"] = data
                }
            }
        }
        return files
    }

    /// Cleans up after saves of `root` that a killed process left half done: a staging folder it was writing
    /// (`.NAME.writing-PID-...`) is removed; the previous recording it had set aside (`.NAME.previous-PID-...`)
    /// is put back when the new one never took its place, else removed. Folders of a process still running
    /// are left alone (it may be saving now).
    static func cleanUpInterruptedSaves(of root: URL) {
        let manager = FileManager.default
        let parent = root.deletingLastPathComponent()
        let name = root.lastPathComponent
        guard let siblings = try? manager.contentsOfDirectory(atPath: parent.path) else { return }
        for sibling in siblings.sorted() {
            for kind in ["writing", "previous"] {
                let prefix = ".\(name).\(kind)-"
                guard sibling.hasPrefix(prefix) else { continue }
                let pid = sibling.dropFirst(prefix.count).split(separator: "-").first.flatMap { Int32($0) }
                if let pid, isRunning(pid) { continue }
                let url = parent.appendingPathComponent(sibling)
                if kind == "previous", !manager.fileExists(atPath: root.path) {
                    try? manager.moveItem(at: url, to: root)
                } else {
                    try? manager.removeItem(at: url)
                }
            }
        }
    }

    /// Whether a process is running (this one included).
    private static func isRunning(_ pid: Int32) -> Bool {
        pid == ProcessInfo.processInfo.processIdentifier || kill(pid, 0) == 0 || errno == EPERM
    }

    /// Writes `files` to a new folder beside `root`, then swaps it in.
    static func replace(_ root: URL, with files: [String: Data]) throws {
        let manager = FileManager.default
        let parent = root.deletingLastPathComponent()
        try manager.createDirectory(at: parent, withIntermediateDirectories: true)
        cleanUpInterruptedSaves(of: root)
        let suffix = "\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
        let staging = parent.appendingPathComponent(".\(root.lastPathComponent).writing-\(suffix)")
        let previous = parent.appendingPathComponent(".\(root.lastPathComponent).previous-\(suffix)")
        do {
            try manager.createDirectory(
                at: staging.appendingPathComponent("mappings"), withIntermediateDirectories: true)
            for (path, data) in files.sorted(by: { $0.key < $1.key }) {
                let url = staging.appendingPathComponent(path)
                try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: url)
            }
            let hadRoot = manager.fileExists(atPath: root.path)
            if hadRoot {
                try manager.moveItem(at: root, to: previous)
            }
            do {
                try manager.moveItem(at: staging, to: root)
            } catch {
                if hadRoot { try? manager.moveItem(at: previous, to: root) }
                throw error
            }
            if hadRoot { try? manager.removeItem(at: previous) }
        } catch {
            try? manager.removeItem(at: staging)
            throw error
        }
    }
}

extension HTTPStubber {
    /// Records real exchanges to stub files, or replays them: attaches a recording of `root` to the stubber.
    ///
    /// When the recording replays (``HTTPRecording/Mode/replay``, ``HTTPRecording/Mode/newEpisodes``, or
    /// ``HTTPRecording/Mode/once`` with files present), its files are loaded as stubs. When it records, requests
    /// that no stub matches go to the network and are kept; call ``HTTPRecording/save()`` when done. Stubs you
    /// add yourself still answer what they match, in every mode.
    /// - Parameters:
    ///   - root: The folder for `mappings/` and `__files/`.
    ///   - mode: The mode, unless `STUNTDOUBLE_RECORD_MODE` says otherwise.
    ///   - options: Redaction and replay matching.
    ///   - environment: Where to read `STUNTDOUBLE_RECORD_MODE` (the process's environment by default).
    /// - Returns: The recording.
    /// - Throws: `HTTPStubberError.Code.invalidRecordingMode` for a bad environment variable,
    ///   `HTTPStubberError.Code.invalidStubFile` when the recording's files have errors.
    @discardableResult
    public func record(
        to root: URL, mode: HTTPRecording.Mode = .once, options: HTTPRecording.Options = HTTPRecording.Options(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(HTTPStubberError) -> HTTPRecording {
        let recording = try HTTPRecording(root: root, mode: mode, options: options, environment: environment)
        try attach(recording)
        return recording
    }

    /// Attaches a recording: loads its files when it replays, and lets through what it records.
    /// - Parameter recording: The recording.
    /// - Throws: `HTTPStubberError.Code.invalidStubFile` when the recording's files have errors.
    public func attach(_ recording: HTTPRecording) throws(HTTPStubberError) {
        if recording.replays, HTTPRecording.hasMappings(at: recording.root) {
            let (_, mappings) = try load(stubFilesAt: recording.root, extensions: recording.options.extensions)
            if let configure = recording.options.configureReplayStub {
                for mapping in mappings { configure(mapping.stub) }
            }
        } else if recording.mode == .replay {
            throw HTTPStubberError(
                code: .recordingFailed,
                message: "The recording at \(recording.root.path) has no mappings to replay. Record it first "
                    + "(mode .record or .once, or \(HTTPRecording.modeVariable)=record).")
        }
        setRecording(recording)
    }
}

extension HTTPRecording {
    /// This run's recorded exchanges as a HAR 1.2 document.
    /// - Returns: The document.
    public func harDocument() -> Data {
        HAR.document(of: exchanges)
    }
}
