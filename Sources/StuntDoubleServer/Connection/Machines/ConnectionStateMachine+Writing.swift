import NIOCore
import NIOHTTP1
import StuntDouble

/// Writing responses: each step of the response in progress when it is due, in writes of bounded size, only while
/// the channel takes more; an upstream's answer no faster than the client takes it.
extension ConnectionStateMachine {
    /// The handler's answer to the request of the last `.respond`.
    mutating func answer(_ response: consuming ResponseStateMachine, now: NIODeadline) -> Action {
        switch state.kind {
        case .answering:
            // Moved in: a copy kept the response's box shared while it was played, and its first change then
            // copied the whole response.
            state = .responding(consume response)
            outbound.lastProgress = now
            return advance(now: { now })
        case .closed:
            // The connection closed while the answer was worked out (an admin call's, off the event loop).
            return .none
        case .idle, .receiving, .responding, .rejecting, .closing:
            preconditionFailure("an answer cannot come while \(state)")
        case .modifying:
            preconditionFailure("ConnectionStateMachine is being modified")
        }
    }

    /// The parts of the `.write` to perform, taken out (moved, not copied): the machine adds none until
    /// ``wrote(writable:now:)``.
    mutating func takeWrites() -> ResponseWrites {
        var taken = ResponseWrites()
        swap(&taken, &writes)
        return taken
    }

    /// The handler has performed the last `.write`, `.writeContinue` or `.refuse`; `writable` is the channel's
    /// writability now.
    mutating func wrote(writable: Bool, now: @autoclosure () -> NIODeadline) -> Action {
        outbound.isWriting = false
        if !writes.isEmpty { writes = ResponseWrites() }
        if writable && !outbound.isWritable { outbound.lastProgress = now() }
        outbound.isWritable = writable
        switch state.kind {
        case .responding:
            return advance(now: now)
        case .idle, .receiving:
            let action = takeWaiting(now: now())
            guard case .none = action, outbound.unsent > 0 else { return action }
            // A response handed over waits for the client: the connection's timer watches it take it.
            return armConnectionTimer(at: now() + limits.probeInterval)
        case .closing:
            return outbound.unsent > 0 ? armConnectionTimer(at: now() + limits.probeInterval) : .none
        case .rejecting:
            // The refused request's body (and its end) may have waited for the refusal to be written.
            return takeWaiting(now: now())
        case .answering, .closed:
            return .none
        case .modifying:
            preconditionFailure("ConnectionStateMachine is being modified")
        }
    }

    /// The channel's writability changed.
    mutating func writabilityChanged(_ writable: Bool, now: NIODeadline) -> Action {
        outbound.isWritable = writable
        guard writable else { return .none }
        outbound.lastProgress = now
        // While a write is being performed, its `wrote` goes on from here.
        guard !outbound.isWriting, outbound.isWaitingForWritability else { return .none }
        outbound.isWaitingForWritability = false
        return advance(now: { now })
    }

    /// The last parts of a response have gone out (`error` is `nil`), or could not.
    mutating func responseSent(_ record: consuming ResponseRecord, error: (any Error)?, now: NIODeadline) -> Action {
        outbound.unsent -= 1
        outbound.lastProgress = now
        if let error {
            // The connection is broken: closing it ends whatever follows (`channelInactive`).
            return .finish(record, error: error, then: .close)
        }
        if record.bytesWritten >= limits.watchedSize { outbound.mayHold = true }
        switch state.kind {
        case .closing where outbound.unsent == 0:
            // The last response has gone (a response before it may be sent after the last is handed over: then
            // the connection waits for the last).
            state = .closed
            return .finish(record, error: nil, then: .close)
        case .idle
        where isQuiescing && waiting.items.isEmpty && !outbound.isWriting && outbound.unsent == 0:
            state = .closed
            return .finish(record, error: nil, then: .close)
        case .idle:
            // Idle from now, not from when the last bytes were handed over; and, for a large response, from when the
            // kernel has delivered them: the timer looks soon.
            state = .idle(since: now)
            guard outbound.mayHold, outbound.unsent == 0, !outbound.isWriting else {
                return .finish(record, error: nil, then: .nothing)
            }
            timers.connection = nil
            return .finish(record, error: nil, then: armConnectionTimerAction(at: now + limits.drainWatch))
        case .receiving, .answering, .responding, .rejecting, .closing, .closed:
            return .finish(record, error: nil, then: .nothing)
        case .modifying:
            preconditionFailure("ConnectionStateMachine is being modified")
        }
    }

