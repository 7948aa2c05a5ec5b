import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble

@testable import StuntDoubleServer

/// Plays `StubRequestHandler`'s part for a `ConnectionStateMachine`, against a model of a NIO socket and the
/// client at its other end, on a clock the test moves:
/// - written bytes (encoded as the HTTP/1.1 writer encodes them) queue in the channel, which turns unwritable past
///   64 KiB and writable again under 32 KiB (NIO's water marks), and reports each change at once, in the middle of
///   the write or flush that caused it, as NIO does (the re-entrant report a handler must not miss);
/// - a flush moves queued bytes into the kernel, which holds at most `kernelCapacity` bytes (the socket's send
///   buffer and the client's receive buffer together); the response a write ends is sent when its last byte is
///   in the kernel;
/// - the client takes bytes out of the kernel when the test says (`clientReads`), and reads them as HTTP
///   responses (`reader`); asked (`.probeKernel`), the kernel says what the client's side has taken and what the
///   server's side still holds: the first `clientBuffer` bytes it holds are in the client's receive buffer, which
///   the server cannot see (or it says nothing, as for an HTTP/2 stream, when `kernelAnswers` is off);
/// - timers fire when the test moves the clock past them.
final class MachineHarness {
    var machine: ConnectionStateMachine
    private(set) var now: NIODeadline
    private let start: NIODeadline
    /// Bytes written and not yet in the kernel, each with the response its write ends.
    private var channelQueue = CircularBuffer<(bytes: ByteBuffer, ends: ResponseRecord?, isRefusal: Bool)>()
    private(set) var channelPending = 0
    private(set) var isWritable = true
    static let highWaterMark = 64 << 10
    static let lowWaterMark = 32 << 10
    var kernelCapacity: Int
    /// Whether the kernel answers probes (a TCP socket's does; an HTTP/2 stream has none to ask).
    var kernelAnswers = true
    /// How much of what the kernel holds is in the client's receive buffer (delivered, as the server's kernel counts).
    var clientBuffer = 64 << 10
    /// What the server's kernel still holds for the client (beyond the client's receive buffer).
    var serverHeld: Int { max(0, inKernel.readableBytes - clientBuffer) }
    private(set) var inKernel = ByteBuffer()
    var reader = HTTPResponseReader()
    private(set) var clientBytes = 0
    private(set) var responseTimer: NIODeadline?
    private(set) var connectionTimer: NIODeadline?
    /// Responses recorded as ended, with their errors.
    private(set) var finished: [(record: ResponseRecord, error: (any Error)?)] = []
    private(set) var isClosed = false
    /// How many reads of the socket the machine let through.
    private(set) var reads = 0
    /// How many times the machine asked the kernel.
    private(set) var probes = 0
    /// The refusals written, by status.
    private(set) var refusals: [Int] = []
    /// Requests answered later: call `answerOwed` to answer the first.
    private(set) var owed: [(head: HTTPRequestHead, body: ByteBuffer, id: Int)] = []
    /// What the machine asked of upstreams: `start`, `open`, `hold`, `abandon`.
    private(set) var upstreamCalls: [String] = []
    /// Faults committed (`nil` for a stub's error).
    private(set) var faults: [HTTPStubFault?] = []
    /// Writability reports made while a write or flush was in progress.
    private(set) var reentrantReports = 0
    /// Every action the machine returned, for a failing test's message.
    private(set) var trace: [String] = []
    /// How the harness answers a request (the response numbered `id`): a response now, or `nil` to answer later
    /// (`answerOwed`).
    var answer: (MachineHarness, HTTPRequestHead, ByteBuffer, Int) -> ResponseStateMachine?

    init(
        limits: ConnectionStateMachine.Limits = MachineHarness.limits(), kernelCapacity: Int = 256 << 10,
        answer: @escaping (MachineHarness, HTTPRequestHead, ByteBuffer, Int) -> ResponseStateMachine?
    ) {
        now = NIODeadline.uptimeNanoseconds(1_000_000_000_000)
        start = now
        machine = ConnectionStateMachine(limits: limits, now: now)
        self.kernelCapacity = kernelCapacity
        self.answer = answer
        run(machine.channelActive(now: now))
    }

