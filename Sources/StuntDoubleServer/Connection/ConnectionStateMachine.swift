import NIOCore
import NIOHTTP1
import StuntDouble

/// One connection of the stub server (or one HTTP/2 stream), as a state machine: it takes events (a request's
/// parts, the socket's writability, a timer, the end of a write) and returns what to do next, as
/// async-http-client's `HTTP1ConnectionStateMachine` does. It holds no channel and reads no clock: the time
/// comes with each event, and `StubRequestHandler` only performs its actions. So every order of events can be
/// tested without a socket (`ConnectionStateMachineTests`).
///
/// What it decides:
/// - reading: requests are taken one at a time; the parts of requests that arrive while one is being answered
///   (pipelining) wait in order, and the socket is read no further meanwhile;
/// - refusals before a body is read (`413`, `431`, `400`, `501`, a stalled body's `408`), and `100 Continue`;
/// - writing: a response's head and body go out in batches of at most ``Limits/batchSize`` bytes, each step
///   when it is due and only while the socket takes more (backpressure). Every batch is followed by ``wrote``,
///   which says whether the channel is still writable: a change of writability that the write itself caused
///   (NIO reports it while the handler is still writing) is never missed;
/// - timers: one for the response's next step, one for the connection (idle, a stalled body, a stalled reader,
///   a refused request's last bytes);
/// - when the connection closes.
///
/// The response itself (its head, body, steps and how far it got) is a `Playback`, made by the handler.
struct ConnectionStateMachine {
    /// The limits and timeouts a connection keeps.
    struct Limits: Sendable {
        /// The largest request body accepted (`413` past it).
        var maximumRequestBodySize: Int
        /// The largest request head accepted (`431` past it).
        var maximumHeaderSize: Int
        /// How long a connection may stay open with no request in progress.
        var idleTimeout: TimeAmount
        /// How long a request's body may go without a byte arriving (`408` then), as nginx's `client_body_timeout`.
        var bodyTimeout: TimeAmount
        /// How long a response may go without the client taking a byte of it, as nginx's `send_timeout`: the
        /// connection closes then.
        var sendTimeout: TimeAmount
        /// How long the rest of a refused request's body is read (and dropped) before the connection closes, so
        /// that the client reads the refusal rather than a reset.
        var linger: TimeAmount = .seconds(3)
        /// The largest piece of a body written at once: a larger chunk goes out in pieces of this size.
        var pieceSize = 64 << 10
        /// The most bytes handed to the channel before the machine hears whether it is still writable.
        var batchSize = 256 << 10
        /// How much of an upstream's body may wait for a slow client before the upstream is held back.
        var upstreamBacklog = 256 << 10
    }

    enum State {
        /// Between requests: waiting for a head.
        case idle
        /// Reading a request's body.
        case receiving(HTTPRequestHead)
        /// The request is whole; the handler is working out its answer (`respond`, then ``answer(_:now:)``).
        case answering
        /// Writing a response (`playback`).
        case responding
        /// A refusal went out before the request's body ended: the rest of the body is read and dropped until
        /// it ends or the linger time passes, then the connection closes.
        case rejecting
        /// The last response is ending (or a fault breaking the connection): the connection closes when it has.
        case finishing
        case closed
    }

