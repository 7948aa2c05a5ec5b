import NIOCore
import NIOHTTP1
import StuntDouble

/// One connection of the stub server (or one HTTP/2 stream), as a state machine, after async-http-client's
/// `HTTP1ConnectionStateMachine`: events in (a request's parts, the channel's writability, the end of a write, a
/// timer, what the kernel says the client has taken), actions out (read, write these parts, refuse, work out an
/// answer, set a timer, record how a response ended, close). It holds no channel and reads no clock: the time
/// comes with each event. `StubRequestHandler` only performs its actions.
///
/// Its state says where the connection is in its current request, and carries what that part needs: the body
/// being read, the response being written (a `ResponseStateMachine`, which owns what is due when). Beside it, three
/// things hold in every state: the requests waiting their turn (`Waiting`), what the channel is doing with the
/// output (`Outbound`), and which timers are set (`Timers`).
///
/// Reading requests (one at a time, pipelined ones waiting in order, refusals before a body is read) is in
/// `+Reading.swift`; writing responses (in writes of bounded size, only while the channel takes more) in
/// `+Writing.swift`; the idle, body, linger and send timeouts in `+Timers.swift`.
struct ConnectionStateMachine {
    /// The limits and timeouts a connection keeps.
    struct Limits: Sendable {
        /// The largest request body accepted (`413` past it).
        var maximumRequestBodySize: Int
        /// The largest request head accepted (`431` past it).
        var maximumHeaderSize: Int
        /// How long a connection may stay open with no request in progress and nothing left for the client to take.
        var idleTimeout: TimeAmount
        /// How long a request's body may go without a byte arriving (`408` then), as nginx's `client_body_timeout`.
        var bodyTimeout: TimeAmount
        /// How long a response may go without the client taking a byte of it, as nginx's `send_timeout`: the
        /// connection closes then.
        var sendTimeout: TimeAmount
        /// Whether a `CONNECT` is a request like any other, for the handler to open a tunnel (browser proxying);
        /// otherwise it is refused (`501`).
        var opensTunnels = false
        /// How long the rest of a refused request's body is read (and dropped) before the connection closes, so
        /// that the client reads the refusal rather than a reset.
        var linger: TimeAmount = .seconds(3)
        /// The largest piece of a body written at once: a larger chunk goes out in pieces of this size.
        var pieceSize = 64 << 10
        /// The most bytes handed to the channel before the machine hears whether it is still writable.
        var batchSize = 256 << 10
        /// How much of an upstream's body may wait for a slow client before the upstream is held back.
        var upstreamBacklog = 256 << 10

        /// How often the kernel is asked what the client has taken while output waits for it: a quarter of the
        /// send timeout, so that a client that takes anything within that is never given up on.
        var probeInterval: TimeAmount {
            .nanoseconds(max(sendTimeout.nanoseconds / 4, 1_000_000))
        }
        /// How often the kernel is asked whether it has delivered a large response's last bytes: a quarter of the
        /// shorter of the idle and send timeouts, so that the idle time starts at most that long after it has.
        var drainWatch: TimeAmount {
            .nanoseconds(max(min(idleTimeout, sendTimeout).nanoseconds / 4, 1_000_000))
        }
        /// A response at least this large may still be in the kernel when it is sent (loopback takes megabytes):
        /// its delivery is watched.
        var watchedSize = 64 << 10
    }

    enum State {
        /// Between requests, waiting for a head; idle since `since` once nothing is left to send.
        case idle(since: NIODeadline)
        /// Reading a request's body.
        case receiving(Receiving)
        /// The request is whole; the handler is working out its answer (`.respond`, then ``answer(_:now:)``).
        case answering
        /// Writing a response.
        case responding(ResponseStateMachine)
        /// A refusal went out before the request's body ended: the rest of the body is read and dropped until it
        /// ends or `lingerUntil` passes, then the connection closes once the refusal has been sent.
        case rejecting(lingerUntil: NIODeadline)
        /// The last response (or a refusal) has been handed over: nothing more is read, and the connection closes
        /// once it has been sent.
        case closing
        case closed
        /// Only while a case's payload is being changed in place.
        case modifying
    }

    /// Which state, without its data: what is switched on where the data is not needed (a switch over the state
    /// itself copies it, retaining every reference in it).
    enum Kind: Equatable {
        case idle, receiving, answering, responding, rejecting, closing, closed, modifying
    }

