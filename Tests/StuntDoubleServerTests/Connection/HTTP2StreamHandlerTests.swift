import Foundation
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import StuntDouble
import Testing

@testable import StuntDoubleServer

/// The real handler on an HTTP/2 stream, behind SwiftNIO's stream codec, on an `EmbeddedChannel`: frames in,
/// frames out, time moved by hand. The handler hands the codec response parts (`ResponseWriter.http2`); nothing
/// parses HTTP/1.1 text. A `StreamModel` ahead of it turns the stream unwritable past 64 KiB of unsent DATA and
/// writable again when a flush sends them, as a stream's flow control does, reporting each change in the middle of
/// the write or flush.
@Suite struct HTTP2StreamHandlerTests {
    /// What a stream does with the frames it is given: its DATA count against the water marks (a client with
    /// window, or not).
    typealias StreamModel = WritabilityModel<HTTP2Frame.FramePayload>

    /// One response as the client sees it.
    struct Received {
        var heads: [HPACKHeaders] = []
        var body = Data()
        var ended = false
        var status: String? { heads.last?.first(name: ":status") }
    }

    struct Stream {
        let channel: EmbeddedChannel
        let model: StreamModel
        var received = Received()

        init(stubber: HTTPStubber, configure: (inout HTTPStubServer.Configuration) -> Void = { _ in }) throws {
            let core = handlerCore(stubber: stubber, configure: configure)
            channel = EmbeddedChannel()
            model = StreamModel { payload in
                if case .data(let data) = payload { return data.data.readableBytes }
                return 0
            }
            try channel.pipeline.syncOperations.addHandler(model)
            try channel.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
            try channel.pipeline.syncOperations.addHandler(
                StubRequestHandler(core: core, isSecure: true, writer: .http2))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        }