    /// A refusal has gone out (`error` is `nil`), or could not.
    mutating func refusalSent(error: (any Error)?, now: NIODeadline) -> Action {
        outbound.unsent -= 1
        outbound.lastProgress = now
        switch state.kind {
        case .closed:
            return .none
        case .closing where outbound.unsent == 0:
            state = .closed
            return .close(.refused)
        case _ where error != nil:
            // The connection is broken: closing it ends whatever follows (`channelInactive`).
            state = .closed
            return .close(.refused)
        default:
            // The refused request's body is still being read and dropped, or responses before it are being sent.
            return .none
        }
    }

    /// The response's timer fired: write what is due.
    mutating func responseTimerFired(now: NIODeadline) -> Action {
        timers.response = nil
        guard state.kind == .responding else { return .none }
        return advance(now: { now })
    }

    // MARK: - Proxied responses

    /// A part of an upstream's answer arrived for the response numbered `id`; `failureText` is the answer to give
    /// instead when the upstream failed before the head went out.
    mutating func upstream(_ event: UpstreamEvent, for id: Int, failureText: String, now: NIODeadline) -> Action {
        guard state.kind == .responding, var response = takeState().takeResponse() else {
            // Nobody reads the rest: let the upstream's body drain rather than wait.
            return .abandonUpstream
        }
        guard response.id == id else {
            state = .responding(response)
            return .abandonUpstream
        }
        let outcome = response.upstream(event, failureText: failureText, receivedAt: now)
        state = .responding(response)
        switch outcome {
        case .abandoned:
            return .abandonUpstream
        case .cut(let record):
            // The client has part of the answer: it sees the connection end early, as the upstream's did.
            state = .closed
            return .finish(record, error: event.error, then: .close)
        case .queued(let backlog, let flow):
            if backlog > limits.upstreamBacklog, outbound.isWriting || !outbound.isWritable {
                return .holdUpstream(flow)
            }
        case .taken:
            break
        }
        return outbound.isWriting ? .none : advance(now: { now })
    }

    // MARK: - Writing

    /// Writes whatever of the response is due and fits in a write; then waits for the next step's time, for the
    /// channel to take more, or for the upstream.
    mutating func advance(now: () -> NIODeadline) -> Action {
        guard state.kind == .responding, !outbound.isWriting else { return .none }
        guard outbound.isWritable else {
            outbound.isWaitingForWritability = true
            // A client that takes nothing for the send timeout is given up on: the connection's timer looks.
            return armConnectionTimer(at: now() + limits.probeInterval)
        }
        guard var response = takeState().takeResponse() else { preconditionFailure("not responding") }
        let progress = response.produce(into: &writes, limits: limits, now: now)
        switch progress {
        case .wait(let deadline):
            state = .responding(response)
            return armResponseTimer(at: deadline)
        case .write:
            state = .responding(response)
            return write()
        case .awaitUpstream(let flow):
            state = .responding(response)
            return flow.map { .openUpstream($0) } ?? .none
        case .forward:
            state = .responding(response)
            return .startUpstream
        case .heldOpen:
            // The response's timer is not set again: the connection's end (the client leaving, the server
            // stopping) ends the stream.
            state = .responding(response)
            return .none
        case .fail(let failure, let record):
            state = .closed
            timers = Timers()
            return .fail(failure, record)
        case .ended(let keepAlive):
            outbound.unsent += 1
            timers.response = nil
            // Idle once the response has been sent (`responseSent`): the idle timer leaves a connection alone while
            // it has unsent responses.
            state = keepAlive && !isQuiescing ? .idle(since: outbound.lastProgress) : .closing
            return write()
        }
    }

    private mutating func write() -> Action {
        outbound.isWriting = true
        return .write
    }
}

extension UpstreamEvent {
    /// The upstream's error, when it failed.
    var error: (any Error)? {
        if case .failed(let error) = self { return error }
        return nil
    }
}