    /// A request whose body is being read.
    struct Receiving {
        let head: HTTPRequestHead
        /// The body so far: the first part as it arrived (no copy), then one buffer the rest is appended to,
        /// reserved from the declared length (a large upload is copied once, not once per part).
        var body: ByteBuffer?
        /// The request's `Content-Length`, when it gave one within the limit.
        let declaredLength: Int?
        /// Whether the request declared a body (a length, even 0, or a transfer coding).
        let declaresBody: Bool
        /// When body bytes last arrived (or the head).
        var lastActivity: NIODeadline
        /// Whether the connection stays open after the answer (the version and `Connection` say so).
        let keepAlive: Bool
        /// Whether the head has an `Upgrade` field.
        let asksUpgrade: Bool
    }

    /// A request whose body has been read, for the handler to answer.
    struct Request {
        let head: HTTPRequestHead
        let body: ByteBuffer
        /// Whether the head gave a length or a transfer coding (an empty body, not none).
        let declaresBody: Bool
        /// Whether the connection stays open after the answer, as the request asks.
        let keepAlive: Bool
        /// Whether the head has an `Upgrade` field (a WebSocket's asks for one).
        let asksUpgrade: Bool
    }

    /// Requests that arrived while one was being answered (pipelining), in order, and what followed them that did
    /// not parse.
    struct Waiting {
        var items = CircularBuffer<RequestEvent>()
        /// Whether a read was asked for while items were waiting (made once they have been taken).
        var readHeld = false
    }

    /// What the channel is doing with the connection's output.
    struct Outbound {
        /// Whether the channel takes more bytes, as last heard.
        var isWritable = true
        /// A write (or refusal) is being performed: its end comes with ``wrote(writable:now:)``, and until then
        /// other events only note what they say.
        var isWriting = false
        /// The response in progress waits for the channel to take more.
        var isWaitingForWritability = false
        /// Responses whose last bytes were handed to the channel but not yet sent.
        var unsent = 0
        /// When the client last took bytes (a writability change, a response sent, the kernel's count moving), or
        /// a response began.
        var lastProgress: NIODeadline
        /// What the kernel had delivered to the client, and still held for it, at the last look.
        var lastLook: KernelBacklog?
        /// Whether the kernel may still hold bytes the client has not taken (a large response was sent, or the last
        /// look found some): the connection's timer then looks every `Limits.drainWatch`, so that the idle time starts
        /// when the kernel has delivered everything, not when the last byte reached it.
        var mayHold = false
    }

    /// The timers the handler has set, and for when.
    struct Timers {
        var connection: NIODeadline?
        var response: NIODeadline?
    }

    /// What the handler does next.
    enum Action {
        case none
        /// Read the socket.
        case read
        /// Write the parts of ``writes`` and flush; then report with ``wrote(writable:now:)``. When they end a
        /// response, say so with ``responseSent(_:error:now:)`` once they have gone out (or could not). (The parts
        /// stay in the machine, read in place: an action is moved several times on its way, and a small one moves
        /// cheaply.)
        case write
        /// Write `100 Continue` and flush; then report with ``wrote(writable:now:)``.
        case writeContinue
        /// Set the connection's timer for `timer` (replacing any), write the refusal and flush; then report with
        /// ``wrote(writable:now:)``, and once it has gone out (or could not) with ``refusalSent(error:now:)``.
        case refuse(Refusal, timer: NIODeadline)
        /// The request is whole: work out its answer, as the response numbered `id`, and hand it to
        /// ``answer(_:now:)``.
        case respond(Request, id: Int)
        /// Set the response's timer (replacing any), then report with ``responseTimerFired(now:)``.
        case scheduleResponseTimer(NIODeadline)
        /// Set the connection's timer (replacing any), then report with ``connectionTimerFired(now:)``.
        case scheduleConnectionTimer(NIODeadline)
        /// Ask the kernel what it has delivered to the client and still holds for it, and report with
        /// ``kernelBacklog(_:now:)``.
        case probeKernel
        /// A proxying stub's delay is over: forward its request.
        case startUpstream
        /// Let the upstream send more of a proxied body.
        case openUpstream(UpstreamFlow)
        /// Hold the upstream back: the client is slow to take what came already.
        case holdUpstream(UpstreamFlow)
        /// Nobody will read the rest of an upstream's answer: let it drain.
        case abandonUpstream
        /// A response has ended (sent, or cut short by `error`): record it, then do what `then` says.
        case finish(ResponseRecord, error: (any Error)?, then: AfterFinish)
        /// A stub fails when its head is due: record the error, then break the connection as the fault says (or
        /// close it without a response).
        case fail(ResponseFailure, ResponseRecord)
        /// Close the connection.
        case close(CloseReason)
    }

