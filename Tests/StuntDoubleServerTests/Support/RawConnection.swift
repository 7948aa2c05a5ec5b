import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP connection that sends and reads raw bytes, for what HTTP clients will not send (pipelined requests,
/// malformed heads, `Expect: 100-continue` read step by step).
final class RawConnection: Sendable {
    private let channel: any Channel
    private let inbox: Inbox

    /// What the connection received, and whether it closed.
    final class Inbox: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        /// Bytes sent the moment the connection is up, on the event loop (not when the test's task next runs).
        let greeting: Data?

        init(greeting: Data? = nil) {
            self.greeting = greeting
        }

        func channelActive(context: ChannelHandlerContext) {
            if let greeting {
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: greeting)), promise: nil)
            }
            context.fireChannelActive()
        }
        /// What arrived, whether the connection closed, how many times either changed, and the readers waiting
        /// for the next change.
        struct State {
            var data = Data()
            var closed = false
            var version = 0
            var waiters: [CheckedContinuation<Void, Never>] = []
        }

        let state = NIOLockedValueBox(State())
        /// When each read arrived and how many bytes it brought, timed on the event loop's own thread (not
        /// the test's task, which a loaded machine can hold up long enough to see several reads as one).
        let reads = NIOLockedValueBox<[(at: ContinuousClock.Instant, bytes: Int)]>([])

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            let now = ContinuousClock.now
            reads.withLockedValue { $0.append((now, buffer.readableBytes)) }
            changed { $0.data.append(contentsOf: buffer.readableBytesView) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            changed { $0.closed = true }
        }

        /// Changes the state and wakes the readers waiting for it.
        private func changed(_ change: (inout State) -> Void) {
            let waiters = state.withLockedValue { state in
                change(&state)
                state.version += 1
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        /// Waits until the state changes after `version`, or `deadline` passes (a timer on `eventLoop`).
        ///
        /// A reader waits for the event loop to say something arrived rather than looking every few
        /// milliseconds: a thousand connections looking every 5 ms woke 200,000 times a second, and under
        /// ThreadSanitizer starved the server they were waiting for (198 of 1,000 requests unread after 120 s).
        func waitForChange(after version: Int, until deadline: ContinuousClock.Instant, on eventLoop: any EventLoop)
            async
        {
            let timer = NIOLockedValueBox<Scheduled<Void>?>(nil)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let hasChanged = state.withLockedValue { state in
                    guard state.version == version else { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if hasChanged { return continuation.resume() }
                let state = self.state
                let scheduled = eventLoop.scheduleTask(in: TimeAmount(max(deadline - .now, .zero))) {
                    let waiters = state.withLockedValue { state in
                        defer { state.waiters = [] }
                        return state.waiters
                    }
                    for waiter in waiters { waiter.resume() }
                }
                timer.withLockedValue { $0 = scheduled }
            }
            // A timer left after its wait ended only wakes later waits early, which look again.
            timer.withLockedValue { $0 }?.cancel()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }

    private init(channel: any Channel, inbox: Inbox) {
        self.channel = channel
        self.inbox = inbox
    }

    /// Connects to a server's base URL.
    /// - Parameters:
    ///   - baseURL: The server.
    ///   - greeting: Bytes to send as soon as the connection is up, from the event loop.
    /// - Returns: The connection.
    /// - Throws: When the connection cannot be made.
    static func connect(to baseURL: URL, sending greeting: String? = nil) async throws -> RawConnection {
        let inbox = Inbox(greeting: greeting.map { Data($0.utf8) })
        // NIO's 10-second connect timeout is a bound, not a claim: a thousand connections at once on a loaded
        // 2-core machine took longer than that to be accepted in a fresh-clone CI run.
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(120))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(inbox) }
            }
            .connect(host: baseURL.host!, port: baseURL.port!).get()
        return RawConnection(channel: channel, inbox: inbox)
    }

    /// Bytes received and not yet taken.
    var received: Data { inbox.state.withLockedValue { $0.data } }
    /// Each read so far: when it arrived, and how many bytes it brought.
    var reads: [(at: ContinuousClock.Instant, bytes: Int)] { inbox.reads.withLockedValue { $0 } }
    /// Whether the server closed the connection.
    var isClosed: Bool { inbox.state.withLockedValue { $0.closed } }

    func send(_ text: String) async throws {
        try await send(Data(text.utf8))
    }

    func send(_ data: Data) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: data))
    }

    /// Waits until `done` holds for what was received, the server closes, or `timeout` passes.
    /// - Returns: Whether `done` held.
    @discardableResult
    func read(timeout: Duration = .seconds(120), until done: (Data) -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (data, closed, version) = inbox.state.withLockedValue { ($0.data, $0.closed, $0.version) }
            if done(data) { return true }
            if closed || ContinuousClock.now >= deadline { return false }
            await inbox.waitForChange(after: version, until: deadline, on: channel.eventLoop)
        }
    }

    /// Reads one whole response (head and a `Content-Length` or chunked body) and removes it from what was
    /// received.
    func readResponse(timeout: Duration = .seconds(120)) async throws -> RawResponse? {
        var response: RawResponse?
        try await read(timeout: timeout) { data in
            response = RawResponse.parse(data)
            return response != nil
        }
        if let response {
            inbox.state.withLockedValue { $0.data.removeFirst(response.length) }
        }
        return response
    }

    /// Waits until `done` holds for what was received, or the server closes; gives up only once none of the
    /// waits sharing `progress` has moved on for `stall`.
    ///
    /// For a thousand connections at once: under ThreadSanitizer, beside the 31 other tests its process runs,
    /// a test that takes 10 s alone took 200 s, and a few of its connections waited past a fixed 120 s while
    /// the server answered the others. A connection the server never answers still fails: once the others are
    /// done, nothing moves.
    @discardableResult
    func read(sharing progress: Progress, stall: Duration = .seconds(120), until done: (Data) -> Bool) async throws
        -> Bool
    {
        while true {
            if try await read(timeout: .seconds(5), until: done) {
                progress.moved()
                return true
            }
            if isClosed || progress.stalled(for: stall) { return false }
        }
    }

    /// ``readResponse(timeout:)``, giving up only once none of the waits sharing `progress` has moved on for
    /// `stall` (see ``read(sharing:stall:until:)``).
    func readResponse(sharing progress: Progress, stall: Duration = .seconds(120)) async throws -> RawResponse? {
        while true {
            if let response = try await readResponse(timeout: .seconds(5)) {
                progress.moved()
                return response
            }
            if isClosed || progress.stalled(for: stall) { return nil }
        }
    }

    /// When any of many waits last moved on.
    final class Progress: Sendable {
        private let last = NIOLockedValueBox(ContinuousClock.now)

        func moved() {
            last.withLockedValue { $0 = .now }
        }

        /// Whether nothing moved on for `duration`.
        func stalled(for duration: Duration) -> Bool {
            ContinuousClock.now - last.withLockedValue { $0 } > duration
        }
    }

    /// Waits until the server closes the connection.
    func readToClose(timeout: Duration = .seconds(120)) async throws -> Bool {
        try await read(timeout: timeout) { _ in false }
        return isClosed
    }

    func close() async {
        try? await channel.close()
    }
}

