import Foundation

/// What a stubber's stubs have done: answer counts, places in response sequences, scenario states, and the
/// journal. One per stubber, behind its own lock, so that parallel tests with their own stubbers never share
/// any of it.
struct StubUsage: Sendable {
    /// Answers counted toward `times(_:)`, by stub; cleared by `resetState()`.
    private var answered: [UInt64: Int] = [:]
    /// Answers since the journal was last cleared, by stub: what verification counts.
    private(set) var hits: [UInt64: Int] = [:]
    private var positions: [PositionKey: Int] = [:]
    private var scenarioStates: [UInt64: String] = [:]
    /// Changes whenever a conditional stub may have become available or unavailable.
    private var version: UInt64 = 0
    private(set) var journal: JournalBuffer
    /// How many bytes of each request body the journal keeps; `nil` for all of them.
    var journalBodyLimit: Int?
    /// Requests received and unmatched since the journal was last cleared (exact, whatever the capacity).
    private(set) var receivedCount = 0
    private(set) var unmatchedCount = 0
    private var nextNumber = 1

    private struct PositionKey: Hashable {
        let stub: UInt64
        let method: HTTPMethod
    }

    init(journalCapacity: Int) {
        journal = JournalBuffer(capacity: journalCapacity)
    }

    /// What decides whether conditional stubs may answer, as of now.
    var availability: StubAvailability {
        StubAvailability(answered: answered, scenarioStates: scenarioStates, version: version)
    }

    /// Takes a stateful stub's answer: counts it toward its limit, advances its sequence and its scenarios, and
    /// reserves the request's journal number, so that numbers follow the order in which answers were taken.
    /// Returns `nil` when the availability changed since `expectedVersion` (the caller decides again) or the
    /// stub may no longer answer.
    mutating func claim(_ entry: RegisteredStub, method: HTTPMethod, expectedVersion: UInt64?) -> Claim? {
        if let expectedVersion, expectedVersion != version { return nil }
        guard availability.allows(entry) else { return nil }
        let id = entry.stub.id
        let definition = entry.definition
        answered[id, default: 0] += 1
        if let limit = definition.limit, answered[id, default: 0] >= limit {
            version &+= 1
        }
        var position: Int?
        if case .sequence = definition.source(for: method) {
            let key = PositionKey(stub: id, method: method)
            let next = positions[key, default: 0]
            positions[key] = next + 1
            position = next
        }
        for rule in definition.scenarios {
            guard let newState = rule.newState else { continue }
            let id = rule.scenario.id
            if (scenarioStates[id] ?? rule.scenario.initialState) != newState {
                scenarioStates[id] = newState
                version &+= 1
            }
        }
        defer { nextNumber += 1 }
        return Claim(position: position, number: nextNumber)
    }

    struct Claim {
        /// The place in the stub's response sequence, for a sequence.
        let position: Int?
        /// The request's journal number.
        let number: Int
    }