    static func limits(
        idle: TimeAmount = .seconds(60), body: TimeAmount = .seconds(60), send: TimeAmount = .seconds(60),
        maximumBody: Int = 64 << 20
    ) -> ConnectionStateMachine.Limits {
        ConnectionStateMachine.Limits(
            maximumRequestBodySize: maximumBody, maximumHeaderSize: 80 << 10, idleTimeout: idle, bodyTimeout: body,
            sendTimeout: send)
    }

    /// Seconds since the harness began.
    var elapsed: Double { Double(now.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 }

    // MARK: - The client's side

    /// Sends a request's parts, as the decoder hands them over.
    func send(_ head: HTTPRequestHead, body: String? = nil) {
        reader.expect(method: head.method.rawValue)
        run(machine.received(.head(head), now: now))
        if let body { run(machine.received(.body(ByteBuffer(string: body)), now: now)) }
        run(machine.received(.end, now: now))
    }

    func send(_ event: RequestEvent) {
        if case .head(let head, _) = event { reader.expect(method: head.method.rawValue) }
        run(machine.received(event, now: now))
    }

    /// The pipeline asks to read the socket.
    func askToRead() {
        run(machine.read())
    }

    /// The client reads up to `count` bytes the kernel holds; the channel then writes what it queued.
    @discardableResult
    func clientReads(upTo count: Int = .max) throws -> Int {
        let taken = min(count, inKernel.readableBytes)
        if taken > 0 {
            try reader.feed(inKernel.readSlice(length: taken)!)
            inKernel.discardReadBytes()
            clientBytes += taken
        }
        pushToKernel(reentrant: false)
        return taken
    }

    /// Reads everything, moving the clock on to fire timers, until nothing more comes (or `limit` passes).
    func readToEnd(step: TimeAmount = .milliseconds(10), limit: TimeAmount = .seconds(3600)) throws {
        let end = now + limit
        while now < end {
            try clientReads()
            if inKernel.readableBytes > 0 || channelPending > 0 { continue }
            guard let next = [responseTimer, connectionTimer].compactMap({ $0 }).min(), !isClosed else { return }
            if owed.isEmpty, next > now + .seconds(50), responseTimer == nil { return }
            advance(to: max(next, now + step))
        }
    }

    /// The peer closes the connection.
    func peerCloses() {
        close()
    }

    // MARK: - Time

    func advance(by amount: TimeAmount) {
        advance(to: now + amount)
    }

    /// Moves the clock to `deadline`, firing each timer due on the way at its time.
    func advance(to deadline: NIODeadline) {
        while true {
            let due = [responseTimer, connectionTimer].compactMap { $0 }.filter { $0 <= deadline }.min()
            guard let due else { break }
            now = max(now, due)
            if responseTimer == due {
                responseTimer = nil
                run(machine.responseTimerFired(now: now))
            } else {
                connectionTimer = nil
                run(machine.connectionTimerFired(now: now))
            }
        }
        now = max(now, deadline)
    }

    /// Fires the connection's timer now, whenever it was set for (as a late or spurious wake-up would).
    func fireConnectionTimerEarly() {
        connectionTimer = nil
        run(machine.connectionTimerFired(now: now))
    }

    /// Answers the first request owed an answer.
    func answerOwed() {
        let (head, body, id) = owed.removeFirst()
        guard let response = answer(self, head, body, id) else { return }
        run(machine.answer(response, now: now))
    }

    /// An upstream event for the response numbered `id`.
    func upstream(_ event: UpstreamEvent, for id: Int) {
        run(machine.upstream(event, for: id, failureText: "upstream failed\n", now: now))
    }

    // MARK: - Performing the machine's actions, as StubRequestHandler does

    func run(_ first: ConnectionStateMachine.Action) {
        var action = first
        while true {
            trace.append("\(elapsed) \("\(action)".prefix(120))")
            switch action {
            case .none:
                return
            case .read:
                reads += 1
                return
            case .write:
                var buffers: [ByteBuffer] = []
                HTTP1ResponseEncoder.encode(machine.writes) { buffers.append($0) }
                for buffer in buffers { write(buffer, ends: nil) }
                if let ended = machine.writes.ends { write(ByteBuffer(), ends: ended) }
                pushToKernel(reentrant: true)
                action = machine.wrote(writable: isWritable, now: now)
            case .writeContinue:
                write(HTTP1ResponseEncoder.continueHead, ends: nil)
                pushToKernel(reentrant: true)
                action = machine.wrote(writable: isWritable, now: now)
            case .refuse(let refusal, let timer):
                connectionTimer = timer
                refusals.append(Int(refusal.status.code))
                write(HTTP1ResponseEncoder.refusal(refusal), ends: nil, isRefusal: true)
                pushToKernel(reentrant: true)
                action = machine.wrote(writable: isWritable, now: now)
            case .respond(let request, let id):
                guard let response = answer(self, request.head, request.body, id) else {
                    owed.append((request.head, request.body, id))
                    return
                }
                action = machine.answer(response, now: now)
            case .scheduleResponseTimer(let deadline):
                responseTimer = deadline
                return
            case .scheduleConnectionTimer(let deadline):
                connectionTimer = deadline
                return
            case .probeKernel:
                probes += 1
                let look =
                    kernelAnswers && !isClosed
                    ? KernelBacklog(
                        delivered: UInt64(clientBytes + inKernel.readableBytes - serverHeld), held: serverHeld)
                    : nil
                action = machine.kernelBacklog(look, now: now)
            case .startUpstream:
                upstreamCalls.append("start")
                return
            case .openUpstream:
                upstreamCalls.append("open")
                return
            case .holdUpstream:
                upstreamCalls.append("hold")
                return
            case .abandonUpstream:
                upstreamCalls.append("abandon")
                return
            case .finish(let record, let error, let then):
                finished.append((record, error))
                switch then {
                case .nothing: return
                case .close:
                    close()
                    return
                case .scheduleConnectionTimer(let deadline): action = .scheduleConnectionTimer(deadline)
                }
            case .fail(let failure, let record):
                finished.append((record, failure.error))
                if case .fault(let fault, _) = failure {
                    faults.append(fault)
                } else {
                    faults.append(nil)
                }
                close()
                return
            case .close:
                close()
                return
            }
        }
    }

    private func write(_ buffer: ByteBuffer, ends: ResponseRecord?, isRefusal: Bool = false) {
        guard !isClosed else {
            if let ends { run(machine.responseSent(ends, error: ChannelError.ioOnClosedChannel, now: now)) }
            if isRefusal { run(machine.refusalSent(error: ChannelError.ioOnClosedChannel, now: now)) }
            return
        }
        channelQueue.append((buffer, ends, isRefusal))
        channelPending += buffer.readableBytes
        if isWritable, channelPending > Self.highWaterMark {
            isWritable = false
            reentrantReports += 1
            run(machine.writabilityChanged(false, now: now))
        }
    }

    /// Moves queued bytes into the kernel, as far as it has room; reports sent responses and writability.
    private func pushToKernel(reentrant: Bool) {
        guard !isClosed else { return }
        var sent: [ResponseRecord?] = []
        while var first = channelQueue.first {
            let room = kernelCapacity - inKernel.readableBytes
            let count = min(room, first.bytes.readableBytes)
            if count > 0 {
                var slice = first.bytes.readSlice(length: count)!
                inKernel.writeBuffer(&slice)
                channelPending -= count
            }
            if first.bytes.readableBytes > 0 {
                channelQueue[channelQueue.startIndex] = first
                break
            }
            channelQueue.removeFirst()
            if let ended = first.ends { sent.append(ended) }
            if first.isRefusal { sent.append(nil) }
        }
        for record in sent {
            // (`nil`: a refusal.)
            if let record {
                run(machine.responseSent(record, error: nil, now: now))
            } else {
                run(machine.refusalSent(error: nil, now: now))
            }
        }
        if !isWritable, channelPending < Self.lowWaterMark, !isClosed {
            isWritable = true
            if reentrant { reentrantReports += 1 }
            run(machine.writabilityChanged(true, now: now))
        }
    }

    private func close() {
        guard !isClosed else { return }
        isClosed = true
        responseTimer = nil
        connectionTimer = nil
        let unsent = Array(channelQueue)
        channelQueue.removeAll()
        channelPending = 0
        for entry in unsent {
            if let record = entry.ends {
                run(machine.responseSent(record, error: ChannelError.ioOnClosedChannel, now: now))
            }
            if entry.isRefusal { run(machine.refusalSent(error: ChannelError.ioOnClosedChannel, now: now)) }
        }
        run(machine.channelInactive(now: now))
    }
}

extension RequestEvent {
    /// A head, with the facts the parser would have gathered as it read it.
    static func head(_ head: HTTPRequestHead) -> RequestEvent {
        .head(head, HeadFacts(head))
    }
}

extension MachineHarness {
    /// A request head.
    static func head(
        _ method: NIOHTTP1.HTTPMethod = .GET, _ uri: String = "/", version: HTTPVersion = .http1_1,
        headers: [(String, String)] = []
    ) -> HTTPRequestHead {
        var fields = NIOHTTP1.HTTPHeaders([("Host", "test")])
        for (name, value) in headers { fields.add(name: name, value: value) }
        return HTTPRequestHead(version: version, method: method, uri: uri, headers: fields)
    }

