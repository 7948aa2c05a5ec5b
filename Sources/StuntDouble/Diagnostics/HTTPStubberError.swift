import Foundation

/// The error StuntDouble throws or delivers: what was wrong, what was found, and what to do.
///
/// Compare errors by ``code``:
///
/// ```swift
/// do {
///     _ = try HTTPStubRequest().match(urlRegex: "(unclosed")
/// } catch {
///     error.code == .invalidRegularExpression  // true
///     print(error)  // names the pattern, the problem, and how to fix it
/// }
/// ```
public struct HTTPStubberError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidRegularExpression, invalidURITemplate, invalidURL, invalidJSON, encodingFailed
            case invalidRequest, unreadableRequestBody, invalidResponse, unmatchedRequest, notStubbed
            case unsupportedTask, interceptionUnavailable, invalidStub, verificationFailed, missingResource
            case invalidStubFile, invalidRecordingMode, recordingFailed
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The code's name.
        public var description: String { base.rawValue }

        /// A URL regular expression did not compile.
        public static let invalidRegularExpression = Code(.invalidRegularExpression)
        /// A URI template is not valid RFC 6570 syntax.
        public static let invalidURITemplate = Code(.invalidURITemplate)
        /// A URL given to a matcher or ignore rule is not a usable URL.
        public static let invalidURL = Code(.invalidURL)
        /// JSON given to a matcher or response is not valid JSON.
        public static let invalidJSON = Code(.invalidJSON)
        /// A value could not be encoded as JSON.
        public static let encodingFailed = Code(.encodingFailed)
        /// A request cannot be stubbed (it has no URL, for instance).
        public static let invalidRequest = Code(.invalidRequest)
        /// The request's body stream could not be read.
        public static let unreadableRequestBody = Code(.unreadableRequestBody)
        /// A stubbed response is not valid (a status code outside 100...599, a negative delay ...).
        public static let invalidResponse = Code(.invalidResponse)
        /// No stub matched the request; ``HTTPStubberError/report`` explains why.
        public static let unmatchedRequest = Code(.unmatchedRequest)
        /// The request is not stubbed: an ignore rule, opt-in mode or a disabled stubber lets it through.
        public static let notStubbed = Code(.notStubbed)
        /// The kind of task cannot be stubbed on this platform (download tasks on Linux).
        public static let unsupportedTask = Code(.unsupportedTask)
        /// Global interception cannot reach `URLSession.shared` (on Linux, once a session exists).
        public static let interceptionUnavailable = Code(.interceptionUnavailable)
        /// A stub can never answer as written (a negative `times(_:)`, an empty response sequence ...).
        public static let invalidStub = Code(.invalidStub)
        /// A verification of the requests a stubber received failed; the message quotes its journal.
        public static let verificationFailed = Code(.verificationFailed)
        /// A fixture file (a bundle resource, a file URL) given to a response does not exist or cannot be read.
        public static let missingResource = Code(.missingResource)
        /// Stub files (WireMock's mapping format) have errors; ``HTTPStubberError/diagnostics`` lists each with
        /// its file, line and column.
        public static let invalidStubFile = Code(.invalidStubFile)
        /// A recording's mode, or the `STUNTDOUBLE_RECORD_MODE` environment variable, names no mode.
        public static let invalidRecordingMode = Code(.invalidRecordingMode)
        /// A recording cannot be saved: requests it recorded failed on the network, or its folder cannot be
        /// written. Nothing was written.
        public static let recordingFailed = Code(.recordingFailed)
    }

    /// The kind of problem.
    public let code: Code
    /// What was wrong, what was found, and what to do, for a person to read.
    public let message: String
    /// For ``Code/unmatchedRequest``: the request and the closest stubs, with what differed.
    public let report: HTTPUnmatchedRequestReport?
    /// For ``Code/invalidStubFile``: every error and warning found in the files, in file order.
    public let diagnostics: [StubFileDiagnostic]

    package init(
        code: Code, message: String, report: HTTPUnmatchedRequestReport? = nil,
        diagnostics: [StubFileDiagnostic] = []
    ) {
        self.code = code
        self.message = message
        self.report = report
        self.diagnostics = diagnostics
    }

    /// The message.
    public var description: String { message }

    /// Compares code and message.
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error.
    /// - Returns: Whether both code and message are equal.
    public static func == (lhs: HTTPStubberError, rhs: HTTPStubberError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    /// Hashes code and message.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}

extension HTTPStubberError {
    /// Reads a file a user named, or fails with ``Code/missingResource`` naming it and the reason.
    /// - Parameters:
    ///   - url: The file.
    ///   - what: What the file is for, at the start of the message (`"The HAR file"`).
    ///   - advice: What to do, after the reason; `nil` for nothing more.
    /// - Returns: The file's bytes.
    /// - Throws: ``HTTPStubberError`` with code ``Code/missingResource`` when the file cannot be read.
    package static func readFile(at url: URL, as what: String, advice: String? = nil) throws(HTTPStubberError)
        -> Data
    {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw HTTPStubberError(
                code: .missingResource,
                message: "\(what) \(url.path) cannot be read: \(error.localizedDescription)."
                    + (advice.map { " \($0)" } ?? ""))
        }
    }
}

extension HTTPStubberError: LocalizedError {
    /// The message, so that `localizedDescription` is readable too.
    public var errorDescription: String? { message }
}