    /// Records a decision in the journal, and counts it. A claimed decision has its number already; otherwise
    /// the stub's answer is counted here, and the result is `nil` when the availability changed since
    /// `expectedVersion` (the caller decides again).
    mutating func record(
        _ decision: HTTPStubDecision, request: HTTPIncomingRequest, received: ContinuousClock.Instant,
        path: HTTPDeliveryPath,
        claimed: Claim?, expectedVersion: UInt64?
    ) -> Int? {
        // One look at the decision: each `decision.plan` copied it.
        var answering: HTTPStubRequest?
        var perRequestBodyLength: Int?
        var isUnmatched = false
        switch decision {
        case .stub(let plan):
            answering = plan.stub
            perRequestBodyLength = plan.isPerRequest ? plan.response?.body.count : nil
        case .unmatched:
            isUnmatched = true
        case .passThrough:
            break
        }
        let number: Int
        if let claimed {
            number = claimed.number
        } else {
            if let expectedVersion, expectedVersion != version { return nil }
            if let answering {
                answered[answering.id, default: 0] += 1
            }
            number = nextNumber
            nextNumber += 1
        }
        if let answering {
            hits[answering.id, default: 0] += 1
        }
        receivedCount += 1
        if isUnmatched {
            unmatchedCount += 1
        }
        let bodyLength = request.body?.count ?? 0
        guard let limit = journalBodyLimit, journal.capacity > 0,
            bodyLength > limit || (perRequestBodyLength ?? 0) > limit
        else {
            // The usual request: journaled as decided, with no copy of the decision.
            journal.insert(
                HTTPJournalEntry(
                    number: number, request: request, requestBodyLength: bodyLength, received: received, path: path,
                    decision: decision))
            return number
        }
        var kept = request
        var journaled = decision
        if bodyLength > limit {
            // The journal keeps the beginning only: the request that was decided (and everything that refers to
            // it) stays whole for delivery, and is let go once delivered.
            kept = request.truncatingBody(to: limit)
            journaled = decision.replacingRequest(kept)
        }
        var plannedBodyLength: Int?
        if let perRequestBodyLength, perRequestBodyLength > limit, case .stub(let plan) = journaled {
            // A body made for this request alone (a template's): kept whole, 10,000 of them would hold gigabytes.
            plannedBodyLength = perRequestBodyLength
            journaled = .stub(plan.keepingBodyPrefix(limit))
        }
        var entry = HTTPJournalEntry(
            number: number, request: kept, requestBodyLength: bodyLength, received: received, path: path,
            decision: journaled)
        entry.plannedBodyLength = plannedBodyLength
        journal.insert(entry)
        return number
    }

    /// Keeps what the gates found about an entry's exchange.
    mutating func annotate(_ number: Int, with annotations: [any HTTPJournalAnnotation]) {
        journal.update(number) { $0.annotations += annotations }
    }

    /// Records how an entry's delivery ended; returns its annotations.
    mutating func complete(_ number: Int, with completion: HTTPJournalEntry.Completion) -> [any HTTPJournalAnnotation] {
        var annotations: [any HTTPJournalAnnotation] = []
        journal.update(number) {
            $0.completion = completion
            annotations = $0.annotations
        }
        return annotations
    }

    func state(of scenario: HTTPStubScenario) -> String {
        scenarioStates[scenario.id] ?? scenario.initialState
    }

    mutating func setState(_ state: String, of scenario: HTTPStubScenario) {
        scenarioStates[scenario.id] = state
        version &+= 1
    }

    /// How many times `resetState()` ran: state kept outside the engine (an OpenAPI document's resources)
    /// starts over when it changes.
    private(set) var resets: UInt64 = 0

    /// Forgets answer counts, sequence places and scenario states (not the journal).
    mutating func resetState() {
        resets &+= 1
        answered = [:]
        positions = [:]
        scenarioStates = [:]
        version &+= 1
    }

    /// Forgets the journal and the counts verification reads.
    mutating func clearJournal() {
        journal.removeAll()
        hits = [:]
        receivedCount = 0
        unmatchedCount = 0
    }

    mutating func removeJournalEntries(where shouldRemove: (HTTPJournalEntry) -> Bool) -> [HTTPJournalEntry] {
        journal.remove(where: shouldRemove)
    }

    mutating func setJournalCapacity(_ capacity: Int) {
        journal.capacity = capacity
    }
}

/// Whether conditional stubs may answer: a snapshot of the counts and scenario states they depend on.
struct StubAvailability: Sendable {
    let answered: [UInt64: Int]
    let scenarioStates: [UInt64: String]
    let version: UInt64

    func allows(_ entry: RegisteredStub) -> Bool {
        let definition = entry.definition
        if let limit = definition.limit, answered[entry.stub.id, default: 0] >= limit {
            return false
        }
        for rule in definition.scenarios {
            if let required = rule.requiredState,
                (scenarioStates[rule.scenario.id] ?? rule.scenario.initialState) != required
            {
                return false
            }
        }
        return true
    }

