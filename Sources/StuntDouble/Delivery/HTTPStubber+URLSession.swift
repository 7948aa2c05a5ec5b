import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPStubber {
    /// The URLProtocol class that answers requests with this stubber.
    ///
    /// Put it first in a configuration's `protocolClasses` to stub the sessions made from it (it must come
    /// before Foundation's own HTTP protocol); ``sessionConfiguration(from:)`` does it for you.
    public var urlProtocolClass: URLProtocol.Type {
        sessionProtocolClass
    }

    /// A copy of a session configuration whose sessions this stubber answers.
    ///
    /// ```swift
    /// let session = URLSession(configuration: stubber.sessionConfiguration())
    /// ```
    ///
    /// Every HTTP and HTTPS request of such a session reaches the stubber: a stub answers it, an ignore rule
    /// or opt-in mode sends it to the network, and otherwise it fails with an ``HTTPUnmatchedRequestReport``.
    ///
    /// Sessions do not keep their stubber alive (so that a test's stubs go with the test): keep the stubber as
    /// long as its sessions, or their requests fail with an error that says so.
    /// - Parameter base: The configuration to copy; `.ephemeral` by default (its own cookie storage and
    ///   cache, so that tests do not share them).
    /// - Returns: The configuration.
    public func sessionConfiguration(from base: URLSessionConfiguration = .ephemeral) -> URLSessionConfiguration {
        let configuration = (base.copy() as? URLSessionConfiguration) ?? base
        let ours = sessionProtocolClass
        let others = (base.protocolClasses ?? []).filter { ObjectIdentifier($0) != ObjectIdentifier(ours) }
        configuration.protocolClasses = [ours] + others
        return configuration
    }

    /// A session this stubber answers.
    ///
    /// The session does not keep the stubber alive: keep both (`let stubber = HTTPStubber()`, then
    /// `stubber.session()`), not only the session.
    /// - Parameters:
    ///   - configuration: The configuration to start from; `.ephemeral` by default.
    ///   - delegate: The session's delegate, if any. Session-delegate tasks receive throttled bodies chunk by
    ///     chunk.
    ///   - delegateQueue: The queue for delegate calls and completion handlers, if any.
    /// - Returns: The session.
    public func session(
        configuration: URLSessionConfiguration = .ephemeral, delegate: (any URLSessionDelegate)? = nil,
        delegateQueue: OperationQueue? = nil
    ) -> URLSession {
        URLSession(
            configuration: sessionConfiguration(from: configuration), delegate: delegate, delegateQueue: delegateQueue
        )
    }

    /// Starts intercepting the requests of sessions that consult the globally registered URLProtocol classes,
    /// `URLSession.shared` above all.
    ///
    /// On Apple platforms it reaches `URLSession.shared` at any time. On Linux, FoundationNetworking copies the
    /// registered URLProtocol classes into `URLSession.shared` when the process makes its first session, so
    /// StuntDouble's global protocol class (which answers with the most recently enabled stubber, and declines
    /// every request while none is) must be registered by then: a test target that links StuntDoubleTesting
    /// registers it when the process loads, before any test, and `enable()` then works at any time; otherwise the
    /// first `enable()` registers it, and reaches `URLSession.shared` only if no session was made before. Nothing
    /// is registered in a process that never calls `enable()` (an app that ships StuntDoubleTargets).
    ///
    /// If `URLSession.shared` cannot reach this stubber, `enable()` says so at once: as a failure of the running
    /// test when StuntDoubleTesting is linked, at the line that called `enable()`, and with a warning on standard
    /// error, once per process, naming the fix. ``requireSharedSessionInterception()`` throws the same
    /// explanation.
    ///
    /// Sessions made from ``sessionConfiguration(from:)`` are stubbed whether the stubber is enabled or not.
    /// Sessions made from `.default` or `.ephemeral` are never intercepted: check one with
    /// ``intercepts(_:)-(URLSession)``.
    /// - Parameters:
    ///   - fileID: Where the call is written, for the report when it cannot work; leave the default.
    ///   - filePath: The file's path, as above.
    ///   - line: The line, as above.
    ///   - column: The column, as above.
    public func enable(
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        GlobalInterception.register(.byEnable)
        guard GlobalInterception.enable(self), let problem = sharedSessionProblem() else { return }
        ProcessDiagnostics.report(
            problem, at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Stops intercepting globally; the stubs stay, and sessions made from the stubber stay stubbed.
    public func disable() {
        GlobalInterception.disable(self)
    }

    /// Whether global interception is on (see ``enable(fileID:filePath:line:column:)``).
    public var isEnabled: Bool {
        GlobalInterception.isEnabled(self)
    }

    /// Whether requests made with `URLSession.shared` reach this stubber now.
    ///
    /// Reading it creates `URLSession.shared` if nothing has yet.
    public var interceptsSharedSession: Bool {
        sharedSessionProblem() == nil
    }

    /// Throws unless requests made with `URLSession.shared` reach this stubber.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/interceptionUnavailable`` saying why
    ///   and what to do instead.
    public func requireSharedSessionInterception() throws(HTTPStubberError) {
        if let problem = sharedSessionProblem() {
            throw HTTPStubberError(code: .interceptionUnavailable, message: problem)
        }
    }

    /// Whether the requests of a session reach this stubber: a session made from ``sessionConfiguration(from:)``
    /// (its first protocol class that takes HTTP requests is this stubber's), or `URLSession.shared` while
    /// ``interceptsSharedSession``.
    ///
    /// Use it to check a session that a library makes for you. On Linux, sessions made from `.default` or
    /// `.ephemeral` never consult the registered classes, so ``enable(fileID:filePath:line:column:)`` does not reach them.
    /// - Parameter session: The session.
    /// - Returns: Whether its HTTP requests reach this stubber.
    public func intercepts(_ session: URLSession) -> Bool {
        problem(with: session) == nil
    }

    /// Whether the requests of sessions made from a configuration reach this stubber.
    /// - Parameter configuration: The configuration.
    /// - Returns: Whether the first of its protocol classes that takes HTTP requests is this stubber's.
    public func intercepts(_ configuration: URLSessionConfiguration) -> Bool {
        configurationProblem(configuration.protocolClasses, describing: "this configuration") == nil
    }

    /// Throws unless the requests of a session reach this stubber.
    /// - Parameter session: The session.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/interceptionUnavailable`` saying why
    ///   and what to do instead.
    public func requireInterception(of session: URLSession) throws(HTTPStubberError) {
        if let problem = problem(with: session) {
            throw HTTPStubberError(code: .interceptionUnavailable, message: problem)
        }
    }

    // MARK: - Why a session does not reach this stubber

    private static let insteadAdvice =
        "Give the code under test a session made with stubber.session() (or URLSession(configuration: "
        + "stubber.sessionConfiguration(from: base))), or an HTTPStubSession."

    private func problem(with session: URLSession) -> String? {
        session === URLSession.shared
            ? sharedSessionProblem()
            : configurationProblem(session.configuration.protocolClasses, describing: "this session")
    }

    /// Why `URLSession.shared` does not reach this stubber, or `nil` when it does.
    func sharedSessionProblem() -> String? {
        guard isEnabled else {
            return "URLSession.shared does not reach this stubber: it is not enabled. Call enable() first."
        }
        guard GlobalInterception.current === self else {
            return "URLSession.shared reaches another stubber, enabled after this one: the most recently enabled "
                + "stubber answers every globally intercepted request. Disable that stubber, or enable this one "
                + "after it."
        }
        #if canImport(FoundationNetworking)
        let probe = URLRequest(url: URL(string: "https://example.com/")!)
        for protocolClass in URLSession.shared.configuration.protocolClasses ?? [] {
            if protocolClass == GlobalStubURLProtocol.self { return nil }
            if let other = protocolClass as? URLProtocol.Type, other.canInit(with: probe) {
                return "URLSession.shared does not reach this stubber: \(Self.describe(other)) takes its HTTP "
                    + "requests first, so they would go there, not to this stubber. "
                    + Self.sharedSessionOrigin + Self.insteadAdvice
            }
        }
        return "URLSession.shared does not reach this stubber: its protocol classes do not include StuntDouble's. "
            + Self.sharedSessionOrigin + Self.insteadAdvice
        #else
        return nil  // Apple's URLSession.shared consults the registered classes on every request.
        #endif
    }

    private static var sharedSessionOrigin: String {
        let cause =
            switch GlobalInterception.registration {
            case .atLoad:
                "StuntDouble registered its class when the process loaded StuntDoubleTesting, so either "
                    + "URLSession.shared was made before that (by a library's load-time code)"
            case .byEnable, .none:
                "StuntDouble registers its class with the first enable(), so either the process made a session "
                    + "before that (link StuntDoubleTesting to the test target: it registers the class when the test "
                    + "process loads, before any session; or call enable() before any session is made)"
            }
        return "On Linux, FoundationNetworking copies the registered URLProtocol classes into URLSession.shared when "
            + "the process makes its first session. \(cause), or another library registered a class that answers "
            + "first. "
    }

    /// Why sessions with these protocol classes do not reach this stubber, or `nil` when they do.
    private func configurationProblem(_ classes: [AnyClass]?, describing subject: String) -> String? {
        let probe = URLRequest(url: URL(string: "https://example.com/")!)
        for protocolClass in classes ?? [] {
            if protocolClass == sessionProtocolClass { return nil }
            if protocolClass == GlobalStubURLProtocol.self {
                if GlobalInterception.current === self { return nil }
                continue  // it declines, or answers with another stubber
            }
            if let other = protocolClass as? URLProtocol.Type, other.canInit(with: probe) {
                return "The requests of \(subject) do not reach this stubber: \(Self.describe(other)) takes them "
                    + "first (a configuration made from .default or .ephemeral lists only Foundation's own "
                    + "protocols, and never consults enable()). " + Self.insteadAdvice
            }
        }
        return "The requests of \(subject) do not reach this stubber: its protocol classes do not include this "
            + "stubber's. " + Self.insteadAdvice
    }

    private static func describe(_ protocolClass: URLProtocol.Type) -> String {
        let name = String(reflecting: protocolClass)
        return name.hasPrefix("StuntDouble.StubURLProtocol<") ? "another stubber's protocol class" : name
    }
}
