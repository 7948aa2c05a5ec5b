import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What happens when in one exchange: a stubber's decision turned into steps at times, with the timeout rule
/// applied in this one place. The URLProtocol player (`ResponsePlayer`) and `HTTPStubSession` build their
/// exchanges here and only perform the steps, each on its own clock (Dispatch timers, `Task.sleep`); the stub
/// server plays a stub's response by its ``ResponseSteps``, the final part of every timeline.
///
/// Pure: no clock, no I/O, no locks. Times are seconds after the exchange began. Steps that wait on something
/// outside the timeline (a relay, a delegate's answer, a streamed body) are followed by a `.timeOut` step at the
/// timeout after them; when the answer comes, the driver calls ``resume(at:)`` and schedules what follows.
struct ExchangeTimeline {
    /// One thing to do.
    enum Step {
        /// Let the network answer the request (an ignore rule, opt-in mode, a recording).
        case relay(HTTPIncomingRequest, recording: (any HTTPExchangeRecorder)?, hop: Int)
        /// A proxying stub's delay is over: the network answers the forwarded request.
        case forward(URLRequest, hop: Int)
        /// A stubbed 3xx is due: follow it to `target` (or ask the task's delegate first).
        case redirect(HTTPResponsePlan, target: URL, from: HTTPIncomingRequest, hop: Int)
        /// The head of ``response`` is due, or its error when it has no response.
        case head
        /// The chunk at `index` of ``response``'s body is due.
        case chunk(index: Int)
        /// The whole of ``response`` has been delivered.
        case finish
        /// The exchange fails.
        case fail(any Error)
        /// Nothing happened for longer than the timeout.
        case timeOut
    }

    /// A step and its time, in seconds after the exchange began.
    struct Entry {
        let time: Double
        let step: Step
    }

    /// The longest wait, in seconds, between two events (the request, a response head, a chunk).
    let timeout: Double
    /// The steps scheduled before the final response (relays, redirects, waits, failures), in order of time;
    /// those before `position` are done.
    private var entries: [Entry] = []
    private var position = 0
    /// The final response's steps, worked out one at a time after `entries` (no list of them is built).
    private var responseSteps: ResponseSteps?
    /// When the last event scheduled before the final response happens, for the timeout.
    private var eventBeforeResponse = 0.0
    /// Whether a step scheduled before the final response is a time-out (nothing after it is scheduled).
    private var timedOutBeforeResponse = false
    /// The plan whose response the `.head`, `.chunk` and `.finish` steps deliver: the final one, once known.
    /// (Held here once rather than in each step: a plan is copied with every step that holds it.)
    private(set) var response: HTTPResponsePlan?

    init(timeout: Double) {
        self.timeout = timeout
    }

    /// When the last event happens, for the timeout.
    var lastEvent: Double {
        responseSteps?.lastEvent.seconds ?? eventBeforeResponse
    }

    /// Whether the timeline ends in a time-out (nothing after it is scheduled).
    var hasTimedOut: Bool {
        timedOutBeforeResponse || responseSteps?.timesOut == true
    }

    // MARK: - Scheduling

    /// Schedules what a decision leads to for a request made at `offset`: a final response, a redirect, a relay
    /// or a failure. `hop` counts the redirects followed so far.
    mutating func schedule(_ decision: HTTPStubDecision, for request: HTTPIncomingRequest, hop: Int, at offset: Double)
    {
        switch decision {
        case .stub(let plan) where plan.proxy != nil:
            let time = offset + plan.responseDeadline.seconds
            if let forwarded = plan.proxy?.forwarded(request) {
                add(time, isEvent: true, .forward(forwarded, hop: hop))
                add(time + timeout, isEvent: false, .timeOut)
            } else {
                add(time, isEvent: false, .fail(URLError(.badURL)))
            }
        case .stub(let plan):
            if let target = Redirect.target(of: plan) {
                add(
                    offset + plan.responseDeadline.seconds, isEvent: true,
                    .redirect(plan, target: target, from: request, hop: hop))
            } else {
                scheduleResponse(plan, at: offset)
            }
        case .passThrough(let reason):
            let recording: (any HTTPExchangeRecorder)? =
                if case .recording(let recording) = reason { recording } else { nil }
            add(offset, isEvent: true, .relay(request, recording: recording, hop: hop))
            // The network's answer must come within the timeout too: a hung relay must not hang the caller.
            add(offset + timeout, isEvent: false, .timeOut)
        case .unmatched(let report):
            add(
                offset, isEvent: false,
                .fail(HTTPStubberError(code: .unmatchedRequest, message: report.description, report: report)))
        }
    }

