import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Global interception (`enable()`): one URLProtocol class, registered with `URLProtocol.registerClass`, that
/// answers with the most recently enabled stubber and declines every request while none is enabled.
///
/// One class for every stubber, so that it can be registered before any stubber exists: on Linux,
/// FoundationNetworking copies the registered classes into `URLSession.shared` when that session is created,
/// so the class is registered when the process loads StuntDouble (CStuntDouble's `load.c`), and `enable()`
/// then reaches `URLSession.shared` whenever it runs. On Apple platforms, where registered classes are
/// consulted on every request, the first `enable()` registers it.
enum GlobalInterception {
    private struct State: Sendable {
        var isRegistered = false
        /// The enabled stubbers, the most recently enabled last.
        var enabled: [WeakStubber] = []
    }

    private struct WeakStubber: Sendable {
        weak var stubber: HTTPStubber?
    }

    private static let state = Locked(State())

    /// Registers the global protocol class, once.
    static func register() {
        state.withLock { state in
            guard !state.isRegistered else { return }
            state.isRegistered = URLProtocol.registerClass(GlobalStubURLProtocol.self)
        }
    }

    /// Unregisters the global protocol class, so that sessions created before the next `enable()` do not list
    /// it.
    static func withdrawRegistration() {
        state.withLock { state in
            URLProtocol.unregisterClass(GlobalStubURLProtocol.self)
            state.isRegistered = false
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
    /// Undoes the registration of the global protocol class made when the process loaded StuntDouble. Only for
    /// `SharedSessionProbe`, which shows what `enable()` does when `URLSession.shared` was created without it.
    package static func withdrawGlobalProtocolRegistration() {
        GlobalInterception.withdrawRegistration()
    }
}

/// Called by CStuntDouble's `load.c` when the process loads StuntDouble, before `main`.
@_cdecl("stuntdouble_register_global_protocol")
func registerGlobalProtocolAtLoad() {
    GlobalInterception.register()
}
