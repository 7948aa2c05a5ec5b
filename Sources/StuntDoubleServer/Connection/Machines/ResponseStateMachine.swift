import NIOCore
import NIOHTTP1
import StuntDouble

/// One response of a connection (or of an HTTP/2 stream), as a state machine: what is due when, taken into
/// writes of a bounded size; an upstream's answer passed on as it arrives, no faster than the client takes it;
/// a stub's failure when its head is due. Pure, as async-http-client's `HTTPRequestStateMachine`: no channel, no
/// clock (the time comes with each event), and it owns everything it reads. `ConnectionStateMachine` holds it
/// while it is the connection's response, and turns what it says into actions.
///
/// Made by the handler from a stub's plan, the server's own answer or a proxied request
/// (`ResponseStateMachine+Preparing.swift`); an upstream's answer is taken in `+Relaying.swift`.
struct ResponseStateMachine {
    enum State {
        /// A proxying stub waits out its delay; its request is forwarded at `start`.
        case forwarding(start: NIODeadline, Relaying)
        /// Head and body known: each step taken when it is due.
        case playing(Playing)
        /// An upstream's answer, passed on as it arrives.
        case relaying(Relaying)
        /// A stub that fails when its head is due: the error, or a fault committed on the wire.
        case failing(Failing)
        /// Every step of an event stream that stays open has been taken: it ends when the connection does.
        case heldOpen(ResponseRecord)
        /// Its end has been handed over, or it failed, or the connection ended it.
        case ended
        /// Only while a case's payload is being changed in place (no copy of its buffers).
        case modifying
    }

    /// A response whose head and body are known: a stub's, or the server's own.
    struct Playing {
        /// The head, the body the chunks of `steps` are ranges of, and whether the connection stays open after them:
        /// a stub's are made once and shared by every response it plays, never copied.
        let wire: WireResponse
        /// Whether the body goes out in HTTP/1.1 chunks (not for a response without a body on the wire).
        let chunked: Bool
        /// Whether the whole response goes out in one write, due at once, as `wire.encoded` has it.
        let isWhole: Bool
        /// What is due when, after `receivedAt`: the head, each chunk of the body, the end.
        var steps: ResponseSteps
        let receivedAt: NIODeadline
        /// How much of the chunk due next has been taken (a large chunk goes out in pieces).
        var chunkOffset = 0
        var record: ResponseRecord

        /// The record, taken as the response ends (swapped out, not copied: a copy retains what it holds).
        mutating func takeRecord() -> ResponseRecord { record.take() }

        init(
            wire: WireResponse, chunked: Bool, steps: ResponseSteps, receivedAt: NIODeadline, record: ResponseRecord
        ) {
            self.wire = wire
            self.chunked = chunked
            self.steps = steps
            self.receivedAt = receivedAt
            self.record = record
            // Due at once, and the body (if it goes out) in one chunk: what `wire.encoded` holds.
            let body = wire.body.readableBytes
            isWhole =
                wire.encoded != nil && steps.isImmediate && !steps.isEndless
                && (steps.chunks.isEmpty
                    ? body == 0 : steps.chunks.count == 1 && steps.chunks[0].range == 0..<body)
        }
    }

    /// A response that fails when its head is due.
    struct Failing {
        /// When the head is due, or `nil` for at once.
        let due: NIODeadline?
        let failure: ResponseFailure
        var record: ResponseRecord
    }

    /// An upstream's answer, as far as it has come.
    struct Relaying {
        /// What the request asks of the head.
        let requirements: HeadRequirements
        /// Holds the upstream back while the client is slow.
        let flow: UpstreamFlow
        /// The upstream's head, once it came.
        var head: (head: ResponseHead, keepAlive: Bool, sendsBody: Bool)?
        var headWritten = false
        /// The body's parts as the upstream sent them, waiting for the socket, and how many bytes they hold.
        var parts = CircularBuffer<ByteBuffer>()
        var backlog = 0
        /// How much of the body its head declared and has not come yet.
        var remaining: Int?
        /// Whether every part of the body has come.
        var bodyComplete = false
        var record: ResponseRecord

