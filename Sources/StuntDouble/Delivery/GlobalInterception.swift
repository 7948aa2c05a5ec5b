import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Global interception (`enable()`): one URLProtocol class, registered with `URLProtocol.registerClass`, that
/// answers with the most recently enabled stubber and declines every request while none is enabled.
///
/// One class for every stubber, so that it can be registered before any stubber exists: on Linux,
/// FoundationNetworking copies the registered classes into `URLSession.shared` when that session is created, so a
/// test process that links StuntDoubleTesting registers the class when it loads (CStuntDoubleTesting's `load.c`),
/// and `enable()` then reaches `URLSession.shared` whenever it runs. Otherwise (and on Apple platforms, where
/// registered classes are consulted on every request) the first `enable()` registers it. Nothing registers it in
/// a process that never enables a stubber: an app that ships StuntDoubleTargets carries no URLProtocol.
enum GlobalInterception {
    private struct State: Sendable {
        var registration = HTTPStubber.GlobalProtocolRegistration.none
        var isRegistered: Bool { registration != .none }
        /// The enabled stubbers, the most recently enabled last.
        var enabled: [WeakStubber] = []
    }

    private struct WeakStubber: Sendable {
        weak var stubber: HTTPStubber?
    }

    private static let state = Locked(State())

    /// Registers the global protocol class, once.
    static func register(_ registration: HTTPStubber.GlobalProtocolRegistration) {
        state.withLock { state in
            guard !state.isRegistered else { return }
            state.registration = URLProtocol.registerClass(GlobalStubURLProtocol.self) ? registration : .none
        }
    }

    /// What registered the global protocol class, if anything has.
    static var registration: HTTPStubber.GlobalProtocolRegistration {
        state.withLock { $0.registration }
    }

    /// Unregisters the global protocol class, so that sessions created before the next `enable()` do not list
    /// it.
    static func withdrawRegistration() {
        state.withLock { state in
            URLProtocol.unregisterClass(GlobalStubURLProtocol.self)
            state.registration = .none
        }
    }

    /// Makes a stubber the one that answers globally intercepted requests, unless it is enabled already.
    /// - Returns: Whether it was not enabled before.
    static func enable(_ stubber: HTTPStubber) -> Bool {
        state.withLock { state in
            guard !state.enabled.contains(where: { $0.stubber === stubber }) else { return false }
            state.enabled.removeAll { $0.stubber == nil }
            state.enabled.append(WeakStubber(stubber: stubber))
            return true
        }
    }

    /// Stops a stubber answering globally intercepted requests.
    static func disable(_ stubber: HTTPStubber) {
        state.withLock { state in
            state.enabled.removeAll { $0.stubber == nil || $0.stubber === stubber }
        }
    }

    /// Whether a stubber is enabled.
    static func isEnabled(_ stubber: HTTPStubber) -> Bool {
        state.withLock { state in state.enabled.contains { $0.stubber === stubber } }
    }

    /// The stubber that answers globally intercepted requests now: the most recently enabled one.
    static var current: HTTPStubber? {
        state.withLock { state in
            state.enabled.last { $0.stubber != nil }?.stubber
        }
    }
}

extension HTTPStubber {
    /// Undoes the registration of the global protocol class. Only for `SharedSessionProbe`, which shows what
    /// `enable()` does when `URLSession.shared` was created without it.
    package static func withdrawGlobalProtocolRegistration() {
        GlobalInterception.withdrawRegistration()
    }

    /// Registers the global protocol class when a test process loads StuntDoubleTesting, before `main`, so that
    /// `enable()` reaches `URLSession.shared` whenever it runs (on Linux; Apple platforms need no registration
    /// ahead of `enable()`, which makes it).
    package static func registerGlobalProtocolAtLoad() {
        #if canImport(FoundationNetworking)
        GlobalInterception.register(.atLoad)
        #endif
    }

    /// Whether the global protocol class was registered when the process loaded (StuntDoubleTesting does it), by
    /// the first `enable()`, or not at all.
    package static var globalProtocolRegistration: GlobalProtocolRegistration {
        GlobalInterception.registration
    }

    /// What registered StuntDouble's global URLProtocol class.
    package enum GlobalProtocolRegistration: Sendable, Equatable {
        /// Nothing yet.
        case none
        /// The process, when it loaded StuntDoubleTesting (before `main`).
        case atLoad
        /// The first `enable()`.
        case byEnable
    }
}