    /// Schedules a plan's response as the final one, for a request made at `offset`: the head at the response
    /// deadline, each chunk at its own, then the end (or the plan's error at the response deadline). Nothing is
    /// scheduled after it.
    mutating func scheduleResponse(_ plan: HTTPResponsePlan, at offset: Double) {
        guard responseSteps == nil, !timedOutBeforeResponse else { return }
        response = plan
        responseSteps = ResponseSteps(
            plan, at: .seconds(offset), timeout: timeout.isFinite ? .seconds(timeout) : nil,
            lastEvent: .seconds(eventBeforeResponse))
    }

    /// Waits for something outside the timeline (a delegate's answer, a request body) that began at `time`:
    /// the exchange times out unless ``resume(at:)`` comes first.
    mutating func wait(from time: Double) {
        add(time + timeout, isEvent: false, .timeOut)
    }

    /// The wait is over at `time`, an event: what was pending (its time-out) is dropped; schedule what follows.
    mutating func resume(at time: Double) {
        clear()
        eventBeforeResponse = time
    }

    /// Fails the exchange at `time`, whatever the timeout.
    mutating func fail(_ error: any Error, at time: Double) {
        entries.append(Entry(time: time, step: .fail(error)))
    }

    /// Adds a step before the final response; an event (`isEvent`) later than the timeout allows after the
    /// previous event becomes a time-out at that limit, and ends the timeline.
    private mutating func add(_ time: Double, isEvent: Bool, _ step: Step) {
        guard responseSteps == nil, !timedOutBeforeResponse else { return }
        if isEvent {
            if time - eventBeforeResponse > timeout {
                timedOutBeforeResponse = true
                entries.append(Entry(time: eventBeforeResponse + timeout, step: .timeOut))
                return
            }
            eventBeforeResponse = max(eventBeforeResponse, time)
        }
        entries.append(Entry(time: time, step: step))
    }

    /// The error a `.timeOut` step fails with, as URLSession reports a request that timed out.
    static func timedOut(_ url: URL?) -> URLError {
        URLError(.timedOut, userInfo: Redirect.failingURLInfo(url, "The request timed out."))
    }

    // MARK: - Performing

    /// The steps still to perform, in order of time.
    var pending: [Entry] {
        var rest = self
        var steps: [Entry] = []
        while let entry = rest.removeNext() { steps.append(entry) }
        return steps
    }

    /// The next step, without removing it.
    var next: Entry? {
        if position < entries.count { return entries[position] }
        return responseSteps?.next.map { Entry(time: $0.time.seconds, step: Step($0.step)) }
    }

    /// Removes and returns the next step.
    mutating func removeNext() -> Entry? {
        if position < entries.count {
            position += 1
            return entries[position - 1]
        }
        return responseSteps?.removeNext().map { Entry(time: $0.time.seconds, step: Step($0.step)) }
    }

    /// Drops every step still to perform (the exchange ended, or a wait did).
    mutating func clear() {
        entries = []
        position = 0
        if let responseSteps {
            eventBeforeResponse = responseSteps.lastEvent.seconds
            self.responseSteps = nil
        }
    }
}

extension ExchangeTimeline.Step {
    /// A response's step as a step of the exchange.
    init(_ step: ResponseSteps.Step) {
        switch step {
        case .head: self = .head
        case .chunk(let index): self = .chunk(index: index)
        case .finish: self = .finish
        case .timeOut: self = .timeOut
        }
    }
}
