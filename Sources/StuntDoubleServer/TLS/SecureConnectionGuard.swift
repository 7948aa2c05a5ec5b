import NIOCore

/// The first handler of an HTTPS connection: it closes a connection that has not finished its TLS handshake and
/// ALPN within the idle timeout (10 seconds at least), an HTTP/2 connection with no stream open for that long, and an HTTP/2
/// connection with no stream open when the server stops (`ChannelShouldQuiesceEvent`, passed on for HTTP/1.1's
/// handler). An HTTP/1.1 connection's idle time is its `StubRequestHandler`'s.
final class SecureConnectionGuard: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    private enum Phase { case negotiating, http1, http2 }

    private let idleTimeout: TimeAmount
    /// How long a handshake and ALPN may take: the idle timeout, but never under 10 seconds (a short idle
    /// timeout is for connections between requests, not for a slow client's handshake).
    private var handshakeTimeout: TimeAmount { max(idleTimeout, .seconds(10)) }
    private var phase = Phase.negotiating
    private var openStreams = 0
    private var isQuiescing = false
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(idleTimeout: Duration) {
        let (seconds, attoseconds) = idleTimeout.components
        self.idleTimeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { arm() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        arm()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            isQuiescing = true
            if phase == .negotiating || (phase == .http2 && openStreams == 0) {
                context.close(promise: nil)
                return
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// ALPN chose HTTP/1.1: its handler keeps the time from now on.
    func negotiatedHTTP1() {
        phase = .http1
        timer?.cancel()
    }

    /// ALPN chose HTTP/2: idle until a stream opens.
    func negotiatedHTTP2() {
        phase = .http2
        arm()
    }

    func streamOpened() {
        openStreams += 1
        timer?.cancel()
    }

    func streamClosed() {
        openStreams -= 1
        guard openStreams == 0 else { return }
        if isQuiescing {
            context?.close(promise: nil)
        } else {
            arm()
        }
    }

    /// Closes the connection after the idle (or handshake) timeout, unless something happens first.
    private func arm() {
        timer?.cancel()
        guard let context, phase != .http1 else { return }
        let timeout = phase == .negotiating ? handshakeTimeout : idleTimeout
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [weak self] in
            guard let self, self.phase != .http1, self.openStreams == 0 else { return }
            self.context?.close(promise: nil)
        }
    }
}
