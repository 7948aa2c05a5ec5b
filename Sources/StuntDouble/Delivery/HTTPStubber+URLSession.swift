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
        protocolClasses.session
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
        let ours = protocolClasses.session
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
    /// On Apple platforms this reaches `URLSession.shared`. On Linux, FoundationNetworking copies the
    /// registered classes when the process creates its first `URLSession`, so `enable()` reaches
    /// `URLSession.shared` only when it runs before any session exists; ``interceptsSharedSession`` tells, and
    /// ``requireSharedSessionInterception()`` throws an error that says what to do instead. Sessions made
    /// from ``sessionConfiguration(from:)`` are stubbed whether the stubber is enabled or not.
    public func enable() {
        Self.registration.withLock { _ in
            guard !setEnabled(true) else { return }
            _ = URLProtocol.registerClass(protocolClasses.global)
        }
    }

    /// Stops intercepting globally; the stubs stay, and sessions made from the stubber stay stubbed.
    public func disable() {
        Self.registration.withLock { _ in
            guard setEnabled(false) else { return }
            URLProtocol.unregisterClass(protocolClasses.global)
        }
    }

    /// Serializes `enable()` and `disable()` with their registration, so that the flag and the registered
    /// classes always agree. A lock of its own: `canInit` (which Foundation calls under its registration lock)
    /// reads the flag but never takes this one, so the two locks cannot wait on each other.
    private static let registration = Locked(())

    /// Whether requests made with `URLSession.shared` reach this stubber now.
    ///
    /// Reading it creates `URLSession.shared` if nothing has yet.
    public var interceptsSharedSession: Bool {
        guard isEnabled else { return false }
        let global = ObjectIdentifier(protocolClasses.global)
        let probe = URLRequest(url: URL(string: "https://example.com/")!)
        // The first class that takes an HTTPS request answers it: ours, or another (Foundation's own HTTP
        // protocol, another enabled stubber, another library's).
        for protocolClass in URLSession.shared.configuration.protocolClasses ?? [] {
            if ObjectIdentifier(protocolClass) == global { return true }
            if (protocolClass as? URLProtocol.Type)?.canInit(with: probe) ?? false { return false }
        }
        #if canImport(FoundationNetworking)
        return false
        #else
        return true  // Apple's URLSession.shared consults the registered classes on every request.
        #endif
    }

    /// Throws unless requests made with `URLSession.shared` reach this stubber.
    /// - Throws: ``HTTPStubberError`` with code ``HTTPStubberError/Code/interceptionUnavailable`` saying why
    ///   and what to do instead.
    public func requireSharedSessionInterception() throws(HTTPStubberError) {
        guard !interceptsSharedSession else { return }
        guard isEnabled else {
            throw HTTPStubberError(
                code: .interceptionUnavailable,
                message: "URLSession.shared is not intercepted: the stubber is not enabled. Call enable() first."
            )
        }
        throw HTTPStubberError(
            code: .interceptionUnavailable,
            message: "URLSession.shared cannot be intercepted: on Linux, FoundationNetworking copies the registered "
                + "URLProtocol classes when the process creates its first URLSession, and one was created before "
                + "enable(), so requests made with URLSession.shared would reach the network. Call enable() before "
                + "anything creates a URLSession, or better, give the code under test a session made with "
                + "stubber.session() (or a configuration from stubber.sessionConfiguration())."
        )
    }
}