    /// What follows recording a response's end.
    enum AfterFinish: Equatable {
        case nothing
        case close
        /// Set the connection's timer (replacing any), then report with ``connectionTimerFired(now:)``.
        case scheduleConnectionTimer(NIODeadline)
    }

    /// Why the machine closes a connection, for the log.
    enum CloseReason: Equatable {
        case idle, lingerEnded, refused, quiescing, stalledReader
    }

    let limits: Limits
    /// Where the connection is (changed only by the machine's own methods, in this file and its extensions).
    var state: State
    var waiting = Waiting()
    var outbound: Outbound
    /// The parts of the last `.write`, until ``wrote(writable:now:)`` (set only by the machine).
    var writes = ResponseWrites()
    var timers = Timers()
    /// The server is stopping: close once the response in progress has been sent.
    private(set) var isQuiescing = false
    /// The number the next response gets.
    private var nextResponseID = 0

    /// Takes the state out, leaving `.modifying` until the caller puts one back: a payload bound from it is moved,
    /// not copied (its buffers stay uniquely referenced, and nothing is retained).
    @inline(__always)
    mutating func takeState() -> State {
        var taken = State.modifying
        swap(&taken, &state)
        return taken
    }

    init(limits: Limits, now: NIODeadline) {
        self.limits = limits
        state = .idle(since: now)
        outbound = Outbound(lastProgress: now)
    }

    // MARK: - The connection

    /// The connection is open (or the machine was set up on one already open): its idle time starts.
    mutating func channelActive(now: NIODeadline) -> Action {
        guard state.kind == .idle else { return .none }
        state = .idle(since: now)
        outbound.lastProgress = now
        return armConnectionTimer(at: now + limits.idleTimeout)
    }

    /// The connection closed: whatever response was in progress ended with it.
    mutating func channelInactive(now: NIODeadline) -> Action {
        let previous = state
        state = .closed
        waiting.items.removeAll()
        timers = Timers()
        if case .responding(var response) = previous, let record = response.endEarly() {
            return .finish(record, error: ConnectionClosed(), then: .nothing)
        }
        return .none
    }

    /// Whether the request being answered may change the connection's protocol (a WebSocket upgrade): nothing
    /// waits behind it, and everything before it has been sent.
    var canUpgrade: Bool {
        state.kind == .answering && waiting.items.isEmpty && !outbound.isWriting && outbound.unsent == 0
    }

    /// The request being answered changed the connection's protocol: the machine has nothing more to do.
    mutating func upgraded() -> Action {
        guard state.kind == .answering else { preconditionFailure("a connection cannot upgrade while \(state)") }
        state = .closed
        timers = Timers()
        return .none
    }

    /// The server is stopping: close now when no request is in progress, else once the response in progress has
    /// been sent (an event stream that would not end on its own ends now).
    mutating func quiesce(now: NIODeadline) -> Action {
        isQuiescing = true
        switch state {
        case .idle where waiting.items.isEmpty && !outbound.isWriting && outbound.unsent == 0:
            state = .closed
            return .close(.quiescing)
        case .responding(let response) where response.isEndless:
            // Closed as the client leaving would: the response is recorded when the channel says it closed.
            return .close(.quiescing)
        case .idle, .receiving, .answering, .responding, .rejecting, .closing, .closed:
            return .none
        case .modifying:
            preconditionFailure("ConnectionStateMachine is being modified")
        }
    }

    /// Takes the next response number.
    mutating func takeResponseID() -> Int {
        defer { nextResponseID += 1 }
        return nextResponseID
    }
}

/// What the kernel says of a connection's output: how many bytes it has delivered to the client's side in all,
/// and how many it still holds for it (sent and not yet acknowledged, or not yet sent).
struct KernelBacklog: Equatable, Sendable {
    var delivered: UInt64
    var held: Int
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

extension ConnectionStateMachine {
    static func seconds(_ amount: TimeAmount) -> String {
        let milliseconds = amount.nanoseconds / 1_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    }
}

extension ConnectionStateMachine.State {
    /// Which state this is.
    var kind: ConnectionStateMachine.Kind {
        switch self {
        case .idle: .idle
        case .receiving: .receiving
        case .answering: .answering
        case .responding: .responding
        case .rejecting: .rejecting
        case .closing: .closing
        case .closed: .closed
        case .modifying: .modifying
        }
    }
}

extension ConnectionStateMachine.State {
    /// The response of `.responding`, moved out: a `guard case` binding copied it, and with the copy alive the
    /// response's box was shared, so that its next change copied the whole response.
    consuming func takeResponse() -> ResponseStateMachine? {
        switch consume self {
        case .responding(let response): response
        default: nil
        }
    }
}
