import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import StuntDouble
import Testing

@testable import StuntDoubleServer

/// The real handler (which reads requests from the bytes itself) on an `EmbeddedChannel`: bytes in, bytes out, time moved by
/// hand. A `SocketModel` ahead of it turns the channel unwritable past 64 KiB of unsent bytes and writable
/// again when a flush sends them, reporting each change in the middle of the write or flush, as NIO's socket
/// channels do: the order of events that cut every plain-HTTP body at 131,072 bytes.
@Suite struct StubRequestHandlerTests {
    /// What NIO's socket channel does with writes (a kernel with room, or not).
    typealias SocketModel = WritabilityModel<ByteBuffer>

    struct Connection {
        let channel: EmbeddedChannel
        let socket: SocketModel
        var reader = HTTPResponseReader()

        init(stubber: HTTPStubber, configure: (inout HTTPStubServer.Configuration) -> Void = { _ in }) throws {
            let core = handlerCore(stubber: stubber, configure: configure)
            channel = EmbeddedChannel()
            socket = SocketModel(size: \.readableBytes)
            try channel.pipeline.syncOperations.addHandler(socket)
            try channel.pipeline.syncOperations.addHandler(StubRequestHandler(core: core))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        }

        mutating func send(_ text: String) throws {
            for line in text.components(separatedBy: "\r\n") where line.hasPrefix("GET") || line.hasPrefix("HEAD") {
                reader.expect(method: String(line.prefix { $0 != " " }))
            }
            try channel.writeInbound(ByteBuffer(string: text))
        }

        /// Reads what the handler wrote so far.
        mutating func receive() throws {
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                try reader.feed(buffer)
            }
        }

        /// The client takes everything queued (the socket becomes writable again).
        mutating func drain() throws {
            let context = try channel.pipeline.syncOperations.context(handler: socket)
            socket.drain(context: context)
            try receive()
        }

        func advance(by amount: TimeAmount) {
            channel.embeddedEventLoop.advanceTime(by: amount)
        }
    }

    /// The defect of issue 25, through the real handler: the whole body, however large.
    @Test(arguments: [(128 << 10) + 1, 300_000, 1 << 20, 6 << 20])
    func aLargeBodyArrivesWhole(size: Int) throws {
        let body = patternBytes(size, seed: 11)
        var connection = try Connection(stubber: handlerStubber(body))
        try connection.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        try connection.receive()
        #expect(connection.reader.responses.first?.bodyLength == size)
        #expect(connection.reader.responses.first?.digest == body.sha256)
        #expect(connection.socket.reports >= 2, "writability was reported inside writes and flushes")
        #expect(connection.channel.isActive)
    }

    /// A client that takes nothing for a while: the handler waits, writing nothing more, then goes on where it
    /// stopped when the socket can take more.
    @Test func aClientThatStopsReadingHoldsTheResponseBack() throws {
        let body = patternBytes(2 << 20, seed: 12)
        var connection = try Connection(stubber: handlerStubber(body))
        connection.socket.sends = false
        try connection.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        try connection.receive()
        #expect(connection.reader.responses.isEmpty)
        var drains = 0
        while connection.reader.responses.isEmpty, drains < 100 {
            try connection.drain()
            drains += 1
        }
        #expect(connection.reader.responses.first?.digest == body.sha256)
        #expect(drains > 4, "the body went out a batch at a time, each when the client had read the last")
    }

    /// Three requests in one packet, answered in order.
    @Test func pipelinedRequests() throws {
        let stubber = HTTPStubber()
        for index in 0..<3 {
            stubber.add(
                stub: HTTPStubRequest().match(URL: "http://x/\(index)").stub(for: .get) {
                    $0.body = patternBytes(100_000 * index + 1, seed: UInt64(index))
                })
        }
        var connection = try Connection(stubber: stubber)
        try connection.send(
            "GET /0 HTTP/1.1\r\nHost: x\r\n\r\nGET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n")
        try connection.receive()
        #expect(
            connection.reader.responses.map(\.digest)
                == (0..<3).map { patternBytes(100_000 * $0 + 1, seed: UInt64($0)).sha256 })
    }

    /// Timers on the event loop's clock: a delayed response comes at its time, an idle connection closes.
    @Test func aDelayedResponseAndTheIdleTimeout() throws {
        var connection = try Connection(stubber: handlerStubber(Data("late".utf8)) { $0.responseDelay = 2 }) {
            $0.idleTimeout = .seconds(5)
        }
        try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        connection.advance(by: .milliseconds(1_999))
        try connection.receive()
        #expect(connection.reader.responses.isEmpty)
        connection.advance(by: .milliseconds(1))
        try connection.receive()
        #expect(connection.reader.responses.first?.body == Data("late".utf8))
        connection.advance(by: .milliseconds(4_999))
        #expect(connection.channel.isActive)
        connection.advance(by: .milliseconds(2))
        #expect(!connection.channel.isActive, "closed 5 s after the response ended")
    }

    /// A body that stalls gets 408 at the body timeout; one that keeps coming is never cut.
    @Test func theBodyTimeout() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .post) { $0.body = Data("got it".utf8) })
        var steady = try Connection(stubber: stubber) { $0.requestBodyTimeout = .seconds(2) }
        try steady.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 30\r\n\r\n")
        for _ in 0..<30 {
            steady.advance(by: .milliseconds(1_900))
            try steady.send("a")
        }
        try steady.receive()
        #expect(steady.reader.responses.first?.status == 200, "57 s in all, never 2 s without a byte")

        var stalled = try Connection(stubber: stubber) { $0.requestBodyTimeout = .seconds(2) }
        try stalled.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 30\r\n\r\nabc")
        stalled.advance(by: .milliseconds(1_990))
        try stalled.receive()
        #expect(stalled.reader.responses.isEmpty)
        stalled.advance(by: .milliseconds(20))
        try stalled.receive()
        #expect(stalled.reader.responses.first?.status == 408)
        #expect(!stalled.channel.isActive)
    }
}
