import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// How a test client takes a response's bytes from its socket.
enum ReadPace: Sendable, CustomStringConvertible {
    /// As fast as they come.
    case fast
    /// About `bytesPerSecond`: a read of 16 KiB at most, then a wait as long as those bytes take at that rate.
    case slow(bytesPerSecond: Int)
    /// As fast as they come, but once `afterBytes` have arrived, nothing for `pause`.
    case pausing(afterBytes: Int, pause: Duration)
    /// Drawn from a seed, read by read: now fast, now at a rate between 256 kB/s and 8 MB/s, now a pause of up to
    /// half a second.
    case random(seed: UInt64)

    var description: String {
        switch self {
        case .fast: "fast"
        case .slow(let rate): "slow (\(rate / 1000) kB/s)"
        case .pausing(let after, let pause): "pausing \(pause) after \(after) B"
        case .random(let seed): "random (pace seed \(seed))"
        }
    }

    /// How long to wait before the next read, after one that brought `bytes` (in total `total` so far); `state`
    /// carries what the pace remembers between reads.
    func wait(after bytes: Int, total: Int, state: inout PaceState) -> Duration {
        switch self {
        case .fast:
            return .zero
        case .slow(let rate):
            return .seconds(Double(bytes) / Double(rate))
        case .pausing(let after, let pause):
            guard !state.paused, total >= after else { return .zero }
            state.paused = true
            return pause
        case .random(let seed):
            if state.random == 0 { state.random = seed | 1 }
            let draw = state.next()
            switch draw % 10 {
            case 0: return .milliseconds(Int(state.next() % 500))
            case 1, 2, 3:
                let rate = 256_000 + Int(state.next() % 7_744_000)
                return .seconds(Double(bytes) / Double(rate))
            default: return .zero
            }
        }
    }
}

/// What a `ReadPace` remembers between reads.
struct PaceState {
    var paused = false
    var random: UInt64 = 0