    /// What the handler does next.
    enum Action {
        case none
        /// Read the socket.
        case read
        /// Write the bytes of ``batch`` and flush; then report with ``wrote(writable:now:)``.
        case write
        /// Write the plain-text ``refusal`` and flush (closing after it when it `closesAtOnce`); then report with
        /// ``wrote(writable:now:)``.
        case refuse
        /// The request is whole: work out its answer and hand it to ``answer(_:now:)``. `declaresBody` says
        /// whether the head gave a length or a transfer coding (an empty body, not none).
        case respond(HTTPRequestHead, ByteBuffer, declaresBody: Bool)
        /// Set the response's timer (replacing any), then report with ``responseTimerFired(now:)``.
        case scheduleResponseTimer(NIODeadline)
        /// Set the connection's timer (replacing any), then report with ``connectionTimerFired(now:)``.
        case scheduleConnectionTimer(NIODeadline)
        /// A proxying stub's delay is over: forward its request.
        case startUpstream(Playback)
        /// Let the upstream send more of a proxied body.
        case openUpstream(Playback)
        /// Hold the upstream back: the client is slow to take what came already.
        case holdUpstream(Playback)
        /// Nobody will read the rest of an upstream's answer: let it drain.
        case abandonUpstream(Playback)
        /// A response has ended (sent, or cut short by its `endError`): record it, and close the connection when
        /// asked.
        case finish(Playback, thenClose: Bool)
        /// A stub fails when its head is due (its `kind` says how): record the error, then break the connection as
        /// the fault says (or close it without a response when there is none).
        case fail(Playback)
        /// Close the connection.
        case close(reason: CloseReason)
    }

    /// Why the machine closes a connection, for the log.
    enum CloseReason: Equatable {
        case idle, lingerEnded, refusedRequestEnded, quiescing, stalledReader, responseEnded
    }

    /// The bytes of one batch. (Actions carry no bytes: an action is a small value, and a batch's storage is used
    /// again by the next batch; the first two buffers, all of a usual response, are kept without an array.)
    struct Writes {
        private var first: ByteBuffer?
        private var second: ByteBuffer?
        private var more: [ByteBuffer] = []
        /// How many buffers the batch holds.
        private(set) var count = 0
        /// How many bytes.
        private(set) var byteCount = 0
        /// The response these bytes end: the handler reports with ``responseSent(_:error:now:)`` once they have
        /// gone out (or failed to).
        var ends: Playback?

        mutating func reset() {
            first = nil
            second = nil
            if !more.isEmpty { more.removeAll(keepingCapacity: true) }
            count = 0
            byteCount = 0
            ends = nil
        }

        mutating func append(_ buffer: ByteBuffer) {
            byteCount += buffer.readableBytes
            switch count {
            case 0: first = buffer
            case 1: second = buffer
            default: more.append(buffer)
            }
            count += 1
        }

        /// Appends a piece of a body, as a chunk when the body is chunked.
        mutating func appendBody(_ piece: ByteBuffer, chunked: Bool) {
            guard chunked else { return append(piece) }
            append(ResponseWire.chunkPrefix(length: piece.readableBytes))
            append(piece)
            append(ResponseWire.chunkSuffix)
        }

        /// Calls `body` with each buffer in order, and whether it is the last.
        func forEach(_ body: (ByteBuffer, _ isLast: Bool) -> Void) {
            if let first { body(first, count == 1) }
            if let second { body(second, count == 2) }
            for (index, buffer) in more.enumerated() { body(buffer, index == more.count - 1) }
        }

        /// The buffers in order.
        var buffers: [ByteBuffer] {
            var all: [ByteBuffer] = []
            forEach { buffer, _ in all.append(buffer) }
            return all
        }
    }

    /// A plain-text response of the server's own that ends the connection.
    struct Refusal {
        /// The refused request's head, or `nil` when it did not parse.
        let head: HTTPRequestHead?
        let status: HTTPResponseStatus
        let text: String
        /// Whether the connection closes as soon as the refusal has gone out (nothing more will be read).
        let closesAtOnce: Bool

        var version: HTTPVersion { head?.version ?? .http1_1 }
        /// Whether the text goes out (not in answer to `HEAD`).
        var sendsText: Bool { head?.method != .HEAD }
    }

