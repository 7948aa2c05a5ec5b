import NIOCore
import NIOHTTP1
import StuntDouble

/// Writing a response: its steps when they are due, in batches, only while the channel takes more.
extension ConnectionStateMachine {
    /// The handler's answer to the request of the last `.respond`: a `Playback` it has prepared (a stub's plan,
    /// the admin API's answer, the server's own error, or an upstream's answer to come).
    mutating func answer(_ playback: Playback, now: NIODeadline) -> Action {
        guard case .answering = state else {
            // The connection closed while the answer was worked out (an admin call's, off the event loop).
            return .none
        }
        self.playback = playback
        state = .responding
        lastWriteProgress = now
        if let start = playback.upstreamStart {
            // A proxying stub forwards once its delay is over.
            if now < start { return armResponseTimer(at: start) }
            playback.upstreamStart = nil
            return .startUpstream(playback)
        }
        return advance(now: { now })
    }

    /// The handler has performed the last `.write` or `.refuse`; `writable` is the channel's writability now.
    mutating func wrote(writable: Bool, now: @autoclosure () -> NIODeadline) -> Action {
        isWriting = false
        batch.reset()
        if writable && !isWritable { lastWriteProgress = now() }
        isWritable = writable
        switch state {
        case .responding:
            return advance(now: now)
        case .idle, .receiving:
            return takePending(now: now())
        case .rejecting:
            if let lingerUntil {
                let action = armConnectionTimer(at: lingerUntil)
                if case .none = action { return takePending(now: now()) }
                return action
            }
            return .none
        case .answering, .finishing, .closed:
            return .none
        }
    }

    /// The channel's writability changed.
    mutating func writabilityChanged(_ writable: Bool, now: NIODeadline) -> Action {
        isWritable = writable
        guard writable else { return .none }
        lastWriteProgress = now
        // While a write is being performed, its `wrote` goes on from here.
        guard !isWriting, isWaitingForWritability else { return .none }
        isWaitingForWritability = false
        return advance(now: { now })
    }

    /// The last bytes of a response have gone out (`error` is `nil`), or could not.
    mutating func responseSent(_ playback: Playback, error: (any Error)?, now: NIODeadline) -> Action {
        unsent -= 1
        lastWriteProgress = now
        if let error {
            state = .closed
            playback.endError = error
            return .finish(playback, thenClose: true)
        }
        switch state {
        case .finishing where unsent == 0:
            // The last response has gone (a response before it may be sent after the last is handed over: then
            // the connection waits for the last).
            state = .closed
            return .finish(playback, thenClose: true)
        case .idle where closeAfterResponse && pending.isEmpty && !isWriting && unsent == 0:
            state = .closed
            return .finish(playback, thenClose: true)
        case .idle:
            // Idle from now, not from when the last bytes were handed over.
            idleSince = now
            return .finish(playback, thenClose: false)
        default:
            return .finish(playback, thenClose: false)
        }
    }

    // MARK: - Proxied responses

    /// A part of an upstream's answer arrived for `playback`; `failureText` is the answer to give instead when the
    /// upstream failed before its head went out.
    mutating func upstream(_ event: UpstreamEvent, for playback: Playback, failureText: String, now: NIODeadline)
        -> Action
    {
        guard !playback.isFinished, self.playback === playback, case .responding = state else {
            // Nobody reads the rest: let the upstream's body drain rather than wait.
            return .abandonUpstream(playback)
        }
        switch event {
        case .head(let status, let headers):
            playback.receiveUpstreamHead(status: status, headers: headers)
        case .body(let part):
            playback.receiveUpstreamBody(part)
            if playback.upstreamBacklog > limits.upstreamBacklog, isWriting || !isWritable {
                return .holdUpstream(playback)
            }
        case .end:
            playback.upstreamEnded()
        case .failed(let error):
            if playback.headWritten {
                // The client has part of the answer: it sees the connection end early, as the upstream's did.
                self.playback = nil
                state = .closed
                playback.endError = error
                return .finish(playback, thenClose: true)
            }
            // As WireMock answers: 500, with the same first words (clients and tests look for them).
            playback.prepareText(status: .internalServerError, text: failureText, outcome: "upstream failed")
        }
        if isWriting { return .none }
        return advance(now: { now })
    }

    // MARK: - Writing