        /// Sends a request's HEADERS (and DATA, when it has a body).
        func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: String? = nil) throws {
            var fields = HPACKHeaders([(":method", method), (":path", path), (":scheme", "https"), (":authority", "x")])
            for (name, value) in headers { fields.add(name: name, value: value) }
            try channel.writeInbound(HTTP2Frame.FramePayload.headers(.init(headers: fields, endStream: body == nil)))
            if let body {
                try channel.writeInbound(
                    HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer(string: body)), endStream: true)))
            }
        }

        /// Reads the frames the handler wrote so far.
        mutating func receive() throws {
            while let payload = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) {
                switch payload {
                case .headers(let headers):
                    received.heads.append(headers.headers)
                    received.ended = received.ended || headers.endStream
                case .data(let data):
                    guard case .byteBuffer(let buffer) = data.data else { continue }
                    received.body.append(contentsOf: buffer.readableBytesView)
                    received.ended = received.ended || data.endStream
                default:
                    break
                }
            }
        }

        mutating func drain() throws {
            let context = try channel.pipeline.syncOperations.context(handler: model)
            model.drain(context: context)
            try receive()
        }

        func advance(by amount: TimeAmount) {
            channel.embeddedEventLoop.advanceTime(by: amount)
        }
    }

    /// The whole body, however large, as DATA frames after a HEADERS frame with `:status` and the body's length;
    /// the stream ends with the last, and is left open (closing it would reset it).
    @Test(arguments: [0, 1, (128 << 10) + 1, 1 << 20, 6 << 20])
    func aBodyOfAnySizeArrivesWhole(size: Int) throws {
        let body = patternBytes(size, seed: 31)
        var stream = try Stream(stubber: handlerStubber(body))
        try stream.send("GET", "/big")
        try stream.receive()
        #expect(stream.received.status == "200")
        #expect(stream.received.heads.first?.first(name: "content-length") == String(size))
        #expect(stream.received.body == body)
        #expect(stream.received.ended)
        #expect(stream.channel.isActive)
        if size > 128 << 10 { #expect(stream.model.reports >= 2, "writability was reported inside writes") }
    }

    /// A stream whose client opens no window: nothing more is written until it does, then the rest follows.
    @Test func aClientWithoutWindowHoldsTheResponseBack() throws {
        let body = patternBytes(2 << 20, seed: 32)
        var stream = try Stream(stubber: handlerStubber(body))
        stream.model.sends = false
        try stream.send("GET", "/big")
        try stream.receive()
        #expect(stream.received.body.isEmpty)
        var drains = 0
        while !stream.received.ended, drains < 100 {
            try stream.drain()
            drains += 1
        }
        #expect(stream.received.body == body)
        #expect(drains > 4, "the body went out a write at a time, each once the client had taken the last")
    }

    /// Fields HTTP/2 forbids never reach the stream, whatever the stub says: a stub's `Transfer-Encoding: chunked`
    /// and `Connection: close` are HTTP/1.1's. A body without a length ends with the stream.
    @Test func aStubsHTTP1FramingIsNotSentOnAStream() throws {
        let stubber = handlerStubber(Data("dribbled".utf8)) {
            $0.headers = ["Transfer-Encoding": "chunked", "Connection": "close", "X-Kept": "yes"]
        }
        var stream = try Stream(stubber: stubber)
        try stream.send("GET", "/")
        try stream.receive()
        let head = try #require(stream.received.heads.first)
        #expect(head.first(name: "transfer-encoding") == nil)
        #expect(head.first(name: "connection") == nil)
        #expect(head.first(name: "x-kept") == "yes")
        #expect(stream.received.body == Data("dribbled".utf8))
        #expect(stream.received.ended)
        #expect(stream.channel.isActive, "a stream is not closed after its response")
    }

    /// `HEAD`: the head with the body's length, the stream's end, no DATA bytes.
    @Test func aResponseToHEADIsItsHeadAlone() throws {
        var stream = try Stream(stubber: handlerStubber(patternBytes(5_000)))
        try stream.send("HEAD", "/")
        try stream.receive()
        #expect(stream.received.status == "200")
        #expect(stream.received.heads.first?.first(name: "content-length") == "5000")
        #expect(stream.received.body.isEmpty)
        #expect(stream.received.ended)
    }

    /// A delayed response comes at its time on the event loop's clock.
    @Test func aDelayedResponseComesAtItsTime() throws {
        var stream = try Stream(stubber: handlerStubber(Data("late".utf8)) { $0.responseDelay = 2 })
        try stream.send("GET", "/")
        stream.advance(by: .milliseconds(1_999))
        try stream.receive()
        #expect(stream.received.heads.isEmpty)
        stream.advance(by: .milliseconds(1))
        try stream.receive()
        #expect(stream.received.body == Data("late".utf8))
    }

    /// A body over the limit is refused on the stream with `413` and a text saying why, and the stream ends.
    @Test func aBodyOverTheLimitIsRefused() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .post) { $0.body = Data("ok".utf8) })
        var stream = try Stream(stubber: stubber) { $0.maximumRequestBodySize = 10 }
        try stream.send("POST", "/", headers: [("content-length", "100")], body: String(repeating: "a", count: 100))
        try stream.receive()
        #expect(stream.received.status == "413")
        #expect(String(decoding: stream.received.body, as: UTF8.self).contains("larger than this server accepts"))
        #expect(stream.received.ended)
    }

    /// A stub's fault resets the stream (a stream has no bytes of its own to garble): no response.
    @Test(arguments: [HTTPStubFault.connectionResetByPeer, .malformedResponseChunk, .emptyResponse])
    func aFaultResetsTheStream(fault: HTTPStubFault) throws {
        var stream = try Stream(stubber: handlerStubber(Data()) { $0.fault = fault })
        try stream.send("GET", "/")
        try stream.receive()
        #expect(stream.received.heads.isEmpty)
        #expect(!stream.channel.isActive)
    }
}