    let limits: Limits
    var state = State.idle
    /// The response being written (or failing), if any.
    var playback: Playback?
    /// The bytes of the last `.write`, until ``wrote(writable:now:)``.
    var batch = Writes()
    /// The refusal of the last `.refuse`.
    var refusal: Refusal?
    /// Parts of requests that arrived while one was being answered, in order.
    var pending = CircularBuffer<HTTPServerRequestPart>()
    /// Whether a read was asked for while parts were waiting (made once they have been taken).
    var readHeld = false
    /// The body of the request being read: the first part as it arrived (no copy), then one buffer the rest is
    /// appended to, reserved from the declared length (a large upload is copied once, not once per part).
    var body: ByteBuffer?
    /// The request's `Content-Length`, when it gave one within the limit.
    var declaredLength: Int?
    /// Whether the request being read declared a body (a length, even 0, or a transfer coding).
    var declaresBody = false
    /// When the connection last became idle (or began a request).
    var idleSince: NIODeadline
    /// When the request being read last received body bytes.
    var lastBodyActivity: NIODeadline
    /// When the client last took bytes of the response (or it began): a reader that takes none for the send
    /// timeout is given up.
    var lastWriteProgress: NIODeadline
    /// When a refused request's connection closes, whatever is left of its body.
    var lingerUntil: NIODeadline?
    /// Close once the response in progress ends (the server is stopping).
    var closeAfterResponse = false
    /// Whether the channel takes more bytes, as last heard.
    var isWritable = true
    /// Whether a write (or refusal) is being performed: its end comes with ``wrote(writable:now:)``, and until
    /// then other events only note what they say.
    var isWriting = false
    /// Whether the response waits for the channel to become writable.
    var isWaitingForWritability = false
    /// Responses whose last bytes are written but not yet sent: the connection is not idle while one is.
    var unsent = 0
    /// When the connection's timer is set for, if it is.
    var connectionTimer: NIODeadline?
    /// When the response's timer is set for, if it is.
    var responseTimer: NIODeadline?
    /// A response whose head had not gone out when a malformed request ended the connection: recorded as cut
    /// short when the connection closes.
    var abandoned: Playback?

    init(limits: Limits, now: NIODeadline) {
        self.limits = limits
        idleSince = now
        lastBodyActivity = now
        lastWriteProgress = now
    }

    // MARK: - The connection

    /// The connection is open (or the machine was set up on one already open): its idle time starts.
    mutating func channelActive(now: NIODeadline) -> Action {
        idleSince = now
        lastBodyActivity = now
        lastWriteProgress = now
        return armConnectionTimer(at: now + limits.idleTimeout)
    }

    /// The connection closed: whatever response was in progress ended with it.
    mutating func channelInactive(now: NIODeadline) -> Action {
        state = .closed
        pending.removeAll()
        body = nil
        connectionTimer = nil
        responseTimer = nil
        if let playback = playback ?? abandoned {
            self.playback = nil
            abandoned = nil
            playback.endError = ConnectionClosed()
            return .finish(playback, thenClose: false)
        }
        return .none
    }

    /// Whether the connection may change protocols now (a WebSocket upgrade): nothing in progress, nothing
    /// waiting, nothing unsent.
    var canUpgrade: Bool {
        if case .idle = state, pending.isEmpty, !isWriting, unsent == 0 { return true }
        return false
    }

    /// The server is stopping: close now when no request is in progress, else once the response in progress
    /// has been sent.
    mutating func quiesce(now: NIODeadline) -> Action {
        if case .idle = state, pending.isEmpty, !isWriting, unsent == 0 {
            state = .closed
            return .close(reason: .quiescing)
        }
        if case .responding = state, playback?.steps.isEndless == true {
            // An event stream that would not end on its own ends now.
            state = .closed
            return .close(reason: .quiescing)
        }
        closeAfterResponse = true
        return .none
    }

    /// The socket may be read: read it, unless parts of requests are waiting their turn (a client that pipelines
    /// faster than it is answered is held back by TCP, not by the server's memory).
    mutating func read() -> Action {
        if case .closed = state { return .none }
        if pending.isEmpty { return .read }
        readHeld = true
        return .none
    }

    /// A request did not parse: answered with `status` and `text` (unless part of a response is out already),
    /// and the connection closes.
    mutating func parseError(status: HTTPResponseStatus, text: String, now: NIODeadline) -> Action {
        if case .closed = state { return .none }
        pending.removeAll()
        if let playback, playback.headWritten {
            state = .closed
            return .close(reason: .responseEnded)
        }
        abandoned = playback ?? abandoned
        playback = nil
        responseTimer = nil
        state = .rejecting
        refusal = Refusal(head: nil, status: status, text: text, closesAtOnce: true)
        isWriting = true
        return .refuse
    }

