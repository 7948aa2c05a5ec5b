import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Holds stubs and decides, for each request, which stub answers it and how.
///
/// Use the shared stubber, as existing tests do, or make your own: two stubbers never see each other's
/// stubs.
///
/// ```swift
/// let stubber = HTTPStubber()
/// stubber.add(stub: HTTPStubRequest().match(URL: "https://api.example.com/me").stub(for: .get, json: me))
/// let plan = try stubber.response(for: URLRequest(url: URL(string: "https://api.example.com/me")!))
/// ```
///
/// Which stub wins when several match: the highest ``HTTPStubRequest/priority``, then the most recently
/// added, so a test can override a suite's default stub by adding its own. A request that an ignore rule
/// matches goes to the network, whatever the stubs say. A request no stub matches fails with a report of the
/// closest stubs (``UnhandledMode/optout``, the default) or goes to the network (``UnhandledMode/optin``).
/// Every method is safe to call from any thread.
public final class HTTPStubber: Sendable {
    /// What happens to requests that no stub matches.
    public enum UnhandledMode: Hashable, Sendable {
        /// Requests no stub matches go to the network, as if the stubber were not there. Except while a stub
        /// can never match (see ``HTTPStubRequest/problems``): then they fail with a report naming it, since
        /// the request was probably meant for that stub.
        case optin
        /// Requests no stub or ignore rule matches fail with a report of the closest stubs (the default).
        case optout
    }

    /// The stubber that the global interception of `URLSession` uses.
    ///
    /// It is shared by the whole process, so tests that run in parallel and use it see each other's stubs:
    /// prefer a stubber per test. It is safe when tests that use it run one at a time.
    public static let shared = HTTPStubber()

    struct State: Sendable {
        /// The stubs, in a copy-on-write box: a request takes a snapshot with one retain.
        var stubs = RegistryBox()
        var registry: StubRegistry { stubs.registry }
        var ignoreRules: [HTTPStubIgnoreRule] = []
        var unhandledMode = UnhandledMode.optout
        /// Scenarios by name, as stub files name them.
        var namedScenarios: [String: HTTPStubScenario] = [:]
        var recording: (any HTTPExchangeRecorder)?
        /// Checks before the stubs (OpenAPI contracts' validation); usually none.
        var gates: [HTTPRequestGate] = []
        /// How event streams' delays play (``HTTPStubber/eventTimeScale``).
        var eventTimeScale = 1.0
        /// Whether message stubs exist: only then may an HTTP request set one off.
        var hasMessageStubs = false
    }

    /// The stubs, ignore rules, mode and recording: read as one snapshot by `decide`, outside every other lock.
    let state = Locked(State())
    /// The WebSocket side: message stubs, open channels, the message journal.
    let messaging = MessageHub()
    /// Answer counts, sequences, scenarios and the journal: a lock of their own, taken after matching.
    let usage: Locked<StubUsage>
    /// The clock URLSession delivery plays timelines on: the system's, or one a test moves by hand.
    var deliveryClock: DeliveryClock {
        get { clockSlot.withLock { $0 } }
        set { clockSlot.withLock { $0 = newValue } }
    }
    private let clockSlot = Locked(DeliveryClock.system)
    /// The URLProtocol class of the sessions made from this stubber (see `ProtocolClasses`), made when first
    /// needed: the class stays in memory for the life of the process (about 1 KB), and a stubber used only
    /// through `HTTPStubSession` or directly never needs one.
    private let protocolClass = Locked<ProtocolClassBox?>(nil)

    /// A URLProtocol class, as a sendable value.
    private struct ProtocolClassBox: @unchecked Sendable {
        let type: URLProtocol.Type
    }

    /// Whether the stubber has made its URLProtocol class.
    var hasProtocolClass: Bool {
        protocolClass.withLock { $0 != nil }
    }

    /// The URLProtocol class of the sessions made from this stubber.
    var sessionProtocolClass: URLProtocol.Type {
        protocolClass.withLock { box in
            if let box { return box.type }
            let type = ProtocolClasses.protocolClass(number: UniqueID.next())
            ProtocolClasses.register(type, for: self)
            box = ProtocolClassBox(type: type)
            return type
        }
    }

    /// The number of journal entries a stubber keeps unless told otherwise.
    public static let defaultJournalCapacity = 10_000

    /// Creates a stubber with no stubs, in opt-out mode.
    /// - Parameter journalCapacity: How many of the newest requests the journal keeps (see ``journal``);
    ///   counts stay exact beyond it. A negative capacity counts as 0.
    public init(journalCapacity: Int = HTTPStubber.defaultJournalCapacity) {
        usage = Locked(StubUsage(journalCapacity: journalCapacity))
    }

    // MARK: - Stubs

    /// Adds a stub, as the most recent (so it wins over stubs of equal priority). Adding a stub that is
    /// already there moves it to the front. Later changes to the stub apply at once.
    /// - Parameter stub: The stub.
    public func add(stub: HTTPStubRequest) {
        state.withLock { state in
            let (definition, version) = stub.attach(to: self)
            state.stubs.update { $0.register(stub, definition: definition, version: version) }
        }
    }

