import Foundation

/// Where the URLSession delivery path reads the time and sets its timers: the system's uptime clock and Dispatch
/// timers, unless a test gives its stubber a clock that it moves by hand (`HTTPStubber.deliveryClock`). Then a
/// test of delays, pauses and throttling says what time it is, instead of racing a loaded machine.
struct DeliveryClock: Sendable {
    /// The time, in nanoseconds on the clock's own scale.
    let now: @Sendable () -> UInt64
    /// Runs `work` once the clock reads `deadline` (nanoseconds on the same scale), unless it is cancelled first.
    let schedule: @Sendable (_ deadline: UInt64, _ work: DispatchWorkItem) -> Void

    /// The system's uptime clock, and timers on ``ResponsePlayer/timers``.
    static let system = DeliveryClock(
        now: { DispatchTime.now().uptimeNanoseconds },
        schedule: { deadline, work in
            ResponsePlayer.timers.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: deadline), execute: work)
        })
}
