import Foundation

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A clock for a stubber's URLSession delivery that only moves when the test moves it: a test of delays, pauses
/// and throttling says what time it is, so its outcome never depends on how busy the machine is.
final class ManualDeliveryClock: @unchecked Sendable {
    private let lock = NSLock()
    private var time: UInt64 = 1_000_000_000
    private var timers: [(deadline: UInt64, work: DispatchWorkItem)] = []

    /// The clock to give a stubber (`stubber.deliveryClock = clock.clock`).
    var clock: DeliveryClock {
        DeliveryClock(
            now: { [self] in lock.withLock { time } },
            schedule: { [self] deadline, work in lock.withLock { timers.append((deadline, work)) } })
    }

    /// Timers set and not cancelled, due or not.
    var pendingTimers: Int {
        lock.withLock { timers.filter { !$0.work.isCancelled }.count }
    }

    /// Moves the clock on, running each timer that falls due on the way, in order, at its own time.
    func advance(by seconds: Double) {
        let end = lock.withLock { time + UInt64(seconds * 1e9) }
        while true {
            let next = lock.withLock { () -> DispatchWorkItem? in
                timers.removeAll { $0.work.isCancelled }
                guard let index = timers.indices.min(by: { timers[$0].deadline < timers[$1].deadline }),
                    timers[index].deadline <= end
                else {
                    time = end
                    return nil
                }
                let timer = timers.remove(at: index)
                time = max(time, timer.deadline)
                return timer.work
            }
            guard let next else { return }
            next.perform()
        }
    }
}

extension URLSessionTask {
    /// Waits until everything the task's session queued on its work queue so far has run (FoundationNetworking
    /// runs a task's protocol calls there); `false` where the queue cannot be found (Apple platforms).
    @discardableResult
    func drainWorkQueue() -> Bool {
        guard let queue = TaskIntrospection.workQueue(of: self) else { return false }
        queue.sync {}
        return true
    }
}

extension URLSession {
    /// Waits until every delegate call queued so far has run.
    func drainDelegateQueue() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            delegateQueue.addOperation { done.resume() }
        }
    }
}

/// Whether a test can reach the work queue a URLSession task's protocol calls run on (FoundationNetworking).
#if canImport(FoundationNetworking)
let sessionWorkQueueIsVisible = true
#else
let sessionWorkQueueIsVisible = false
#endif