/// A response parsed from raw bytes.
struct RawResponse {
    let status: Int
    let reason: String
    let headers: [(String, String)]
    let body: Data
    /// How many bytes the response took.
    let length: Int

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// A complete response at the start of `data`, or `nil`.
    static func parse(_ data: Data) -> RawResponse? {
        let bytes = [UInt8](data)
        guard let headEnd = find([13, 10, 13, 10], in: bytes, from: 0) else { return nil }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines[0].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let reason = statusLine.count > 2 ? String(statusLine[2]) : ""
        var start = headEnd + 4
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name }?.1 }
        if status < 200 || status == 204 || status == 304 {
            return RawResponse(status: status, reason: reason, headers: headers, body: Data(), length: start)
        }
        if header("transfer-encoding")?.lowercased() == "chunked" {
            var body = Data()
            while true {
                guard let lineEnd = find([13, 10], in: bytes, from: start) else { return nil }
                let sizeText = String(decoding: bytes[start..<lineEnd], as: UTF8.self).split(separator: ";")[0]
                guard let size = Int(sizeText, radix: 16) else { return nil }
                start = lineEnd + 2
                if size == 0 {
                    guard bytes.count >= start + 2 else { return nil }
                    return RawResponse(status: status, reason: reason, headers: headers, body: body, length: start + 2)
                }
                guard bytes.count >= start + size + 2 else { return nil }
                body.append(contentsOf: bytes[start..<(start + size)])
                start += size + 2
            }
        }
        let length = Int(header("content-length") ?? "0") ?? 0
        guard bytes.count >= start + length else { return nil }
        return RawResponse(
            status: status, reason: reason, headers: headers, body: Data(bytes[start..<(start + length)]),
            length: start + length)
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        for index in start...(bytes.count - needle.count)
        where bytes[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
