import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble
import Testing

@testable import StuntDoubleServer

/// The connection's state machine alone, driven through `MachineHarness` (a model of a NIO socket, its kernel
/// buffers and a client, on a clock the test moves): every order of events that matters, with no socket and no
/// waiting.
@Suite struct ConnectionStateMachineTests {
    /// A harness whose answer to every request is `body` with `Content-Length`.
    static func serving(_ body: Data, kernel: Int = 256 << 10, limits: ConnectionStateMachine.Limits? = nil)
        -> MachineHarness
    {
        MachineHarness(limits: limits ?? MachineHarness.limits(), kernelCapacity: kernel) { harness, head, _, id in
            harness.text(head, body, id: id)
        }
    }

    // MARK: - The defect of issue 25, and writability

    /// The defect that cut every plain-HTTP body at 131,072 bytes: the flush of a batch made the channel writable
    /// again, and NIO said so in the middle of the flush, before the old handler noted that it was waiting.
    /// Here the channel reports every change at once, inside the write or flush that caused it.
    @Test(arguments: [0, 1, (64 << 10) - 1, 64 << 10, (64 << 10) + 1, (128 << 10) + 1, 300_000, 1 << 20, 16 << 20])
    func aBodyOfAnySizeArrivesWholeWhenTheKernelTakesEverything(size: Int) throws {
        let body = patternBytes(size, seed: UInt64(size))
        let harness = Self.serving(body, kernel: 64 << 20)
        harness.send(MachineHarness.head())
        try harness.readToEnd()
        let response = try #require(harness.reader.responses.first)
        #expect(response.bodyLength == size)
        #expect(response.digest == body.sha256)
        #expect(harness.finished.count == 1)
        #expect(harness.finished.first?.error == nil)
        #expect(!harness.isClosed, "kept alive")
        if size > 128 << 10 {
            #expect(harness.reentrantReports > 0, "the channel reported writability inside writes")
        }
    }

    /// The kernel takes a little at a time (a slow reader): the machine waits for writability, and each report
    /// that the channel can take more brings the next batch.
    @Test(arguments: [16 << 10, 100_000, 1 << 20])
    func aSlowReaderGetsTheWholeBody(kernel: Int) throws {
        let body = patternBytes(3 << 20, seed: 7)
        let harness = Self.serving(body, kernel: kernel)
        harness.send(MachineHarness.head())
        #expect(harness.machine.outbound.isWaitingForWritability, "the channel filled: the machine waits")
        var reads = 0
        while harness.reader.responses.isEmpty {
            try harness.clientReads(upTo: 10_000)
            harness.advance(by: .milliseconds(10))  // about 1 MB/s
            reads += 1
            #expect(reads < 100_000)
            if reads >= 100_000 { return }
        }
        #expect(harness.reader.responses[0].digest == body.sha256)
        #expect(harness.finished.first?.error == nil)
    }