    /// Removes a stub: that object, never another stub that looks the same.
    /// - Parameter stub: The stub.
    public func remove(stub: HTTPStubRequest) {
        state.withLock { state in
            if state.stubs.update({ $0.remove(stub.id) }) != nil {
                stub.detach(from: self)
            }
        }
    }

    /// Removes some stubs and adds others in one step, so that no request sees neither (a server reading its
    /// files again). The added ones are the most recent, in order; one already there moves to the front.
    /// - Parameters:
    ///   - old: The stubs to remove.
    ///   - new: The stubs to add.
    package func exchange(removing old: [HTTPStubRequest], adding new: [HTTPStubRequest]) {
        state.withLock { state in
            for stub in old where state.stubs.update({ $0.remove(stub.id) }) != nil {
                stub.detach(from: self)
            }
            for stub in new {
                let (definition, version) = stub.attach(to: self)
                state.stubs.update { $0.register(stub, definition: definition, version: version) }
            }
        }
    }

    /// Removes every stub.
    public func removeAllStubs() {
        state.withLock { state in
            for entry in state.registry.byID.values {
                entry.stub.detach(from: self)
            }
            state.stubs = RegistryBox()
        }
    }

    /// Removes every stub of the shared stubber.
    public static func removeAllStubs() {
        shared.removeAllStubs()
    }

    /// The stubs, highest precedence first (the order in which they are tried).
    public var stubs: [HTTPStubRequest] {
        state.withLock { $0.registry.inPrecedenceOrder.map(\.stub) }
    }

    /// Re-indexes a stub that changed after it was added.
    func stubDidChange(_ stub: HTTPStubRequest) {
        state.withLock { state in
            guard let registered = state.registry.byID[stub.id] else { return }
            let (definition, version) = stub.snapshot()
            guard version > registered.version else { return }
            state.stubs.update { $0.register(stub, definition: definition, version: version, keepingPlace: true) }
        }
    }

    /// The stubber's scenario with a name, made on first use: stub files (WireMock's mapping format) name
    /// scenarios, and every mapping loaded into this stubber with the same `scenarioName` shares it.
    /// - Parameters:
    ///   - name: The scenario's name.
    ///   - initialState: The state it starts in when this call makes it; WireMock's `"Started"` by default.
    /// - Returns: The scenario.
    public func scenario(named name: String, initialState: String = "Started") -> HTTPStubScenario {
        state.withLock { state in
            if let scenario = state.namedScenarios[name] { return scenario }
            let scenario = HTTPStubScenario(name, initialState: initialState)
            state.namedScenarios[name] = scenario
            return scenario
        }
    }

    /// The scenarios made by ``scenario(named:initialState:)``, by name.
    public var namedScenarios: [String: HTTPStubScenario] {
        state.withLock { $0.namedScenarios }
    }

    // MARK: - Ignore rules and modes

    /// Adds a rule that lets the requests it matches through to the network, unstubbed.
    ///
    /// A rule wins over every stub, in both modes: in opt-out mode it names the URLs that are never stubbed,
    /// and in opt-in mode it excludes URLs that a broad stub would otherwise catch.
    /// - Parameter ignoreRule: The rule.
    public func add(ignoreRule: HTTPStubIgnoreRule) {
        state.withLock { $0.ignoreRules.append(ignoreRule) }
    }

    /// Adds a rule that lets requests to a URL through to the network, even when a stub matches them.
    ///
    /// The scheme counts unless the options say otherwise: `http://www.apple.com` does not cover
    /// `https://www.apple.com`; add `.ignoreScheme` for both. A URL that is not usable makes a rule that
    /// never matches; unmatched-request reports name it (see ``HTTPMatcherGroup/problems``).
    /// - Parameters:
    ///   - url: The URL, as for ``HTTPStubURLMatcher``.
    ///   - options: The parts of the URL to ignore, such as `[.ignorePath, .ignoreQueryParameters]`.
    public func add(ignoreURL url: String, options: HTTPStubURLMatcher.Options = []) {
        add(ignoreRule: HTTPStubIgnoreRule().match(URL: url, options: options))
    }

    /// Removes an ignore rule (that object).
    /// - Parameter ignoreRule: The rule.
    public func remove(ignoreRule: HTTPStubIgnoreRule) {
        state.withLock { $0.ignoreRules.removeAll { $0 === ignoreRule } }
    }

    /// Removes every ignore rule.
    public func removeAllIgnoreRules() {
        state.withLock { $0.ignoreRules.removeAll() }
    }

    /// The ignore rules, in the order they were added.
    public var ignoreRules: [HTTPStubIgnoreRule] {
        state.withLock { $0.ignoreRules }
    }

    /// What happens to requests no stub matches; ``UnhandledMode/optout`` by default.
    public var unhandledMode: UnhandledMode {
        get { state.withLock { $0.unhandledMode } }
        set { state.withLock { $0.unhandledMode = newValue } }
    }