    /// SplitMix64.
    mutating func next() -> UInt64 {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One HTTP/1.x connection, plain or TLS, that sends raw bytes and reads responses at the pace the test chooses:
/// its socket is read only when the pace allows (`autoRead` off) and its receive buffer is small, so that a
/// slow client holds the server back through TCP as a real one does.
final class PacedConnection: Sendable {
    private let channel: any Channel
    private let reader: Reader

    /// Connects.
    /// - Parameters:
    ///   - port: The server's port on 127.0.0.1.
    ///   - tls: TLS to speak (ALPN `http/1.1`), or `nil` for plain HTTP.
    ///   - pace: How fast the client reads.
    ///   - keepsBodies: Whether responses keep their whole bodies (by default, their first 64 KiB).
    ///   - first: Bytes sent the moment the connection is open, from the client's event loop (a test whose server has
    ///     a short idle timeout sends its first request so: the test's task may wait seconds for a thread on a busy
    ///     machine), and the methods of the requests in them.
    ///   - group: The event loops the client reads on; the shared ones by default (a test whose timing matters gives
    ///     its client loops of its own, which other tests' work on the shared ones cannot hold up).
    /// - Returns: The connection.
    /// - Throws: When it cannot connect.
    static func connect(
        port: Int, tls: NIOSSLContext?, pace: ReadPace, keepsBodies: Bool = false,
        sending first: (text: String, methods: [String])? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> PacedConnection {
        let reader = Reader(pace: pace)
        if keepsBodies { reader.state.keptBodyBytes = .max }
        if let first {
            for method in first.methods { reader.state.expect(method: method) }
            reader.followUps.append((0, ByteBuffer(string: first.text)))
        }
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.seconds(120))  // a bound for a loaded machine, not a claim
            .channelOption(.autoRead, value: false)
            .channelOption(.socketOption(.so_rcvbuf), value: 64 << 10)
            .channelOption(.maxMessagesPerRead, value: 1)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 16 << 10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: tls, serverHostname: "localhost"))
                    }
                    try channel.pipeline.syncOperations.addHandler(reader)
                }
            }
        let channel = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
        return PacedConnection(channel: channel, reader: reader)
    }

    private init(channel: any Channel, reader: Reader) {
        self.channel = channel
        self.reader = reader
    }

    /// Sends bytes.
    func send(_ text: String, methods: [String]) async throws {
        try await channel.eventLoop.submit { [reader] in
            for method in methods { reader.state.expect(method: method) }
        }.get()
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    /// Sends bytes from the client's event loop the moment `count` responses have been read in all: a client that
    /// asks again as soon as it has its answer, however long the test's task then waits for a thread (on a busy
    /// machine, seconds: longer than a short idle timeout).
    func send(_ text: String, methods: [String], afterResponses count: Int) async throws {
        try await channel.eventLoop.submit { [reader, channel] in
            for method in methods { reader.state.expect(method: method) }
            reader.followUps.append((count, ByteBuffer(string: text)))
            reader.sendFollowUps(on: channel)
        }.get()
    }

    /// When each response read so far was complete, as the client's event loop saw it.
    var completionTimes: [ContinuousClock.Instant] {
        get async { (try? await channel.eventLoop.submit { [reader] in reader.completedAt }.get()) ?? [] }
    }

    /// Waits until `count` responses have been read in all (or the connection closes, or `timeout` passes).
    func responses(atLeast count: Int, timeout: Duration) async throws -> [HTTPResponseReader.Response] {
        let promise = channel.eventLoop.makePromise(of: [HTTPResponseReader.Response].self)
        let timer = channel.eventLoop.scheduleTask(in: timeAmount(timeout)) {
            promise.fail(Timeout(description: "no \(count) responses within \(timeout)"))
        }
        channel.eventLoop.execute { [reader] in reader.wait(for: count, promise) }
        defer { timer.cancel() }
        return try await promise.futureResult.get()
    }

    /// Waits until the server closes the connection; `false` when `timeout` passes first.
    func closedByServer(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !channel.isActive { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return !channel.isActive
    }

    /// Bytes read so far.
    var bytesRead: Int {
        get async { (try? await channel.eventLoop.submit { [reader] in reader.total }.get()) ?? 0 }
    }

    func close() async {
        try? await channel.close()
    }

    struct Timeout: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads at the pace asked for and parses what arrives; lives on the channel's event loop.
    private final class Reader: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer

        let pace: ReadPace
        var state = HTTPResponseReader()
        var total = 0
        /// Bytes to send once so many responses have been read.
        var followUps: [(afterResponses: Int, bytes: ByteBuffer)] = []
        /// When each response was complete.
        var completedAt: [ContinuousClock.Instant] = []
        private var roundBytes = 0
        private var paceState = PaceState()
        private var failure: (any Error)?
        private var closed = false
        private var waiting: (count: Int, promise: EventLoopPromise<[HTTPResponseReader.Response]>)?

        init(pace: ReadPace) {
            self.pace = pace
        }

        func wait(for count: Int, _ promise: EventLoopPromise<[HTTPResponseReader.Response]>) {
            waiting = (count, promise)
            check()
        }

        private func check() {
            guard let (count, promise) = waiting else { return }
            if state.responses.count >= count {
                waiting = nil
                promise.succeed(state.responses)
            } else if let failure {
                waiting = nil
                promise.fail(failure)
            } else if closed {
                waiting = nil
                promise.fail(
                    Timeout(
                        description: "the server closed the connection after \(state.responses.count) of \(count) "
                            + "responses (\(total) bytes read)"))
            }
        }

        func channelActive(context: ChannelHandlerContext) {
            sendFollowUps(on: context.channel)
            context.read()
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            total += buffer.readableBytes
            roundBytes += buffer.readableBytes
            do {
                try state.feed(buffer)
            } catch {
                failure = error
            }
            while completedAt.count < state.responses.count { completedAt.append(.now) }
            sendFollowUps(on: context.channel)
            check()
        }

        func sendFollowUps(on channel: any Channel) {
            while let next = followUps.first, state.responses.count >= next.afterResponses {
                followUps.removeFirst()
                channel.writeAndFlush(next.bytes, promise: nil)
            }
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            let bytes = roundBytes
            roundBytes = 0
            let wait = pace.wait(after: bytes, total: total, state: &paceState)
            if wait == .zero {
                context.read()
            } else {
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: timeAmount(wait)) { bound.value.read() }
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            closed = true
            do {
                try state.finish()
            } catch {
                failure = failure ?? error
            }
            check()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            failure = failure ?? error
            check()
            context.close(promise: nil)
        }
    }
}

/// A `Duration` as NIO's `TimeAmount`.
func timeAmount(_ duration: Duration) -> TimeAmount {
    let (seconds, attoseconds) = duration.components
    return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
}