    /// Where taking a response's due steps stopped.
    private enum Progress {
        /// The next step is due at this later moment.
        case due(NIODeadline)
        /// The batch is full, or the channel must take more first.
        case blocked
        /// The head waits for the upstream's (a proxied response).
        case waitingForHead
        /// The stub fails when its head is due: the connection breaks (a fault) or closes without a response.
        case fails
        /// Every step before the end has been taken.
        case atEnd
        /// Every event of a stream that stays open has been taken: nothing more is due until the client leaves.
        case heldOpen
    }

    /// Writes whatever of the response is due and fits in a batch; then waits for the next step's time, for the
    /// channel to take more, or for the upstream.
    mutating func advance(now: () -> NIODeadline) -> Action {
        guard case .responding = state, let playback, !isWriting else { return .none }
        guard isWritable else {
            isWaitingForWritability = true
            // A client that takes nothing for the send timeout is given up on: the connection's timer must
            // look by then.
            return armConnectionTimer(at: lastWriteProgress + limits.sendTimeout)
        }
        var time: NIODeadline?
        // The steps are taken in place (one exclusivity check, no copy), into the batch's storage of the last time.
        switch Self.takeDueSteps(&playback.steps, of: playback, into: &batch, limits: limits, now: &time, clock: now) {
        case .due(let deadline):
            if batch.byteCount > 0 { return write() }
            return armResponseTimer(at: deadline)
        case .blocked:
            return write()
        case .waitingForHead:
            return batch.byteCount > 0 ? write() : .none
        case .fails:
            self.playback = nil
            state = .finishing
            return .fail(playback)
        case .heldOpen:
            // The response's timer is not set again: the connection's end (the client leaving, the server
            // stopping) ends the stream.
            return batch.byteCount > 0 ? write() : .none
        case .atEnd:
            break
        }
        while let part = playback.upstreamParts.first {
            if batch.byteCount >= limits.batchSize { return write() }
            playback.upstreamParts.removeFirst()
            playback.upstreamBacklog -= part.readableBytes
            playback.bytesWritten += part.readableBytes
            if part.readableBytes > 0 { batch.appendBody(part, chunked: playback.chunked) }
        }
        if !playback.bodyComplete {
            // A proxied body: more when the upstream sends it, which it may now.
            if batch.byteCount > 0 { return write() }
            return .openUpstream(playback)
        }
        if playback.chunked { batch.append(ResponseWire.lastChunk) }
        batch.ends = playback
        unsent += 1
        self.playback = nil
        responseTimer = nil
        let staysOpen = playback.keepAlive && !closeAfterResponse
        // Idle once the response has been sent (`responseSent`): the idle timer leaves a connection alone while
        // it has unsent responses.
        state = staysOpen ? .idle : .finishing
        return write()
    }

    private mutating func write() -> Action {
        isWriting = true
        return .write
    }

    /// Takes every step of a response that is due, into a batch: its head, then its body's chunks in pieces, up
    /// to the batch's size.
    /// `now` is read from `clock` when first needed: a response due at once needs no time.
    private static func takeDueSteps(
        _ steps: inout ResponseSteps, of playback: Playback, into writes: inout Writes, limits: Limits,
        now: inout NIODeadline?, clock: () -> NIODeadline
    ) -> Progress {
        while let next = steps.next {
            if !steps.isImmediate {
                let deadline = playback.deadline(next.time)
                if now == nil { now = clock() }
                if now! < deadline { return .due(deadline) }
            }
            switch next.step {
            case .head:
                if case .response = playback.kind {} else { return .fails }
                guard playback.headReady, let head = playback.head else { return .waitingForHead }
                writes.append(head)
                playback.headWritten = true
            case .chunk(let index):
                if writes.byteCount >= limits.batchSize { return .blocked }
                let chunk = steps.chunks[index]
                let start = chunk.range.lowerBound + playback.chunkOffset
                let end = min(chunk.range.upperBound, start + limits.pieceSize)
                if end > start {
                    writes.appendBody(
                        playback.body.getSlice(at: playback.body.readerIndex + start, length: end - start)!,
                        chunked: playback.chunked)
                }
                playback.bytesWritten += end - start
                guard end == chunk.range.upperBound else {
                    // The rest of the chunk goes out in the next pieces.
                    playback.chunkOffset = end - chunk.range.lowerBound
                    continue
                }
                playback.chunkOffset = 0
            case .finish, .timeOut:
                // The end comes once a proxied body's parts are written too (the server has no timeout).
                return .atEnd
            }
            steps.removeNext()
        }
        return steps.isHeldOpen ? .heldOpen : .atEnd
    }
}
