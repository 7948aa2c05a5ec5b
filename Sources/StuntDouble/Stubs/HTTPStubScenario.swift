/// A named state machine that stubs read and move, for flows where the same request gets different answers
/// as the test goes on: a cart that is empty until a `POST` adds an item, a token that expires.
///
/// ```swift
/// let cart = HTTPStubScenario("cart", initialState: "empty")
/// stubber.add(stub: HTTPStubRequest().match(URL: cartURL).stub(for: .get, json: "[]").when(cart, is: "empty"))
/// stubber.add(stub: HTTPStubRequest().match(URL: cartURL).stub(for: .post, code: .created)
///     .when(cart, is: "empty", then: "has item"))
/// stubber.add(stub: HTTPStubRequest().match(URL: cartURL).stub(for: .get, json: #"["book"]"#)
///     .when(cart, is: "has item"))
/// ```
///
/// A scenario's current state lives in each stubber (so parallel tests with their own stubbers never share
/// it), starting at ``initialState``. Read or set it with ``HTTPStubber/state(of:)`` and
/// ``HTTPStubber/setState(_:of:)``. Scenarios compare by identity: two scenarios with the same name are two
/// scenarios.
public final class HTTPStubScenario: Sendable, Hashable, CustomStringConvertible {
    /// The name, for reports.
    public let name: String
    /// The state every stubber starts the scenario in.
    public let initialState: String
    let id = UniqueID.next()

    /// Creates a scenario.
    /// - Parameters:
    ///   - name: A name for reports, such as `"cart"`.
    ///   - initialState: The state it starts in; `"started"` by default.
    public init(_ name: String, initialState: String = "started") {
        self.name = name
        self.initialState = initialState
    }

    /// `scenario "cart"`.
    public var description: String {
        "scenario \"\(name)\""
    }

    /// Whether two values are the same scenario object.
    /// - Parameters:
    ///   - lhs: A scenario.
    ///   - rhs: Another scenario.
    /// - Returns: `true` for the same object.
    public static func == (lhs: HTTPStubScenario, rhs: HTTPStubScenario) -> Bool {
        lhs === rhs
    }

    /// Hashes the scenario's identity.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
    }
}
