import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Each stubber gets its own URLProtocol class, so that a protocol instance knows its stubber from its class
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

/// The protocol class of every stubber, and back from a class to its stubber.
enum ProtocolClasses {
    private static let owners = Locked(WeakTable<HTTPStubber>())

    /// The class of stubber number `number`: the same class for the same number, a new one for a new one.
    static func protocolClass(number: UInt64) -> URLProtocol.Type {
        var spelled: any SlotNumber.Type = SlotEnd.self
        var rest = number
        while rest > 0 {
            spelled = rest & 1 == 1 ? one(spelled) : zero(spelled)
            rest >>= 1
        }
        return protocolClass(spelled)
    }

    /// Records which stubber a stubber's class belongs to.
    static func register(_ protocolClass: URLProtocol.Type, for stubber: HTTPStubber) {
        owners.withLock { $0.set(stubber, for: ObjectIdentifier(protocolClass)) }
    }

    /// The stubber a protocol class belongs to, or `nil` when it no longer exists.
    static func stubber(for protocolClass: AnyClass) -> HTTPStubber? {
        owners.withLock { $0.object(for: ObjectIdentifier(protocolClass)) }
    }

    private static func one<Rest: SlotNumber>(_: Rest.Type) -> any SlotNumber.Type { SlotOne<Rest>.self }
    private static func zero<Rest: SlotNumber>(_: Rest.Type) -> any SlotNumber.Type { SlotZero<Rest>.self }

    private static func protocolClass<Slot: SlotNumber>(_: Slot.Type) -> URLProtocol.Type {
        StubURLProtocol<Slot>.self
    }
}

/// Objects by key, held weakly. Entries whose object is gone are swept out whenever the table doubled since the
/// last sweep (and holds at least `minimumSweep` entries), so that a process making a stubber per test keeps
/// it small at an amortized constant cost.
struct WeakTable<Object: AnyObject & Sendable>: Sendable {
    private struct Entry: Sendable {
        weak var object: Object?
    }

    private var entries: [ObjectIdentifier: Entry] = [:]
    private let minimumSweep: Int
    private var sweepAt: Int

    init(minimumSweep: Int = 256) {
        self.minimumSweep = minimumSweep
        sweepAt = minimumSweep
    }

    /// How many entries the table holds, including those whose object is gone.
    var count: Int { entries.count }

    mutating func set(_ object: Object, for key: ObjectIdentifier) {
        if entries.count >= sweepAt {
            entries = entries.filter { $0.value.object != nil }
            sweepAt = max(minimumSweep, entries.count * 2)
        }
        entries[key] = Entry(object: object)
    }

    func object(for key: ObjectIdentifier) -> Object? {
        entries[key]?.object
    }
}