    /// A record of a journaled response to `head`.
    func record(_ head: HTTPRequestHead) -> ResponseRecord {
        ResponseRecord(entry: 0, request: head, received: .now())
    }

    /// A response of a body due at once, with `Content-Length`.
    func text(_ head: HTTPRequestHead, _ body: Data, id: Int) -> ResponseStateMachine {
        .raw(
            status: .ok, contentType: "application/octet-stream", body: ByteBuffer(bytes: body), id: id,
            for: HeadRequirements(head), record: record(head), receivedAt: now)
    }

    /// The response to a stub's plan, decided by `stubber` for the request.
    func stub(_ head: HTTPRequestHead, body: ByteBuffer, stubber: HTTPStubber, id: Int) -> ResponseStateMachine {
        let request = try! IncomingRequestBuilder.make(
            head, body: body, declaresBody: body.readableBytes > 0, authority: "test")
        let (decision, entry) = stubber.decide(request, via: .server, received: .now)
        let record = ResponseRecord(entry: entry, request: head, received: .now())
        guard let plan = decision.plan else {
            return .text(
                status: .notFound, text: "unmatched\n", id: id, for: HeadRequirements(head), record: record,
                receivedAt: now)
        }
        return .plan(plan, id: id, for: HeadRequirements(head), record: record, receivedAt: now)
    }

    /// A response an upstream will send, forwarded at once.
    func proxied(_ head: HTTPRequestHead, id: Int) -> ResponseStateMachine {
        .forwarding(at: now, flow: UpstreamFlow(), id: id, for: HeadRequirements(head), record: record(head))
    }
}

/// Bytes that differ from place to place (so a piece out of order, missing or twice changes the digest), the
/// same on every run: letters and digits (safe in any body, JSON string or template) drawn for the first 65,521
/// bytes, a prime length that no piece, read or frame size divides, and repeated from there (cheap to make at
/// 64 MiB, even in a debug build).
func patternBytes(_ count: Int, seed: UInt64 = 1) -> Data {
    let period = 65_521
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    var data = Data(count: count)
    data.withUnsafeMutableBytes { raw in
        let bytes = raw.bindMemory(to: UInt8.self)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        for index in 0..<min(count, period) {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = alphabet[Int(state % 62)]
        }
        var filled = min(count, period)
        while filled < count {
            let chunk = min(filled, count - filled)
            (bytes.baseAddress! + filled).update(from: bytes.baseAddress!, count: chunk)
            filled += chunk
        }
    }
    return data
}