    // MARK: - Timers

    /// The connection's timer fired: close an idle connection, refuse a stalled body, end a linger, give up a
    /// reader that takes nothing; or set the timer again for when one of those could be due.
    mutating func connectionTimerFired(now: NIODeadline) -> Action {
        connectionTimer = nil
        switch state {
        case .idle where !isWriting && unsent == 0 && pending.isEmpty:
            if now >= idleSince + limits.idleTimeout {
                state = .closed
                return .close(reason: .idle)
            }
            return armConnectionTimer(at: idleSince + limits.idleTimeout)
        case .receiving(let head):
            if now >= lastBodyActivity + limits.bodyTimeout {
                let seconds = Self.seconds(limits.bodyTimeout)
                return refuse(
                    head, status: .requestTimeout,
                    text: "The request's body stalled: no bytes arrived for \(seconds) seconds (the server's body "
                        + "timeout, --body-timeout), so the server stops waiting. Send the whole body promptly.\n",
                    closesAtOnce: true, now: now)
            }
            return armConnectionTimer(at: lastBodyActivity + limits.bodyTimeout)
        case .rejecting:
            if let lingerUntil, now >= lingerUntil {
                state = .closed
                return .close(reason: .lingerEnded)
            }
            return armConnectionTimer(at: lingerUntil ?? now + limits.linger)
        case .closed:
            return .none
        case .idle, .answering, .responding, .finishing:
            if isWaitingForWritability || (unsent > 0 && !isWriting) {
                // The client takes nothing of what was written.
                if now >= lastWriteProgress + limits.sendTimeout {
                    return giveUpOnReader()
                }
                return armConnectionTimer(at: min(lastWriteProgress + limits.sendTimeout, now + limits.idleTimeout))
            }
            // A request is in progress: look again a whole idle timeout after it ends at the earliest.
            idleSince = now
            return armConnectionTimer(at: now + min(limits.idleTimeout, limits.sendTimeout))
        }
    }

    /// The response's timer fired: write what is due.
    mutating func responseTimerFired(now: NIODeadline) -> Action {
        responseTimer = nil
        guard case .responding = state, let playback else { return .none }
        if let start = playback.upstreamStart {
            if now < start { return armResponseTimer(at: start) }
            playback.upstreamStart = nil
            return .startUpstream(playback)
        }
        return advance(now: { now })
    }

    /// The client took nothing for the send timeout: the response is cut short and the connection closed.
    private mutating func giveUpOnReader() -> Action {
        isWaitingForWritability = false
        state = .closed
        if let playback {
            self.playback = nil
            playback.endError = StalledReader(timeout: limits.sendTimeout)
            return .finish(playback, thenClose: true)
        }
        return .close(reason: .stalledReader)
    }

    mutating func armConnectionTimer(at deadline: NIODeadline) -> Action {
        if let connectionTimer, connectionTimer <= deadline { return .none }
        connectionTimer = deadline
        return .scheduleConnectionTimer(deadline)
    }

    mutating func armResponseTimer(at deadline: NIODeadline) -> Action {
        if responseTimer == deadline { return .none }
        responseTimer = deadline
        return .scheduleResponseTimer(deadline)
    }

    static func seconds(_ amount: TimeAmount) -> String {
        let milliseconds = amount.nanoseconds / 1_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    }
}

extension TimeAmount {
    /// A `Duration` as a `TimeAmount` (nanoseconds).
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// The error a journal entry records when the client closed the connection before its response ended.
struct ConnectionClosed: Error, CustomStringConvertible {
    var description: String { "the client closed the connection before the response ended" }
}

/// The error a journal entry records when the client took none of its response for the send timeout.
struct StalledReader: Error, CustomStringConvertible {
    let timeout: TimeAmount
    var description: String {
        "the client took none of the response for \(ConnectionStateMachine.seconds(timeout)) seconds (the server's "
            + "send timeout, --send-timeout), so the server closed the connection"
    }
}