    /// The checks of a conditional stub, for reports: its limit and its scenario state.
    func checks(for definition: StubDefinition, stub: HTTPStubRequest) -> [MatcherCheck] {
        var checks: [MatcherCheck] = []
        if let limit = definition.limit {
            let count = answered[stub.id, default: 0]
            checks.append(
                MatcherCheck(
                    matcher: "answered fewer than times(\(limit))", passed: count < limit,
                    expected: "fewer than \(limit) answers", actual: "\(count) answers", note: nil, closeness: 0.5))
        }
        for rule in definition.scenarios {
            guard let required = rule.requiredState else { continue }
            let current = scenarioStates[rule.scenario.id] ?? rule.scenario.initialState
            checks.append(
                MatcherCheck(
                    matcher: "\(rule.scenario) is in state \"\(required)\"", passed: current == required,
                    expected: "\"\(required)\"", actual: "\"\(current)\"", note: nil, closeness: 0.5))
        }
        return checks
    }
}

/// The newest journal entries, at most `capacity` of them, in the order of their numbers.
///
/// A ring buffer: appending is O(1) once full. Entries arrive almost in order (a claimed number is recorded a
/// moment after it was reserved), so an insertion moves back past at most a few newer entries.
struct JournalBuffer: Sendable {
    private var storage: [HTTPJournalEntry] = []
    /// Where the oldest entry is in `storage`, once it is full.
    private var head = 0
    /// How many entries were dropped to stay within the capacity.
    private(set) var droppedCount = 0

    var capacity: Int {
        didSet {
            capacity = max(0, capacity)
            let kept = entries.suffix(capacity)
            droppedCount += entries.count - kept.count
            storage = Array(kept)
            head = 0
        }
    }

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var entries: [HTTPJournalEntry] {
        guard head > 0 else { return storage }
        return Array(storage[head...] + storage[..<head])
    }

    /// The index in `storage` of the entry at a place in number order.
    private func index(_ place: Int) -> Int {
        (head + place) % storage.count
    }

    /// Adds an entry in its place by number; when full, the oldest entry goes (or the new one, if older).
    mutating func insert(_ entry: consuming HTTPJournalEntry) {
        // Taken, not copied: an entry holds a dozen references, and a copy retains (and its end releases) each.
        let number = entry.number
        guard capacity > 0 else {
            droppedCount += 1
            return
        }
        if storage.count < capacity {
            storage.append(consume entry)
        } else {
            droppedCount += 1
            guard number > storage[head].number else { return }
            storage[head] = consume entry
            head = (head + 1) % storage.count
        }
        var place = storage.count - 1
        while place > 0, storage[index(place - 1)].number > number {
            storage.swapAt(index(place - 1), index(place))
            place -= 1
        }
    }

    /// Changes the entry with a number, if it is still kept.
    mutating func update(_ number: Int, _ change: (inout HTTPJournalEntry) -> Void) {
        if let place = place(of: number) { change(&storage[place]) }
    }

    /// The entry with a number, if it is still kept.
    func entry(_ number: Int) -> HTTPJournalEntry? {
        place(of: number).map { storage[$0] }
    }

    private func place(of number: Int) -> Int? {
        guard !storage.isEmpty else { return nil }
        // Numbers are almost always consecutive: try the place the number would have, then search.
        let guess = number - storage[head].number
        if guess >= 0, guess < storage.count, storage[index(guess)].number == number {
            return index(guess)
        }
        var low = 0
        var high = storage.count
        while low < high {
            let middle = (low + high) / 2
            if storage[index(middle)].number < number { low = middle + 1 } else { high = middle }
        }
        guard low < storage.count, storage[index(low)].number == number else { return nil }
        return index(low)
    }

    mutating func removeAll() {
        storage = []
        head = 0
        droppedCount = 0
    }

    /// Removes the entries `shouldRemove` picks (they are not counted as dropped).
    /// - Returns: The removed entries, oldest first.
    mutating func remove(where shouldRemove: (HTTPJournalEntry) -> Bool) -> [HTTPJournalEntry] {
        var kept: [HTTPJournalEntry] = []
        var removed: [HTTPJournalEntry] = []
        for entry in entries {
            if shouldRemove(entry) { removed.append(entry) } else { kept.append(entry) }
        }
        if !removed.isEmpty {
            storage = kept
            head = 0
        }
        return removed
    }
}
