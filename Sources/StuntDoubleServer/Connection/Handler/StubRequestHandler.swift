import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StuntDouble

/// One connection's requests (or one HTTP/2 stream's): it hands every event to the connection's
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
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let core: ServerCore
    /// Whether the connection is the HTTPS listener's (requests are `https://` URLs).
    let isSecure: Bool
    /// How responses go on the wire: HTTP/1.1 bytes, or an HTTP/2 stream's parts.
    let writer: ResponseWriter
    /// Where requests go.
    let router: RequestRouter
    /// The connection's state machine, kept out of line: a stored property of a class would be checked for
    /// exclusive access at run time on every event (about 100 instructions each, 7 events a request).
    var machine: ConnectionStateMachine {
        _read { yield machineStorage.pointee }
        _modify { yield &machineStorage.pointee }
    }
    private let machineStorage: UnsafeMutablePointer<ConnectionStateMachine>
    private var responseTimer: Scheduled<Void>?
    private var connectionTimer: Scheduled<Void>?
    /// Forwards a proxying stub's request once the machine says its delay is over.
    var pendingForward: (() -> Void)?
    /// Whether the machine has been told the connection is open.
    private var started = false
    /// The client's address, once asked for (it is the same for every request of the connection).
    private var address: String??

    init(core: ServerCore, isSecure: Bool = false, writer: ResponseWriter = .http1) {
        self.core = core
        self.isSecure = isSecure
        self.writer = writer
        router = RequestRouter(
            hasAdmin: core.hasAdmin, answersCrossOrigin: core.configuration.answersCrossOriginRequests,
            hasUpstream: core.configuration.upstream != nil,
            proxiesAdminRequests: core.configuration.proxiesAdminRequests, allowsUpgrades: writer == .http1)
        machineStorage = .allocate(capacity: 1)
        machineStorage.initialize(to: ConnectionStateMachine(limits: core.connectionLimits, now: .now()))
    }

    deinit {
        machineStorage.deinitialize(count: 1)
        machineStorage.deallocate()
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
        run(machine.channelActive(now: context.eventLoop.now), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        run(machine.channelInactive(now: context.eventLoop.now), context: context)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
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
        run(machine.received(unwrapInboundIn(data), now: context.eventLoop.now), context: context)
    }

    /// Reads the socket when the machine lets it (not while requests wait their turn).
    func read(context: ChannelHandlerContext) {
        run(machine.read(), context: context)
    }

    /// A request that does not parse gets `431` when its head is too large, `400` otherwise, with a line
    /// saying what was wrong, after the answers to the requests before it; then its connection closes. Other
    /// connections never notice.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            core.logger.debug("connection error: \(error)")
            close(context: context)
            return
        }
        let status: HTTPResponseStatus
        let text: String
        if case .headerOverflow = parserError {
            status = .requestHeaderFieldsTooLarge
            text = "The request's header fields are too large for this server. Send fewer or shorter headers.\n"
        } else {
            status = .badRequest
            text = "The request is not valid HTTP/1.1 (\(parserError)).\n"
        }
        core.logger.info("malformed request → \(status.code): \(parserError)")
        run(machine.parseError(status: status, text: text, now: context.eventLoop.now), context: context)
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
                context.read()
                return
            case .write(let writes):
                perform(writes, context: context)
                action = machine.wrote(writable: context.channel.isWritable, now: context.eventLoop.now)
            case .writeContinue:
                writer.writeContinue(context: context)
                action = machine.wrote(writable: context.channel.isWritable, now: context.eventLoop.now)
            case .refuse(let refusal):
                perform(refusal, context: context)
                action = machine.wrote(writable: context.channel.isWritable, now: context.eventLoop.now)
            case .respond(let head, let body, let declaresBody, let id):
                action = respond(to: head, body: body, declaresBody: declaresBody, id: id, context: context)
            case .scheduleResponseTimer(let deadline):
                responseTimer?.cancel()
                responseTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
                    responseTimer = nil
                    run(machine.responseTimerFired(now: context.eventLoop.now), context: context)
                }
                return
            case .scheduleConnectionTimer(let deadline):
                connectionTimer?.cancel()
                connectionTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
                    connectionTimer = nil
                    run(machine.connectionTimerFired(now: context.eventLoop.now), context: context)
                }
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
            case .finish(let record, let error, let thenClose):
                finish(record, error: error)
                if thenClose { close(context: context) }
                return
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