    /// Writability goes back and forth while a batch is being flushed, ending either way.
    @Test(arguments: [true, false])
    func writabilityChangingBackAndForthDuringAFlush(endsWritable: Bool) throws {
        let body = patternBytes(1 << 20, seed: 3)
        let harness = Self.serving(body, kernel: 64 << 20)
        // Take the request, then take over the handler's part by hand for one write.
        harness.answer = { _, _, _, _ in nil }
        harness.send(MachineHarness.head())
        let (head, _, id) = harness.owed[0]
        var machine = harness.machine
        var action = machine.answer(harness.text(head, body, id: id), now: harness.now)
        guard case .write = action else {
            Issue.record("expected a write, got \(action)")
            return
        }
        #expect(machine.writes.byteCount <= machine.limits.batchSize + 1024)
        // During the write: unwritable, writable, unwritable, writable ... each noted, none acted on.
        for writable in [false, true, false, true, false] {
            #expect(isNone(machine.writabilityChanged(writable, now: harness.now)))
        }
        if endsWritable {
            #expect(isNone(machine.writabilityChanged(true, now: harness.now)))
        }
        action = machine.wrote(writable: endsWritable, now: harness.now)
        if endsWritable {
            guard case .write = action else {
                Issue.record("writable after the flush: the next batch goes out at once, got \(action)")
                return
            }
        } else {
            // Unwritable after the flush: nothing is written; the connection's timer watches for a stalled reader.
            if case .scheduleConnectionTimer = action {} else { #expect(isNone(action), "unwritable: wait") }
            #expect(machine.outbound.isWaitingForWritability)
            guard case .write = machine.writabilityChanged(true, now: harness.now) else {
                Issue.record("writable again: the next batch goes out")
                return
            }
        }
    }

    /// Every batch is followed by `wrote`: the machine never writes twice without hearing the channel.
    @Test func batchesAreBoundedAndEachWaitsForTheChannel() throws {
        var machine = ConnectionStateMachine(limits: MachineHarness.limits(), now: .now())
        _ = machine.channelActive(now: .now())
        let head = MachineHarness.head()
        _ = machine.received(.head(head), now: .now())
        guard case .respond(_, let id) = machine.received(.end, now: .now()) else {
            Issue.record("expected respond")
            return
        }
        let response = ResponseStateMachine.raw(
            status: .ok, contentType: "x", body: ByteBuffer(bytes: patternBytes(1 << 20)), id: id,
            for: HeadRequirements(head), record: ResponseRecord(entry: 0, request: head, received: .now()),
            receivedAt: .now())
        var action = machine.answer(response, now: .now())
        var batches = 0
        var total = 0
        var headBytes = 0
        while case .write = action {
            let writes = machine.writes
            batches += 1
            total += writes.pieces.map(\.readableBytes).reduce(0, +)
            headBytes += writes.head?.encoded?.readableBytes ?? 0
            #expect(writes.byteCount <= machine.limits.batchSize + (writes.head?.encoded?.readableBytes ?? 0))
            #expect(isNone(machine.advance(now: { .now() })), "nothing more before wrote")
            action = machine.wrote(writable: true, now: .now())
        }
        #expect(total == 1 << 20)
        #expect(headBytes > 0)
        #expect(batches == 4)
    }

    // MARK: - Requests and responses crossing

    /// A request arrives while a response is half written: it waits its turn, and the socket is read no
    /// further meanwhile; it is answered once the first response has gone.
    @Test func aRequestArrivingWhileAResponseIsHalfWritten() throws {
        let body = patternBytes(2 << 20, seed: 9)
        let harness = Self.serving(body, kernel: 128 << 10)
        harness.askToRead()
        harness.send(MachineHarness.head(.GET, "/1"))
        #expect(harness.machine.outbound.isWaitingForWritability)
        harness.askToRead()
        let readsBefore = harness.reads
        harness.send(MachineHarness.head(.GET, "/2"))
        harness.askToRead()
        #expect(harness.reads == readsBefore, "the socket is not read while a request waits")
        try harness.readToEnd()
        #expect(harness.reader.responses.count == 2)
        #expect(harness.reader.responses.allSatisfy { $0.digest == body.sha256 })
        #expect(harness.reads == readsBefore + 1, "read again once the waiting request was taken")
    }

    /// Three requests in one read (pipelining), each answered in order, whole.
    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let bodies = [patternBytes(70_000, seed: 1), patternBytes(10, seed: 2), patternBytes(300_000, seed: 3)]
        let harness = MachineHarness(kernelCapacity: 100_000) { harness, head, _, id in
            harness.text(head, bodies[Int(head.uri.dropFirst())!], id: id)
        }
        for index in 0..<3 {
            harness.send(MachineHarness.head(.GET, "/\(index)"))
        }
        try harness.readToEnd()
        #expect(harness.reader.responses.map(\.digest) == bodies.map(\.sha256))
        #expect(harness.finished.count == 3)
    }

    /// An answer worked out later (the admin API's, off the event loop): requests behind it wait.
    @Test func requestsWaitForAnAnswerWorkedOutLater() throws {
        var later = true
        let harness = MachineHarness { harness, head, _, id in
            defer { later = false }
            return later ? nil : harness.text(head, Data(head.uri.utf8), id: id)
        }
        harness.send(MachineHarness.head(.GET, "/first"))
        harness.send(MachineHarness.head(.GET, "/second"))
        try harness.clientReads()
        #expect(harness.reader.responses.isEmpty)
        harness.answerOwed()
        try harness.readToEnd()
        #expect(harness.reader.responses.map { String(decoding: $0.body, as: UTF8.self) } == ["/first", "/second"])
    }

    // MARK: - Timers

    /// A timer firing while a write waits for the channel changes nothing; the response goes on.
    @Test func aTimerFiringDuringAWrite() throws {
        let body = patternBytes(1 << 20, seed: 4)
        let harness = Self.serving(body, kernel: 100_000)
        harness.send(MachineHarness.head())
        #expect(harness.machine.outbound.isWaitingForWritability)
        harness.fireConnectionTimerEarly()
        harness.advance(by: .seconds(30))
        #expect(!harness.isClosed, "a response in progress is not idle")
        try harness.readToEnd()
        #expect(harness.reader.responses.first?.digest == body.sha256)
    }

