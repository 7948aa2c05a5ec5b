import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Each stubber gets its own URLProtocol classes, so that a protocol instance knows its stubber from its class
// alone: nothing is added to requests or configurations, and no test's stubs reach another test's sessions.
// Swift cannot declare classes at run time, but it can instantiate a generic class with a type built at run
// time: the stubber's number spelled in binary as nested types (`One<Zero<One<End>>>` for 5).

/// A number, spelled as a type.
protocol SlotNumber {}
/// The end of a spelled number.
enum SlotEnd: SlotNumber {}
/// A 0 bit, then the rest of the number.
enum SlotZero<Rest: SlotNumber>: SlotNumber {}
/// A 1 bit, then the rest of the number.
enum SlotOne<Rest: SlotNumber>: SlotNumber {}

/// Whether a protocol class serves the sessions a stubber made, or every session once enabled.
protocol InterceptionMode {
    static var isGlobal: Bool { get }
}
/// Sessions made from the stubber: always intercepted.
enum SessionInterception: InterceptionMode {
    static var isGlobal: Bool { false }
}
/// Global registration (`enable()`): intercepted while the stubber is enabled.
enum GlobalInterception: InterceptionMode {
    static var isGlobal: Bool { true }
}

/// The protocol classes of every stubber, and back from a class to its stubber.
enum ProtocolClasses {
    struct Classes: Sendable {
        let session: URLProtocol.Type
        let global: URLProtocol.Type
    }

    private struct Owner: Sendable {
        weak var stubber: HTTPStubber?
    }

    /// Each class's stubber. Entries of stubbers that are gone are dropped whenever the table doubled since
    /// the last sweep, so that a process making a stubber per test keeps it small.
    private struct Owners: Sendable {
        var byClass: [ObjectIdentifier: Owner] = [:]
        var sweepAt = 256
    }

    private static let owners = Locked(Owners())

    /// The classes of stubber number `number`: the same classes for the same number, new ones for a new one.
    static func classes(number: UInt64) -> Classes {
        var spelled: any SlotNumber.Type = SlotEnd.self
        var rest = number
        while rest > 0 {
            spelled = rest & 1 == 1 ? one(spelled) : zero(spelled)
            rest >>= 1
        }
        return classes(spelled)
    }

    /// Records which stubber a stubber's classes belong to.
    static func register(_ classes: Classes, for stubber: HTTPStubber) {
        owners.withLock { owners in
            if owners.byClass.count >= owners.sweepAt {
                owners.byClass = owners.byClass.filter { $0.value.stubber != nil }
                owners.sweepAt = max(256, owners.byClass.count * 2)
            }
            owners.byClass[ObjectIdentifier(classes.session)] = Owner(stubber: stubber)
            owners.byClass[ObjectIdentifier(classes.global)] = Owner(stubber: stubber)
        }
    }

    /// The stubber a protocol class belongs to, or `nil` when it no longer exists.
    static func stubber(for protocolClass: AnyClass) -> HTTPStubber? {
        owners.withLock { $0.byClass[ObjectIdentifier(protocolClass)]?.stubber }
    }

    /// How many classes the table holds, for tests.
    static func registeredCount() -> Int {
        owners.withLock { $0.byClass.count }
    }

    private static func one<Rest: SlotNumber>(_: Rest.Type) -> any SlotNumber.Type { SlotOne<Rest>.self }
    private static func zero<Rest: SlotNumber>(_: Rest.Type) -> any SlotNumber.Type { SlotZero<Rest>.self }

    private static func classes<Slot: SlotNumber>(_: Slot.Type) -> Classes {
        Classes(
            session: StubURLProtocol<Slot, SessionInterception>.self,
            global: StubURLProtocol<Slot, GlobalInterception>.self
        )
    }
}
