/// The error a stub server throws: what was asked, what went wrong, and what to do.
public struct HTTPStubServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidConfiguration, cannotBind, alreadyStarted, stopped
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The code's name.
        public var description: String { base.rawValue }

        /// The configuration cannot be used (a port out of range, a negative limit ...).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The server could not listen on its address (in use, not an address of this machine ...).
        public static let cannotBind = Code(.cannotBind)
        /// ``HTTPStubServer/start()`` was called on a server that is running.
        public static let alreadyStarted = Code(.alreadyStarted)
        /// ``HTTPStubServer/start()`` was called on a server that was stopped: make a new one.
        public static let stopped = Code(.stopped)
    }

    /// The kind of problem.
    public let code: Code
    /// What went wrong and what to do.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