        /// The record, taken as the response ends (swapped out, not copied).
        mutating func takeRecord() -> ResponseRecord { record.take() }
    }

    /// Where taking a response's due steps stopped.
    enum Progress {
        /// Nothing more is due until then (the writes are empty).
        case wait(until: NIODeadline)
        /// Write what was taken, then ask again: the writes are full, or what follows must wait.
        case write
        /// Nothing more until the upstream sends it; let it send (`flow`) when it is held.
        case awaitUpstream(open: UpstreamFlow?)
        /// The proxying stub's delay is over: forward its request now.
        case forward
        /// The stub fails now (the writes are empty).
        case fail(ResponseFailure, ResponseRecord)
        /// An event stream that stays open has nothing more to send (the writes are empty).
        case heldOpen
        /// The writes hold the response's end; the connection stays open after it when `keepAlive`.
        case ended(keepAlive: Bool)
    }

    /// The response's number on its connection: an upstream's events name the response they belong to.
    let id: Int

    /// Where the response is (changed only by the machine's own methods, in this file and its extensions). Kept in a
    /// box copied on write: the machine is a value, and the connection's state, which holds it, stays one word
    /// wide (an enum with payloads this large is copied and moved by runtime calls, hundreds of instructions each,
    /// several times a request).
    var state: State {
        get { storage.state }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.state) }
            yield &storage.state
        }
    }
    private var storage: Storage

    private final class Storage {
        var state: State

        init(_ state: State) {
            self.state = state
        }
    }

    init(id: Int, state: State) {
        self.id = id
        storage = Storage(state)
    }

    /// Takes the state out, leaving `.modifying` until the caller puts one back: a payload bound from the value
    /// returned is moved, not copied (a local taken with `swap` and switched on with `consume` was copied whole).
    @inline(__always)
    private mutating func takeState() -> State {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.state) }
        var taken = State.modifying
        swap(&taken, &storage.state)
        return taken
    }

    /// Whether the response's head has gone out (then a failure can only cut the connection).
    var headWritten: Bool {
        switch state {
        case .playing(let playing): playing.steps.next.map { $0.step != .head } ?? true
        case .relaying(let relaying): relaying.headWritten
        case .heldOpen, .ended: true
        case .forwarding, .failing: false
        case .modifying: preconditionFailure("ResponseStateMachine is being modified")
        }
    }

    /// Whether the response would never end on its own (an event stream that repeats forever or stays open).
    var isEndless: Bool {
        switch state {
        case .playing(let playing): playing.steps.isEndless
        case .heldOpen: true
        case .forwarding, .relaying, .failing, .ended: false
        case .modifying: preconditionFailure("ResponseStateMachine is being modified")
        }
    }

    // MARK: - Taking what is due

    /// Takes whatever of the response is due and fits, into `writes` (empty when called); says what comes next.
    /// `now` is read only when a step has a time: a response due at once needs no clock.
    mutating func produce(
        into writes: inout ResponseWrites, limits: ConnectionStateMachine.Limits, now: () -> NIODeadline
    ) -> Progress {
        // The state is taken out and put back: what is bound from it is moved, not copied.
        switch takeState() {
        case .playing(var playing):
            let progress = Self.take(&playing, into: &writes, limits: limits, now: now)
            switch progress {
            case .ended:
                writes.ends = playing.takeRecord()
                state = .ended
            case .heldOpen:
                state = .heldOpen(playing.takeRecord())
                return writes.isEmpty ? .heldOpen : .write
            case .wait, .write:
                state = .playing(playing)
            case .awaitUpstream, .forward, .fail:
                preconditionFailure("a playing response cannot \(progress)")
            }
            return progress
        case .relaying(var relaying):
            let progress = Self.take(&relaying, into: &writes, limits: limits)
            if case .ended = progress {
                writes.ends = relaying.takeRecord()
                state = .ended
            } else {
                state = .relaying(relaying)
            }
            return progress
        case .forwarding(let start, let relaying):
            if now() < start {
                state = .forwarding(start: start, relaying)
                return .wait(until: start)
            }
            state = .relaying(relaying)
            return .forward
        case .failing(let failing):
            if let due = failing.due, now() < due {
                state = .failing(failing)
                return .wait(until: due)
            }
            state = .ended
            return .fail(failing.failure, failing.record)
        case .heldOpen(let record):
            state = .heldOpen(record)
            return .heldOpen
        case .ended:
            preconditionFailure("a response that ended has nothing to take")
        case .modifying:
            preconditionFailure("ResponseStateMachine is being modified")
        }
    }

    /// Takes every step of a known response that is due: its head, then its body's chunks in pieces, up to the
    /// write's size.
    private static func take(
        _ playing: inout Playing, into writes: inout ResponseWrites, limits: ConnectionStateMachine.Limits,
        now clock: () -> NIODeadline
    ) -> Progress {
        writes.chunked = playing.chunked
        var now: NIODeadline?
        while let next = playing.steps.next {
            if !playing.steps.isImmediate {
                let deadline = playing.receivedAt + TimeAmount(next.time)
                if now == nil { now = clock() }
                if now! < deadline { return writes.isEmpty ? .wait(until: deadline) : .write }
            }
            switch next.step {
            case .head where playing.isWhole:
                // Head and body, due at once, in one buffer made beforehand.
                writes.append(head: playing.wire.head)
                if playing.wire.body.readableBytes > 0 { writes.append(body: playing.wire.body) }
                writes.encoded = playing.wire.encoded
                playing.record.bytesWritten = playing.wire.body.readableBytes
                return .ended(keepAlive: playing.wire.keepAlive)
            case .head:
                writes.append(head: playing.wire.head)
            case .chunk(let index):
                if writes.byteCount >= limits.batchSize { return .write }
                let chunk = playing.steps.chunks[index]
                let start = chunk.range.lowerBound + playing.chunkOffset
                let end = min(chunk.range.upperBound, start + limits.pieceSize)
                if end > start {
                    writes.append(
                        body: playing.wire.body.getSlice(
                            at: playing.wire.body.readerIndex + start, length: end - start)!)
                }
                playing.record.bytesWritten += end - start
                guard end == chunk.range.upperBound else {
                    // The rest of the chunk goes out in the next pieces.
                    playing.chunkOffset = end - chunk.range.lowerBound
                    continue
                }
                playing.chunkOffset = 0
            case .finish, .timeOut:
                // The server has no timeout: the end.
                return .ended(keepAlive: playing.wire.keepAlive)
            }
            playing.steps.removeNext()
        }
        return playing.steps.isHeldOpen ? .heldOpen : .ended(keepAlive: playing.wire.keepAlive)
    }

    // MARK: - Ending early

    /// The connection ends the response before it has (the client left, a stalled reader, a malformed request
    /// behind it): its record, to be recorded with why, unless it had ended already.
    mutating func endEarly() -> ResponseRecord? {
        let record: ResponseRecord?
        switch state {
        case .forwarding(_, let relaying), .relaying(let relaying): record = relaying.record
        case .playing(let playing): record = playing.record
        case .failing(let failing): record = failing.record
        case .heldOpen(let held): record = held
        case .ended: record = nil
        case .modifying: preconditionFailure("ResponseStateMachine is being modified")
        }
        state = .ended
        return record
    }
}

/// How a stub's response fails when its head is due.
enum ResponseFailure: Sendable {
    /// The connection closes without a response: what a client sees of a network error.
    case error(any Error)
    /// A fault committed on the wire (WireMock's); the error is what in-process clients get instead.
    case fault(HTTPStubFault, any Error)

    var error: any Error {
        switch self {
        case .error(let error), .fault(_, let error): error
        }
    }
}

extension TimeAmount {
    /// A `Duration` as a `TimeAmount` (nanoseconds).
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