    /// How the delays of event streams (``HTTPStubEventStream``) play: `1` (the default) as written or recorded,
    /// `0.5` twice as fast, `2` half as fast, `0` as fast as the client takes them. A recorded chat completion
    /// replays at its recorded pace, or, scaled to 0, at once. Delays before the head
    /// (``HTTPStubResponse/responseDelay``) are not scaled. A stream that repeats forever keeps at least a
    /// millisecond a play. A negative or non-finite scale fails each event-stream request with an error
    /// saying so.
    public var eventTimeScale: Double {
        get { state.withLock { $0.eventTimeScale } }
        set { state.withLock { $0.eventTimeScale = newValue } }
    }

    // MARK: - Deciding

    /// Decides what happens to a request: which stub answers it and how, or why none does.
    ///
    /// This is a request arriving: it is counted, recorded in the ``journal`` (with the path
    /// ``HTTPDeliveryPath/direct``), and advances response sequences, ``HTTPStubRequest/times(_:)`` limits and
    /// scenarios, as a request through a session does.
    /// - Parameter request: The request.
    /// - Returns: The decision.
    public func decision(for request: HTTPIncomingRequest) -> HTTPStubDecision {
        decide(request, via: .direct).decision
    }

    /// The recorder attached with `record(to:mode:options:environment:)` or `attach(_:)` (StuntDoubleWireMock's
    /// `HTTPRecording`), if any.
    public var recording: (any HTTPExchangeRecorder)? { state.withLock { $0.recording } }

    /// Attaches a recorder, or detaches it with `nil`.
    package func setRecording(_ recording: (any HTTPExchangeRecorder)?) {
        state.withLock { $0.recording = recording }
    }

    /// The stubs closest to a request and what differed, without deciding it: nothing is recorded, counted
    /// or moved. For the admin API's near misses.
    package func nearMisses(for request: HTTPIncomingRequest) -> HTTPUnmatchedRequestReport {
        let (stubs, ignoreRules) = state.withLock { ($0.stubs, $0.ignoreRules) }
        let available = usage.withLock { $0.availability }
        return HTTPUnmatchedRequestReport(
            request: request, registry: stubs, ignoreRules: ignoreRules, availability: available)
    }

    /// Records how the delivery of a journal entry ended.
    /// - Parameters:
    ///   - entry: The entry's number, from `decide`.
    ///   - duration: The time since the request was received.
    ///   - error: The error the caller received, or `nil` for a delivered response.
    ///   - statusCode: The status code of the response the caller received, if any.
    ///   - bodyByteCount: How many body bytes came with it.
    /// - Returns: The entry's annotations (what gates found about the exchange), read under the same lock: empty
    ///   unless a gate found something.
    @discardableResult
    package func complete(
        _ entry: Int, after duration: Duration, error: (any Error)?, statusCode: Int? = nil, bodyByteCount: Int? = nil
    ) -> [any HTTPJournalAnnotation] {
        let completion = HTTPJournalEntry.Completion(
            duration: duration, error: error,
            statusCode: error == nil ? statusCode.map { HTTPStatusCode(rawValue: $0) } : nil,
            bodyByteCount: error == nil && statusCode != nil ? bodyByteCount ?? 0 : nil)
        return usage.withLock { $0.complete(entry, with: completion) }
    }

    /// Decides what happens to a `URLRequest`, reading its body (from `httpBody` or its stream) once.
    /// - Parameter request: The request.
    /// - Returns: The decision.
    /// - Throws: ``HTTPStubberError`` when the request cannot be read (no URL, a failing body stream).
    public func decision(for request: URLRequest) throws(HTTPStubberError) -> HTTPStubDecision {
        decision(for: try HTTPIncomingRequest(request))
    }

    /// The plan of the stub that answers a request.
    /// - Parameter request: The request.
    /// - Returns: The plan: the response (or error) and when to deliver it.
    /// - Throws: ``HTTPStubberError``: ``HTTPStubberError/Code/unmatchedRequest`` with the report when no stub
    ///   matches, ``HTTPStubberError/Code/notStubbed`` when the request would go to the network.
    public func response(for request: HTTPIncomingRequest) throws(HTTPStubberError) -> HTTPResponsePlan {
        switch decision(for: request) {
        case .stub(let plan):
            return plan
        case .unmatched(let report):
            throw HTTPStubberError(code: .unmatchedRequest, message: report.description, report: report)
        case .passThrough(let reason):
            throw HTTPStubberError(
                code: .notStubbed,
                message: "\(request) is not stubbed: \(reason). It would go to the network. Add a stub for it."
            )
        }
    }

    /// The plan of the stub that answers a `URLRequest`.
    /// - Parameter request: The request.
    /// - Returns: The plan.
    /// - Throws: ``HTTPStubberError``, as ``response(for:)-(HTTPIncomingRequest)`` does, or when the request
    ///   cannot be read.
    public func response(for request: URLRequest) throws(HTTPStubberError) -> HTTPResponsePlan {
        try response(for: try HTTPIncomingRequest(request))
    }
}