    /// A delayed, paced response: the head at its time, each chunk at its own, nothing early.
    @Test func aPacedResponseTakesItsStepsAtTheirTimes() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().stub(for: .get) {
                $0.responseDelay = 1
                $0.body = patternBytes(1000)
                $0.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 1000))
            })
        let harness = MachineHarness { harness, head, body, id in
            harness.stub(head, body: body, stubber: stubber, id: id)
        }
        harness.send(MachineHarness.head())
        try harness.clientReads()
        #expect(harness.clientBytes == 0, "nothing before the delay")
        #expect(harness.responseTimer != nil)
        harness.advance(by: .milliseconds(999))
        try harness.clientReads()
        #expect(harness.clientBytes == 0)
        harness.advance(by: .milliseconds(2))
        try harness.clientReads()
        #expect(harness.clientBytes > 0, "the head at 1 s")
        try harness.readToEnd()
        #expect(harness.reader.responses.first?.digest == patternBytes(1000).sha256)
        #expect(harness.elapsed >= 1.99, "the body took its second")
    }

    /// An idle connection closes after the idle timeout, and not before.
    @Test func anIdleConnectionClosesAfterItsTimeout() throws {
        let harness = Self.serving(Data("x".utf8), limits: MachineHarness.limits(idle: .seconds(5)))
        harness.send(MachineHarness.head())
        try harness.clientReads()
        harness.advance(by: .milliseconds(4_990))
        #expect(!harness.isClosed)
        harness.advance(by: .milliseconds(20))
        #expect(harness.isClosed)
    }

    /// A body that stops arriving gets 408 after the body timeout; a slow but steady one is read to its end,
    /// however long it takes in all.
    @Test func aStalledBodyGets408AndASteadyOneIsNotCut() throws {
        let limits = MachineHarness.limits(idle: .seconds(60), body: .seconds(2))
        let harness = Self.serving(Data("ok".utf8), limits: limits)
        harness.send(.head(MachineHarness.head(.POST, "/", headers: [("Content-Length", "40")])))
        for _ in 0..<39 {
            harness.advance(by: .milliseconds(1_900))
            harness.send(.body(ByteBuffer(string: "a")))
        }
        #expect(harness.refusals.isEmpty, "74 s in all, never 2 s without a byte")
        harness.send(.body(ByteBuffer(string: "a")))
        harness.send(.end)
        try harness.readToEnd(limit: .seconds(1))
        #expect(harness.reader.responses.first?.status == 200)

        let stalled = Self.serving(Data("ok".utf8), limits: limits)
        stalled.send(.head(MachineHarness.head(.POST, "/", headers: [("Content-Length", "40")])))
        stalled.send(.body(ByteBuffer(string: "abc")))
        stalled.advance(by: .milliseconds(1_990))
        #expect(stalled.refusals.isEmpty)
        stalled.advance(by: .milliseconds(20))
        #expect(stalled.refusals == [408])
        #expect(stalled.isClosed)
    }

    /// A client that stops taking its response: after the send timeout the connection closes and the journal
    /// says why; one that pauses for less goes on to the end.
    @Test func aReaderThatStopsIsGivenUpOnAndOneThatPausesIsNot() throws {
        let body = patternBytes(4 << 20, seed: 5)
        let limits = MachineHarness.limits(send: .seconds(10))
        let pausing = Self.serving(body, kernel: 128 << 10, limits: limits)
        pausing.send(MachineHarness.head())
        try pausing.clientReads(upTo: 1 << 20)
        pausing.advance(by: .seconds(9))
        try pausing.readToEnd()
        #expect(pausing.reader.responses.first?.digest == body.sha256)

        let stopped = Self.serving(body, kernel: 128 << 10, limits: limits)
        stopped.send(MachineHarness.head())
        try stopped.clientReads(upTo: 1 << 20)
        stopped.advance(by: .seconds(25))
        #expect(stopped.isClosed)
        #expect(stopped.finished.first?.error is StalledReader)
    }

    // MARK: - What the kernel holds (the response matrix's failure under load)

    /// A response the kernel took whole (megabytes on loopback) is not idle time while the client reads it: the
    /// connection stays open, and the client's next request is answered. (The response matrix failed so under
    /// load, "I/O on closed channel": its slow client was still reading a 5 MB body out of the kernel when the
    /// idle timeout, counted from when the last byte entered the kernel, closed the connection.)
    @Test func aConnectionIsNotIdleWhileTheKernelHoldsItsResponse() throws {
        let body = patternBytes(3 << 20, seed: 21)
        let harness = Self.serving(body, kernel: 4 << 20, limits: MachineHarness.limits(idle: .seconds(5)))
        harness.send(MachineHarness.head())
        #expect(harness.finished.count == 1, "the whole response is in the kernel at once")
        // 30 seconds of reading, six idle timeouts.
        while harness.reader.responses.isEmpty {
            try harness.clientReads(upTo: 10_000)
            harness.advance(by: .milliseconds(100))
            if harness.elapsed > 100 { break }
        }
        #expect(harness.elapsed > 25)
        #expect(!harness.isClosed, "closed while the client was reading its response")
        #expect(harness.reader.responses.first?.digest == body.sha256)
        harness.send(MachineHarness.head())
        try harness.readToEnd(limit: .seconds(1))
        #expect(harness.reader.responses.count == 2, "the next request is answered")
        // Then idle for real: closed after the idle timeout, and not before.
        harness.advance(by: .milliseconds(4_900))
        #expect(!harness.isClosed)
        harness.advance(by: .seconds(30))
        #expect(harness.isClosed)
    }

    /// A client that takes its response steadily out of the kernel, with no change of the channel's writability for
    /// longer than the send timeout, is not given up on; one that takes nothing is, as before.
    @Test func aClientReadingWhatTheKernelHoldsIsNotAStalledReader() throws {
        // The kernel fills, and the last 60 KB wait in the channel, under its high water mark: the channel never
        // becomes unwritable again, while the client takes the kernel's 4 MB at 50 kB/s (80 s).
        let body = patternBytes((4 << 20) + (60 << 10), seed: 22)
        let limits = MachineHarness.limits(send: .seconds(10))
        let reading = Self.serving(body, kernel: 4 << 20, limits: limits)
        reading.send(MachineHarness.head())
        while reading.reader.responses.isEmpty, !reading.isClosed, reading.elapsed < 200 {
            try reading.clientReads(upTo: 5_000)
            reading.advance(by: .milliseconds(100))
        }
        #expect(!reading.isClosed, "given up on after \(reading.elapsed) s, while reading")
        #expect(reading.elapsed > 70)
        #expect(reading.reader.responses.first?.digest == body.sha256)
        #expect(reading.finished.first.map { $0.error == nil } == true)
        #expect(reading.probes > 0, "the kernel was asked")

        let stopped = Self.serving(body, kernel: 4 << 20, limits: limits)
        stopped.send(MachineHarness.head())
        stopped.advance(by: .seconds(9))
        #expect(!stopped.isClosed)
        stopped.advance(by: .seconds(5))
        #expect(stopped.isClosed, "a client that takes nothing is given up on after the send timeout")
    }

    /// Where the kernel cannot say (an HTTP/2 stream has no socket of its own), the timeouts count as before: from
    /// the last change of writability, or the last response sent.
    @Test func withoutTheKernelsCountTimeoutsCountFromTheLastProgressSeen() throws {
        let harness = Self.serving(
            patternBytes(3 << 20, seed: 23), kernel: 4 << 20, limits: MachineHarness.limits(idle: .seconds(5)))
        harness.kernelAnswers = false
        harness.send(MachineHarness.head())
        harness.advance(by: .milliseconds(4_900))
        #expect(!harness.isClosed)
        harness.advance(by: .milliseconds(200))
        #expect(harness.isClosed)
    }

    // MARK: - Closing

    /// The peer closes in the middle of a body: the response is recorded as cut short, and nothing after it
    /// acts.
    @Test func thePeerClosingInTheMiddleOfABody() throws {
        let body = patternBytes(1 << 20, seed: 6)
        let harness = Self.serving(body, kernel: 100_000)
        harness.send(MachineHarness.head())
        try harness.clientReads(upTo: 50_000)
        harness.peerCloses()
        #expect(harness.finished.count == 1)
        #expect(harness.finished.first?.error is ConnectionClosed)
        var machine = harness.machine
        #expect(isNone(machine.writabilityChanged(true, now: harness.now)))
        #expect(isNone(machine.received(.head(MachineHarness.head()), now: harness.now)))
        #expect(isNone(machine.read()))
        #expect(isNone(machine.connectionTimerFired(now: harness.now)))
        #expect(isNone(machine.responseTimerFired(now: harness.now)))
    }

    /// HTTP/1.0 without keep-alive: the connection closes once the response has gone out, not before.
    @Test func http10ClosesAfterItsResponse() throws {
        let body = patternBytes(500_000)
        let harness = Self.serving(body, kernel: 100_000)
        harness.send(MachineHarness.head(version: .http1_0))
        #expect(!harness.isClosed)
        try harness.readToEnd()
        #expect(harness.isClosed)
        #expect(harness.reader.responses.first?.digest == body.sha256)
    }

    /// An HTTP/2 stream is never closed by the server after its response: it ends with the response's END_STREAM,
    /// and closing it would reset it, dropping frames still waiting for the client's window (the random response
    /// matrix saw streams cancelled so, under concurrent slow readers).
    @Test func anHTTP2StreamIsNotClosedAfterItsResponse() throws {
        let harness = Self.serving(patternBytes(100_000))
        harness.send(MachineHarness.head(version: .init(major: 2, minor: 0)))
        try harness.readToEnd()
        #expect(harness.reader.responses.first?.bodyLength == 100_000)
        #expect(!harness.isClosed)
        #expect(harness.finished.first?.error == nil)
    }

    /// A keep-alive response still going out when the next, which closes the connection, has been handed over
    /// whole: the connection closes when the last is sent, not when the first is. (The generated connections
    /// found this: the first's end closed the connection under the second.)
    @Test func theConnectionClosesAfterItsLastResponseNotAnEarlierOne() throws {
        let bodies = [patternBytes(700_001, seed: 1), patternBytes(100, seed: 2)]
        let harness = MachineHarness(kernelCapacity: 100_000) { harness, head, _, id in
            harness.text(head, bodies[Int(head.uri.dropFirst())!], id: id)
        }
        harness.send(MachineHarness.head(.GET, "/0"))
        harness.send(MachineHarness.head(.GET, "/1", version: .http1_0))
        try harness.readToEnd()
        #expect(harness.reader.responses.map(\.digest) == bodies.map(\.sha256))
        #expect(harness.isClosed)
    }

    /// Stopping the server: an idle connection closes at once, a busy one once its response has gone out.
    @Test func quiescingWaitsForTheResponseInProgress() throws {
        let body = patternBytes(1 << 20)
        let harness = Self.serving(body, kernel: 100_000)
        harness.send(MachineHarness.head())
        harness.run(harness.machine.quiesce(now: harness.now))
        #expect(!harness.isClosed)
        try harness.readToEnd()
        #expect(harness.reader.responses.first?.digest == body.sha256)
        #expect(harness.isClosed)

        let idle = Self.serving(body)
        idle.run(idle.machine.quiesce(now: idle.now))
        #expect(idle.isClosed)
    }

    // MARK: - Refusals

    @Test func aDeclaredBodyOverTheLimitIsRefusedAndTheRestDropped() throws {
        let harness = Self.serving(Data(), limits: MachineHarness.limits(maximumBody: 100))
        harness.send(.head(MachineHarness.head(.POST, "/", headers: [("Content-Length", "1000")])))
        #expect(harness.refusals == [413])
        harness.send(.body(ByteBuffer(repeating: 1, count: 1000)))
        harness.send(.end)
        #expect(harness.isClosed, "closed once the body ended")
        try harness.clientReads()
        #expect(harness.reader.responses.first?.status == 413)
    }

    @Test func aRefusedRequestLingersAtMostItsTimeThenCloses() throws {
        let harness = Self.serving(Data(), limits: MachineHarness.limits(maximumBody: 100))
        harness.send(.head(MachineHarness.head(.POST, "/", headers: [("Content-Length", "1000")])))
        harness.advance(by: .milliseconds(2_900))
        #expect(!harness.isClosed)
        harness.advance(by: .milliseconds(200))
        #expect(harness.isClosed)
    }

    @Test func expectContinueGets100ThenTheResponse() throws {
        let harness = MachineHarness { harness, head, body, id in
            harness.text(head, Data(body.readableBytesView), id: id)
        }
        harness.send(
            .head(MachineHarness.head(.POST, "/", headers: [("Content-Length", "5"), ("Expect", "100-continue")])))
        try harness.clientReads()
        #expect(harness.clientBytes == HTTP1ResponseEncoder.continueHead.readableBytes)
        harness.send(.body(ByteBuffer(string: "hello")))
        harness.send(.end)
        try harness.readToEnd()
        #expect(harness.reader.responses.first.map { String(decoding: $0.body, as: UTF8.self) } == "hello")
    }

    /// A request that does not parse, behind one whose answer is being worked out: refused in its turn, after
    /// that answer, and the connection closes.
    @Test func aMalformedRequestIsRefusedInItsTurn() throws {
        let harness = MachineHarness { _, _, _, _ in nil }
        harness.send(MachineHarness.head())
        harness.send(.malformed(status: .badRequest, text: "bad\n"))
        #expect(harness.refusals.isEmpty, "the request before it is answered first")
        harness.answer = { harness, head, _, id in harness.text(head, Data("first".utf8), id: id) }
        harness.answerOwed()
        try harness.readToEnd()
        #expect(harness.reader.responses.map(\.status) == [200, 400])
        #expect(harness.reader.responses.first?.body == Data("first".utf8))
        #expect(harness.isClosed)

        let alone = MachineHarness { _, _, _, _ in nil }
        alone.send(.malformed(status: .badRequest, text: "bad\n"))
        #expect(alone.refusals == [400])
        #expect(alone.isClosed)
    }

    /// A request refused in its turn, behind a response the client is still taking, with its body already read:
    /// the body is dropped and the connection closes at its end, not at the end of the linger time (its parts
    /// waited for the refusal to be written, and were then left waiting, reads held, for the 3 s).
    @Test func aRefusedRequestsWaitingBodyIsDroppedAndItsEndCloses() throws {
        let harness = Self.serving(patternBytes(400_000, seed: 5), kernel: 100_000)
        harness.send(MachineHarness.head(.GET, "/ok"))
        // Without a Host: refused (400), its body of 5 bytes dropped.
        let refused = HTTPRequestHead(
            version: .http1_1, method: .POST, uri: "/", headers: NIOHTTP1.HTTPHeaders([("Content-Length", "5")]))
        harness.send(.head(refused))
        harness.send(.body(ByteBuffer(string: "hello")))
        harness.send(.end)
        #expect(harness.refusals.isEmpty, "the response before it is being taken")
        for _ in 0..<100 where !harness.isClosed {
            try harness.clientReads()
            harness.advance(by: .milliseconds(10))
        }
        try harness.clientReads()
        #expect(harness.refusals == [400])
        #expect(harness.isClosed)
        #expect(harness.elapsed < 1, "closed at the refused body's end, after \(harness.elapsed) s")
        #expect(harness.reader.responses.map(\.status) == [200, 400])
    }

    /// A refusal that closes the connection at once, behind a response that fills the kernel (and waits in the
    /// channel, under its high water mark), to a client that then takes nothing: given up on after the send timeout
    /// (the connection was held for ever); a client that takes it slowly gets all of it, and the connection closes
    /// once it has.
    @Test func aRefusalTheClientDoesNotTakeIsGivenUpOn() throws {
        let limits = MachineHarness.limits(send: .seconds(5))
        let stopped = Self.serving(patternBytes(150_000, seed: 6), kernel: 100_000, limits: limits)
        stopped.send(MachineHarness.head())
        stopped.send(.malformed(status: .badRequest, text: "bad\n"))
        stopped.advance(by: .seconds(1))
        #expect(stopped.refusals == [400], "refused once the response before it was handed over")
        #expect(!stopped.isClosed)
        stopped.advance(by: .seconds(30))
        #expect(stopped.isClosed, "a client that takes nothing is given up on")

        let slow = Self.serving(patternBytes(150_000, seed: 6), kernel: 100_000, limits: limits)
        slow.send(MachineHarness.head())
        slow.send(.malformed(status: .badRequest, text: "bad\n"))
        // 10 kB a second: 15 s for the response, 3 times the send timeout.
        while !slow.isClosed, slow.elapsed < 120 {
            try slow.clientReads(upTo: 1_000)
            slow.advance(by: .milliseconds(100))
        }
        try slow.clientReads()
        #expect(slow.reader.responses.map(\.status) == [200, 400], "closed after \(slow.elapsed) s")
        #expect(slow.isClosed)
    }

    /// Bytes that do not parse after a request refused for its coding: one refusal, then the connection closes
    /// (a second refusal followed the first).
    @Test func bytesThatDoNotParseAfterARefusalCloseTheConnection() throws {
        let harness = Self.serving(Data())
        harness.send(.head(MachineHarness.head(.POST, "/", headers: [("Transfer-Encoding", "gzip")])))
        harness.send(.malformed(status: .badRequest, text: "bad\n"))
        try harness.clientReads()
        #expect(harness.refusals == [501])
        #expect(harness.reader.responses.map(\.status) == [501])
        #expect(harness.isClosed)
    }

    // MARK: - Stubs that fail, proxied answers

    @Test func aStubWithAFaultFailsWhenItsHeadIsDue() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().stub(for: .get) {
                $0.responseDelay = 0.5
                $0.fault = .connectionResetByPeer
            })
        let harness = MachineHarness { harness, head, body, id in
            harness.stub(head, body: body, stubber: stubber, id: id)
        }
        harness.send(MachineHarness.head())
        #expect(harness.faults.isEmpty)
        harness.advance(by: .milliseconds(500))
        #expect(harness.faults == [.connectionResetByPeer])
        #expect(harness.isClosed)
    }

    /// A proxied body: held back while the client is slow, let go once it catches up; the end comes with the
    /// upstream's.
    @Test func aProxiedBodyFollowsTheClientsPace() throws {
        var proxied: Int?
        let harness = MachineHarness(kernelCapacity: 64 << 10) { harness, head, _, id in
            proxied = id
            return harness.proxied(head, id: id)
        }
        harness.send(MachineHarness.head())
        #expect(harness.upstreamCalls == ["start"])
        let playback = try #require(proxied)
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Content-Length", value: String(2 << 20))
        harness.upstream(.head(.ok, headers), for: playback)
        let body = patternBytes(2 << 20, seed: 8)
        var offset = 0
        while offset < body.count {
            let part = body[offset..<min(offset + 100_000, body.count)]
            harness.upstream(.body(ByteBuffer(bytes: part)), for: playback)
            offset += part.count
            if harness.upstreamCalls.last == "hold" {
                try harness.clientReads()
            }
        }
        harness.upstream(.end, for: playback)
        #expect(harness.upstreamCalls.contains("hold"), "the client was slower than the upstream")
        #expect(harness.upstreamCalls.contains("open"))
        try harness.readToEnd()
        #expect(harness.reader.responses.first?.digest == body.sha256)
    }

    /// A proxied body ends at the length its head declared, before the upstream's end arrives: on an HTTP/2
    /// stream the last byte ends the stream (the response matrix found the journal recording such responses as
    /// cut short, and clients seeing their streams cancelled), and an HTTP/1.1 connection takes its next request.
    @Test func aProxiedBodyEndsAtItsDeclaredLength() throws {
        var proxied: Int?
        let harness = MachineHarness { harness, head, _, id in
            proxied = id
            return harness.proxied(head, id: id)
        }
        harness.send(MachineHarness.head())
        let playback = try #require(proxied)
        harness.upstream(.head(.ok, NIOHTTP1.HTTPHeaders([("Content-Length", "6")])), for: playback)
        harness.upstream(.body(ByteBuffer(string: "abc")), for: playback)
        #expect(harness.finished.isEmpty)
        harness.upstream(.body(ByteBuffer(string: "defXYZ")), for: playback)
        #expect(harness.finished.count == 1, "ended with its sixth byte")
        #expect(harness.finished.first?.error == nil)
        harness.upstream(.end, for: playback)
        #expect(harness.upstreamCalls.last == "abandon", "the upstream's end finds the response over")
        try harness.clientReads()
        #expect(harness.reader.responses.first?.body == Data("abcdef".utf8), "the bytes past its length are dropped")
    }

    /// An upstream that fails before its head answers 500; after its head, the connection ends early.
    @Test func anUpstreamFailingBeforeAndAfterItsHead() throws {
        for afterHead in [false, true] {
            var proxied: Int?
            let harness = MachineHarness { harness, head, _, id in
                proxied = id
                return harness.proxied(head, id: id)
            }
            harness.send(MachineHarness.head())
            let playback = try #require(proxied)
            if afterHead {
                harness.upstream(.head(.ok, NIOHTTP1.HTTPHeaders([("Content-Length", "10")])), for: playback)
                harness.upstream(.body(ByteBuffer(string: "abc")), for: playback)
            }
            struct Broken: Error {}
            harness.upstream(.failed(Broken()), for: playback)
            try harness.clientReads()
            if afterHead {
                #expect(harness.isClosed)
                #expect(harness.finished.first?.error is Broken)
            } else {
                #expect(harness.reader.responses.first?.status == 500)
                #expect(!harness.isClosed)
            }
        }
    }

    // MARK: - Generated orders of events

    /// 400 connections drawn from seeds: several requests pipelined in bursts (GET, HEAD, HTTP/1.0 at the end),
    /// bodies of sizes around every buffer boundary, paced or not, a kernel of any size, a client that reads in
    /// pieces of any size and sometimes stops, the connection's timer firing early at random. Every response
    /// must arrive whole and in order, and the connection end only where HTTP says.
    @Test func generatedConnectionsDeliverEveryResponseWhole() throws {
        let sizes = [0, 1, 100, 8191, 16_384, 65_535, 65_536, 65_537, 131_073, 262_144, 262_145, 700_001]
        var failures: [String] = []
        for seed in UInt64(1)...400 {
            var random = PaceState(random: seed)
            func draw(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
            let count = 1 + draw(6)
            var heads: [HTTPRequestHead] = []
            var bodies: [Data] = []
            for index in 0..<count {
                let isLast = index == count - 1
                let method: NIOHTTP1.HTTPMethod = draw(5) == 0 ? .HEAD : .GET
                let version: HTTPVersion = isLast && draw(4) == 0 ? .http1_0 : .http1_1
                heads.append(MachineHarness.head(method, "/\(index)", version: version))
                bodies.append(patternBytes(sizes[draw(sizes.count)], seed: seed &* 31 &+ UInt64(index)))
            }
            let paced = draw(3) == 0
            let stubber = HTTPStubber()
            for (index, body) in bodies.enumerated() {
                for method in [StuntDouble.HTTPMethod.get, .head] {
                    stubber.add(
                        stub: HTTPStubRequest().match(URL: "http://test/\(index)").stub(for: method) {
                            $0.body = body
                            // About 50 ms in chunks 50 ms apart, when paced.
                            if paced {
                                $0.responseTime = .withSpeed(
                                    HTTPConnectionSpeed(bytesPerSecond: Double(body.count * 20 + 1000)))
                            }
                        })
                }
            }
            let harness = MachineHarness(kernelCapacity: [4096, 65_536, 100_000, 1 << 20, 64 << 20][draw(5)]) {
                harness, head, body, id in
                harness.stub(head, body: body, stubber: stubber, id: id)
            }
            // The requests in bursts, as reads bring them.
            var sent = 0
            while sent < count {
                let burst = 1 + draw(3)
                for _ in 0..<burst where sent < count {
                    harness.send(heads[sent])
                    sent += 1
                }
                harness.askToRead()
                try harness.clientReads(upTo: draw(200_000))
                if draw(4) == 0 { harness.fireConnectionTimerEarly() }
                harness.advance(by: .milliseconds(Int64(draw(20))))
            }
            var rounds = 0
            while harness.reader.responses.count < count, rounds < 100_000 {
                try harness.clientReads(upTo: 1 + draw(300_000))
                if draw(10) == 0 { harness.fireConnectionTimerEarly() }
                harness.advance(by: .milliseconds(Int64(draw(15))))
                rounds += 1
            }
            let got = harness.reader.responses
            let expected = zip(heads, bodies).map { head, body in head.method == .HEAD ? Data().sha256 : body.sha256 }
            if got.map(\.digest) != expected {
                failures.append(
                    "seed \(seed): \(got.count) of \(count) responses, digests \(got.map(\.digest) == expected)")
                continue
            }
            let closes = heads.last?.version == .http1_0
            if closes != harness.isClosed {
                failures.append("seed \(seed): closed \(harness.isClosed), expected \(closes)")
            }
            if harness.finished.contains(where: { $0.error != nil }) {
                failures.append("seed \(seed): a response ended with an error")
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }

    /// 200 keep-alive connections drawn from seeds, whose client reads each response in pieces, pausing for up to
    /// three idle timeouts while the server's kernel holds what it has not taken (up to 4 MiB), then sends the next
    /// request soon after: every response arrives whole, the connection stays open to the last, and closes once it is
    /// idle for real. (What the client's own receive buffer holds, the server cannot see: a client slower than the
    /// idle timeout to read that, and ask again, is idle as far as any server can tell.)
    @Test func generatedSlowClientsKeepTheirConnections() throws {
        var failures: [String] = []
        for seed in UInt64(1)...200 {
            var random = PaceState(random: seed ^ 0x5105)
            func draw(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
            let idle = TimeAmount.seconds(Int64(1 + draw(3)))
            let body = patternBytes([10_000, 300_000, 1 << 20, 3 << 20][draw(4)], seed: seed)
            let kernel = [256 << 10, 1 << 20, 4 << 20][draw(3)]
            let harness = Self.serving(body, kernel: kernel, limits: MachineHarness.limits(idle: idle))
            let count = 2 + draw(4)
            var failed = false
            for index in 0..<count {
                harness.send(MachineHarness.head())
                var rounds = 0
                while harness.reader.responses.count <= index, !harness.isClosed, rounds < 20_000 {
                    try harness.clientReads(upTo: 1 + draw(200_000))
                    if harness.reader.responses.count > index { break }
                    // Now and then a pause of up to three idle timeouts, taking nothing, while the server's kernel
                    // still holds bytes of the response.
                    let long = harness.serverHeld > 0 && draw(8) == 0
                    let pause = long ? draw(Int(3 * idle.nanoseconds / 1_000_000)) : draw(20)
                    harness.advance(by: .milliseconds(Int64(pause)))
                    rounds += 1
                }
                if harness.isClosed || harness.reader.responses.count <= index {
                    failures.append(
                        "seed \(seed): response \(index + 1) of \(count) (\(body.count) B, kernel \(kernel), idle "
                            + "\(idle)): closed \(harness.isClosed) after \(harness.elapsed) s")
                    failed = true
                    break
                }
                // The next request soon after the last byte: well within the idle timeout.
                harness.advance(by: .milliseconds(Int64(draw(Int(idle.nanoseconds / 2_000_000)))))
            }
            if failed { continue }
            if harness.reader.responses.map(\.digest) != Array(repeating: body.sha256, count: count) {
                failures.append("seed \(seed): a response was not whole")
            }
            harness.advance(by: idle * 3 + .seconds(30))
            if !harness.isClosed { failures.append("seed \(seed): not closed when idle") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }

    private func isNone(_ action: ConnectionStateMachine.Action) -> Bool {
        if case .none = action { return true }
        return false
    }
}
