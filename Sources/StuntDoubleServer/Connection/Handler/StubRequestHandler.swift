import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StuntDouble

/// One connection's requests (or one HTTP/2 stream's): it reads them (an HTTP/1.1 connection's bytes with
/// `HTTP1RequestParser`, an HTTP/2 stream's parts as SwiftNIO's codec hands them), hands every event to the connection's
/// `ConnectionStateMachine` and performs the actions the machine returns. What to do, and when, is the machine's;
/// reading the socket, writing what the machine hands over (through the connection's `ResponseWriter`: HTTP/1.1
/// bytes, or an HTTP/2 stream's parts), setting timers and working out answers are this handler's.
///
/// Working out an answer is in `StubRequestHandler+Answering.swift`: the handler asks the `RequestRouter` where
/// the request goes (once), then the engine, the admin API (`+Admin.swift`, its endpoints in `Admin/`) or the
/// upstream (`+Proxying.swift`). Performing writes, faults and recording how a response ended is in
/// `+Writing.swift`.
///
/// The admin API is a responder this handler calls, not a channel handler of its own ahead of it: responses
/// to pipelined requests must leave in the order the requests came, so one handler keeps that order for all
/// three kinds of answer.
final class StubRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    /// An HTTP/1.1 connection's bytes (an HTTP/2 stream's parts are taken out by `streamParts`).
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let core: ServerCore
    /// Whether the connection is the HTTPS listener's, or a tunnel with TLS (requests are `https://` URLs).
    let isSecure: Bool
    /// The `host:port` a tunnel goes to (browser proxying's `CONNECT`), or `nil` for a connection to the server.
    let tunnel: String?
    /// How responses go on the wire: HTTP/1.1 bytes, or an HTTP/2 stream's parts.
    let writer: ResponseWriter
    /// Where requests go.
    let router: RequestRouter
    /// The connection's state machine, kept out of line and addressed in place: a stored property of a class would
    /// be checked for exclusive access at run time on every event (about 100 instructions each, 7 events a
    /// request), and reading one of its properties through a `_read` accessor copied the whole machine.
    var machine: ConnectionStateMachine {
        unsafeAddress { UnsafePointer(machineStorage) }
        unsafeMutableAddress { machineStorage }
    }
    private let machineStorage: UnsafeMutablePointer<ConnectionStateMachine>
    private var responseTimer: Scheduled<Void>?
    private var connectionTimer: Scheduled<Void>?
    /// Forwards a proxying stub's request once the machine says its delay is over.
    var pendingForward: (() -> Void)?
    /// Whether the machine has been told the connection is open.
    private var started = false
    /// The channel's options, read without a future: asked for once (each `channel.syncOptions` made a new value,
    /// looking up the generic type's metadata, 370 instructions a response).
    private(set) var channelOptions: (any NIOSynchronousChannelOptions)?
    /// The client's address, once asked for (it is the same for every request of the connection).
    private var address: String??
    /// Reads an HTTP/1.1 connection's requests from its bytes (out of line and addressed in place, as the machine
    /// is).
    var parser: HTTP1RequestParser {
        unsafeAddress { UnsafePointer(parserStorage) }
        unsafeMutableAddress { parserStorage }
    }
    private let parserStorage: UnsafeMutablePointer<HTTP1RequestParser>
    /// Takes an HTTP/2 stream's parts out of the pipeline's values, on a stream.
    private let streamParts: StreamPartUnwrapper?
    /// Whether the connection changed protocols (a WebSocket upgrade): nothing more is read here.
    var isUpgraded = false
    /// Whether the parser's events are being handed to the machine (a `.read` the machine asks for meanwhile is
    /// the loop's to serve).
    private var isPumping = false
    /// The most request parts parsed ahead of the machine: the bytes of a read are parsed only as far as this,
    /// the rest kept as bytes until the machine has taken these (1 MB of pipelined 26-byte requests would
    /// otherwise be 40,000 request heads in memory at once).
    static let maximumWaiting = 32

    /// A handler for an HTTP/1.1 connection (`writer` `.http1`, whose bytes it reads), or an HTTP/2 stream
    /// (`.http2`, behind SwiftNIO's stream codec); `tunnel` is the target of a tunnel's connection.
    init(core: ServerCore, isSecure: Bool = false, writer: ResponseWriter = .http1, tunnel: String? = nil) {
        self.core = core
        self.isSecure = isSecure
        self.tunnel = tunnel
        self.writer = writer
        streamParts = writer == .http2 ? StreamPartUnwrapper() : nil
        parserStorage = .allocate(capacity: 1)
        parserStorage.initialize(to: HTTP1RequestParser(maximumHeadSize: core.configuration.maximumHeaderSize))
        router = RequestRouter(
            hasAdmin: core.hasAdmin, answersCrossOrigin: core.configuration.answersCrossOriginRequests,
            hasUpstream: core.configuration.upstream != nil,
            proxiesAdminRequests: core.configuration.proxiesAdminRequests, allowsUpgrades: writer == .http1,
            browserProxying: core.configuration.browserProxying.map { .on(passesThrough: $0.passesThrough) } ?? .off,
            isTunnel: tunnel != nil)
        machineStorage = .allocate(capacity: 1)
        machineStorage.initialize(to: ConnectionStateMachine(limits: core.connectionLimits, now: .now()))
    }

    deinit {
        machineStorage.deinitialize(count: 1)
        machineStorage.deallocate()
        parserStorage.deinitialize(count: 1)
        parserStorage.deallocate()
    }

    /// The client's IP address, for the admin API's journal.
    func clientAddress(_ context: ChannelHandlerContext) -> String? {
        if let address { return address }
        let found = context.channel.remoteAddress?.ipAddress
        address = .some(found)
        return found
    }

    // MARK: - Events, handed to the machine

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // After TLS and ALPN the connection is active already: no channelActive comes.
        if context.channel.isActive { start(context: context) }
    }

    private func start(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        channelOptions = context.channel.syncOptions
        run(machine.channelActive(now: context.eventLoop.now), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        // A forward that never started (the client left during the stub's delay) holds this handler: let it go.
        pendingForward = nil
        run(machine.channelInactive(now: context.eventLoop.now), context: context)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
        pendingForward = nil
        // They hold the channel, which holds this handler.
        channelOptions = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            run(machine.quiesce(now: context.eventLoop.now), context: context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        run(machine.writabilityChanged(context.channel.isWritable, now: context.eventLoop.now), context: context)
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let streamParts {
            return handle(RequestEvent(streamParts.unwrapInboundIn(data)), context: context)
        }
        parser.feed(unwrapInboundIn(data))
        pump(context: context)
    }

    /// Hands the parser's events to the machine, one at a time (a request that changes the connection's protocol
    /// leaves the bytes after it unread), until it needs more bytes or `maximumWaiting` parts wait their turn.
    private func pump(context: ChannelHandlerContext) {
        guard !isPumping else { return }
        isPumping = true
        defer { isPumping = false }
        while !isUpgraded, machine.waiting.items.count < Self.maximumWaiting, let event = parser.next() {
            handle(event, context: context)
        }
    }

    /// Hands a part of a request to the machine.
    private func handle(_ event: RequestEvent, context: ChannelHandlerContext) {
        if case .malformed(let status, let text) = event {
            core.logger.info("malformed request → \(status.code): \(text.dropLast())")
        }
        run(machine.received(event, now: context.eventLoop.now), context: context)
    }

    /// Reads the socket when the machine lets it (not while requests wait their turn).
    func read(context: ChannelHandlerContext) {
        run(machine.read(), context: context)
    }

    /// An error in the pipeline (TLS, an HTTP/2 stream's codec) ends the connection; other connections never
    /// notice. (A request that does not parse is an event of the reader's: refused in its turn.)
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        core.logger.debug("connection error: \(error)")
        close(context: context)
    }

    // MARK: - Performing the machine's actions

    /// Performs an action, and those that follow from it, until the machine waits for an event.
    func run(_ first: consuming ConnectionStateMachine.Action, context: ChannelHandlerContext) {
        var action = first
        while true {
            switch consume action {
            case .none:
                return
            case .read:
                // Parts parsed from bytes already read come first: the socket may have nothing more to say.
                if isPumping { return }
                if streamParts == nil, parser.mayHaveEvents {
                    pump(context: context)
                    // Whether the machine still wants bytes, now that it has what was read.
                    guard machine.waiting.items.isEmpty else {
                        action = machine.read()
                        continue
                    }
                }
                context.read()
                return
            case .write:
                perform(machine.takeWrites(), context: context)
                action = machine.wrote(writable: context.channel.isWritable, now: context.eventLoop.now)
            case .writeContinue:
                writer.writeContinue(context: context)
                action = machine.wrote(writable: context.channel.isWritable, now: context.eventLoop.now)
            case .refuse(let refusal, let timer):
                // Set before the refusal is written: one that closes at once may close the channel as it is.
                schedule(connectionTimer: timer, context: context)
                perform(refusal, context: context)
                action = machine.wrote(writable: context.channel.isWritable, now: context.eventLoop.now)
            case .respond(let request, let id):
                action = respond(to: request, id: id, context: context)
            case .scheduleResponseTimer(let deadline):
                responseTimer?.cancel()
                responseTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
                    responseTimer = nil
                    run(machine.responseTimerFired(now: context.eventLoop.now), context: context)
                }
                return
            case .scheduleConnectionTimer(let deadline):
                schedule(connectionTimer: deadline, context: context)
                return
            case .probeKernel:
                let look = KernelProbe.look(at: context.channel)
                action = machine.kernelBacklog(look, now: context.eventLoop.now)
            case .startUpstream:
                let forward = pendingForward
                pendingForward = nil
                forward?()
                return
            case .openUpstream(let flow):
                flow.open()
                return
            case .holdUpstream(let flow):
                flow.close()
                return
            case .abandonUpstream:
                return
            case .finish(let record, let error, let then):
                finish(record, error: error)
                switch then {
                case .nothing:
                    return
                case .close:
                    close(context: context)
                    return
                case .scheduleConnectionTimer(let deadline):
                    action = .scheduleConnectionTimer(deadline)
                }
            case .fail(let failure, let record):
                finish(record, error: failure.error)
                switch failure {
                case .fault(let fault, _):
                    writer.commit(fault, context: context) { [self] in close(context: context) }
                case .error:
                    // What a client sees of a network error: the connection ends without a response.
                    close(context: context)
                }
                return
            case .close(let reason):
                if reason == .idle {
                    core.logger.debug("closing a connection idle for \(core.configuration.idleTimeout)")
                }
                close(context: context)
                return
            }
        }
    }

    private func schedule(connectionTimer deadline: NIODeadline, context: ChannelHandlerContext) {
        connectionTimer?.cancel()
        connectionTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            connectionTimer = nil
            run(machine.connectionTimerFired(now: context.eventLoop.now), context: context)
        }
    }

    func close(context: ChannelHandlerContext) {
        cancelTimers()
        context.close(promise: nil)
    }

    private func cancelTimers() {
        responseTimer?.cancel()
        responseTimer = nil
        connectionTimer?.cancel()
        connectionTimer = nil
    }
}
