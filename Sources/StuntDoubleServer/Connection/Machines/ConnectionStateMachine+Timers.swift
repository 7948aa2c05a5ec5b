import NIOCore
import NIOHTTP1

/// The connection's timeouts: idle (no request in progress and nothing left for the client to take), a stalled
/// request body, a refused request's linger, and a client that takes none of its response. One timer serves them
/// all; when the answer depends on what the client has taken, the machine asks the kernel (`.probeKernel`): a
/// response handed to a socket can sit in its buffers for as long as the client takes to read it, and neither is
/// idle time nor, while the client reads, a stalled reader.
extension ConnectionStateMachine {
    /// The connection's timer fired.
    mutating func connectionTimerFired(now: NIODeadline) -> Action {
        timers.connection = nil
        return review(now: now, look: nil)
    }

    /// What the kernel says of the connection's output, after `.probeKernel`: `nil` when it cannot say (not a TCP
    /// socket, as an HTTP/2 stream is not).
    mutating func kernelBacklog(_ look: KernelBacklog?, now: NIODeadline) -> Action {
        if let look {
            // Progress: the client took bytes since the last look, or the last of them (which a watched response
            // may have reached since it was sent). A first look that finds bytes waiting has nothing to compare with,
            // and starts the count.
            let last = outbound.lastLook
            let drained = look.held == 0 && (outbound.mayHold || (last?.held ?? 0) > 0)
            if drained || (last.map { look.delivered != $0.delivered } ?? (look.held > 0)) {
                outbound.lastProgress = now
            }
            outbound.lastLook = look
            outbound.mayHold = look.held > 0
        } else {
            // The kernel cannot say: timeouts count from the last progress seen.
            outbound.mayHold = false
        }
        return review(now: now, look: .some(look))
    }

    /// Whether the connection has nothing in progress: no request, nothing waiting, nothing being or to be sent.
    private var isQuiet: Bool {
        waiting.items.isEmpty && !outbound.isWriting && outbound.unsent == 0
    }

    /// Whether output waits for the client: the response for the channel to take more, or responses handed over
    /// and not yet sent.
    private var waitsForClient: Bool {
        outbound.isWaitingForWritability || (outbound.unsent > 0 && !outbound.isWriting)
    }

    /// Closes an idle connection, refuses a stalled body, ends a linger, gives up a client that takes nothing, or
    /// sets the timer again for when one of those could be due. `look` is the kernel's answer to a probe made for
    /// this review (`.some(nil)` when it could not say), or `nil` when none was made.
    private mutating func review(now: NIODeadline, look: KernelBacklog??) -> Action {
        switch state {
        case .closed:
            return .none
        case .receiving(let receiving):
            if now >= receiving.lastActivity + limits.bodyTimeout {
                let seconds = Self.seconds(limits.bodyTimeout)
                return refuse(
                    receiving.head, status: .requestTimeout,
                    text: "The request's body stalled: no bytes arrived for \(seconds) seconds (the server's body "
                        + "timeout, --body-timeout), so the server stops waiting. Send the whole body promptly.\n",
                    closesAtOnce: true, now: now)
            }
            return armConnectionTimer(at: receiving.lastActivity + limits.bodyTimeout)
        case .rejecting(let lingerUntil):
            if now < lingerUntil { return armConnectionTimer(at: lingerUntil) }
            if outbound.unsent == 0 {
                state = .closed
                return .close(.lingerEnded)
            }
            // The refusal still waits for the client: nothing more is read, and it has the send timeout to take it.
            state = .closing
            return review(now: now, look: look)
        case .idle(let since) where isQuiet:
            if outbound.mayHold {
                // A large response may still be in the kernel: look until it has all been delivered.
                guard look != nil else { return .probeKernel }
                if outbound.mayHold {
                    if now >= outbound.lastProgress + limits.sendTimeout { return giveUpOnReader() }
                    return armConnectionTimer(at: now + limits.drainWatch)
                }
            }
            let deadline = max(since, outbound.lastProgress) + limits.idleTimeout
            if now < deadline { return armConnectionTimer(at: deadline) }
            // The idle time is up, unless the client has not taken everything yet.
            guard look != nil else { return .probeKernel }
            if outbound.mayHold {
                // Not idle: the client has yet to take what it was sent (or stopped taking it).
                if now >= outbound.lastProgress + limits.sendTimeout { return giveUpOnReader() }
                return armConnectionTimer(at: now + limits.drainWatch)
            }
            state = .closed
            return .close(.idle)
        case .idle, .answering, .responding, .closing:
            guard waitsForClient else {
                // A request in progress: look again a whole idle timeout after it ends at the earliest.
                return armConnectionTimer(at: now + min(limits.idleTimeout, limits.sendTimeout))
            }
            // Output waits for the client: did it take anything since the last look?
            guard look != nil else { return .probeKernel }
            if now >= outbound.lastProgress + limits.sendTimeout { return giveUpOnReader() }
            return armConnectionTimer(at: min(outbound.lastProgress + limits.sendTimeout, now + limits.probeInterval))
        case .modifying:
            preconditionFailure("ConnectionStateMachine is being modified")
        }
    }

    /// The client took nothing for the send timeout: the response in progress is cut short and the connection
    /// closed.
    private mutating func giveUpOnReader() -> Action {
        outbound.isWaitingForWritability = false
        let previous = state
        state = .closed
        if case .responding(var response) = previous, let record = response.endEarly() {
            return .finish(record, error: StalledReader(timeout: limits.sendTimeout), then: .close)
        }
        return .close(.stalledReader)
    }

    /// Sets the connection's timer for `deadline`, unless it is set for then or sooner already (it then looks
    /// again when it fires).
    mutating func armConnectionTimer(at deadline: NIODeadline) -> Action {
        if let set = timers.connection, set <= deadline { return .none }
        timers.connection = deadline
        return .scheduleConnectionTimer(deadline)
    }

    /// `armConnectionTimer`, as what follows a response's end.
    mutating func armConnectionTimerAction(at deadline: NIODeadline) -> AfterFinish {
        if case .scheduleConnectionTimer(let set) = armConnectionTimer(at: deadline) {
            return .scheduleConnectionTimer(set)
        }
        return .nothing
    }

    mutating func armResponseTimer(at deadline: NIODeadline) -> Action {
        if timers.response == deadline { return .none }
        timers.response = deadline
        return .scheduleResponseTimer(deadline)
    }
}
