/// The steps of one response: its head at the response deadline, each chunk of its body at its own deadline,
/// then its end, all moved by the offset at which the request was made; a plan that fails has its head step
/// alone (its error is due then). An event (the head, a chunk) later than the timeout allows after the one
/// before becomes a time-out at that limit, and nothing follows it.
///
/// The steps are worked out from the plan one at a time as they are taken, so that playing a response builds
/// no list and copies no plan: the final response of every ``ExchangeTimeline`` is these steps, and the stub
/// server, which has no timeout, plays a stub's response by them directly. Times are `Duration`s, as the plan's
/// deadlines are (no conversion on the server's path). Pure, like the timeline.
package struct ResponseSteps: Sendable {
    /// One thing to do.
    package enum Step: Equatable, Sendable {
        /// The head is due, or the plan's error when it fails.
        case head
        /// The chunk at this index of ``chunks`` is due.
        case chunk(Int)
        /// The whole response has been delivered.
        case finish
        /// Nothing happened for longer than the timeout.
        case timeOut
    }

    /// A step and its time. (A struct rather than a tuple: copying a tuple of these asks the runtime for its
    /// type at each copy.)
    package struct Entry: Sendable {
        /// When the step is due, after the start of the exchange.
        package let time: Duration
        /// What to do.
        package let step: Step

        init(_ time: Duration, _ step: Step) {
            self.time = time
            self.step = step
        }
    }

    /// The body's chunks, with their deadlines (before the offset): the plan's own array, not a copy (but for a
    /// body that goes out in another form, `wholeBodyLength`).
    package let chunks: [HTTPResponsePlan.Chunk]
    /// When the request was made; every deadline is moved by it.
    private let offset: Duration
    /// When the head is due.
    private let headTime: Duration
    /// Whether the plan fails at its head (nothing follows).
    private let fails: Bool
    /// The longest wait between two events, or `nil` for none.
    private let timeout: Duration?
    /// When the last event taken happened (or, before any, the last one before the response).
    private(set) var lastEvent: Duration
    /// How the chunks go on after the last (an event stream that repeats or stays open), or `nil`.
    private let continuation: HTTPResponsePlan.Continuation?
    /// Whether every step is due at the start (no delay, no paced body, no offset, no timeout), as most are: no
    /// time needs working out, nor comparing with a clock.
    package let isImmediate: Bool
    /// Which step `next` is: 0 the head, 1 to `chunks.count` the chunks (of every play, for a stream that
    /// repeats), then the end.
    private var index = 0
    /// The next step and its time, without taking it; `nil` once the last has been taken. Worked out when the
    /// step before is taken, so that looking at it costs nothing.
    package private(set) var next: Entry?

    /// The steps of a plan's response for a request made at `offset`.
    /// - Parameters:
    ///   - plan: The plan.
    ///   - offset: When the request was made; each of the plan's deadlines is moved by it.
    ///   - timeout: The longest wait between two events, or `nil` for none.
    ///   - lastEvent: When the last event before the response happened.
    ///   - body: Whether the body is delivered (not in answer to `HEAD`, nor for a status without a body):
    ///     without it, the end comes with the head.
    ///   - wholeBodyLength: For a plan whose body is one chunk, the length of the body that goes out instead (the
    ///     stub server's gzipped form of it): one chunk of that length, due when the plan's is.
    package init(
        _ plan: HTTPResponsePlan, at offset: Duration, timeout: Duration? = nil, lastEvent: Duration = .zero,
        body: Bool = true, wholeBodyLength: Int? = nil
    ) {
        if let wholeBodyLength, body, let chunk = plan.chunks.first {
            precondition(plan.chunks.count == 1, "a body of \(plan.chunks.count) chunks cannot go out in another form")
            chunks = [HTTPResponsePlan.Chunk(range: 0..<wholeBodyLength, deadline: chunk.deadline)]
        } else {
            chunks = body ? plan.chunks : []
        }
        continuation = body && !plan.chunks.isEmpty ? plan.continuation : nil
        self.offset = offset
        fails = plan.fails
        self.timeout = timeout
        self.lastEvent = lastEvent
        isImmediate = timeout == nil && plan.isImmediate && offset == .zero
        headTime = isImmediate ? .zero : offset + plan.responseDeadline
        next = checked(headTime, .head)
    }

    /// The steps of a response due whole at once, whose body is `chunks` (their deadlines aside), with no
    /// timeout: the stub server's own answers (an admin call's, an unmatched request's report).
    package init(atOnce chunks: [HTTPResponsePlan.Chunk]) {
        self.chunks = chunks
        continuation = nil
        offset = .zero
        headTime = .zero
        fails = false
        timeout = nil
        lastEvent = .zero
        isImmediate = true
        next = Entry(.zero, .head)
    }

    /// Takes the next step: returns it, and works out the one after.
    @discardableResult
    package mutating func removeNext() -> Entry? {
        guard let taken = next else { return nil }
        switch taken.step {
        case .head where fails, .finish, .timeOut:
            next = nil
            return taken
        case .head, .chunk:
            if timeout != nil, taken.time > lastEvent { lastEvent = taken.time }
        }
        index += 1
        if isImmediate {
            next = Entry(.zero, index <= chunks.count ? .chunk(index - 1) : .finish)
        } else if index <= chunks.count {
            next = checked(offset + chunks[index - 1].deadline, .chunk(index - 1))
        } else if let continuation {
            next = nextOfStream(continuation)
        } else {
            // Not an event: the end comes with the last chunk (or the head).
            next = Entry(chunks.last.map { offset + $0.deadline } ?? headTime, .finish)
        }
        return taken
    }

    /// The step at `index` of a stream whose chunks play again: a chunk of a later play, or the end after the
    /// last play (none for a stream that stays open, but the time-out, if there is one).
    private func nextOfStream(_ continuation: HTTPResponsePlan.Continuation) -> Entry? {
        let (play, position) = (index - 1).quotientAndRemainder(dividingBy: chunks.count)
        if continuation.plays.map({ play < $0 }) ?? true {
            return checked(offset + chunks[position].deadline + continuation.period * play, .chunk(position))
        }
        let end = offset + chunks[chunks.count - 1].deadline + continuation.period * (play - 1)
        guard continuation.staysOpen else { return Entry(end, .finish) }
        // Open until the client leaves: nothing is due, unless a timeout ends the wait.
        return timeout.map { Entry(lastEvent + $0, .timeOut) }
    }

    /// An event at `time`, or the time-out that comes first.
    private func checked(_ time: Duration, _ step: Step) -> Entry {
        if let timeout, time - lastEvent > timeout {
            return Entry(lastEvent + timeout, .timeOut)
        }
        return Entry(time, step)
    }

    /// Whether every step has been taken of a response that stays open (an event stream's): it does not end
    /// until the client leaves.
    package var isHeldOpen: Bool {
        next == nil && continuation?.staysOpen == true
    }

    /// Whether the response never ends on its own (an event stream that repeats forever or stays open).
    package var isEndless: Bool {
        continuation?.isEndless == true
    }

    /// Whether the steps still to take end in a time-out.
    var timesOut: Bool {
        guard timeout != nil else { return false }
        if let continuation, continuation.isEndless {
            if continuation.staysOpen { return true }
            // Forever: plays after the second repeat its gaps.
            var rest = self
            for _ in 0..<(2 * chunks.count + 2) {
                guard let step = rest.removeNext() else { return false }
                if step.step == .timeOut { return true }
            }
            return false
        }
        var rest = self
        while let step = rest.removeNext() {
            if step.step == .timeOut { return true }
        }
        return false
    }
}
