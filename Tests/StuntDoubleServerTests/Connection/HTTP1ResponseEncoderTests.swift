import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import StuntDouble
import Testing

@testable import StuntDoubleServer

/// The HTTP/1.1 bytes the server writes (`HTTP1ResponseEncoder`, after the machines), held to SwiftNIO's own
/// response decoder on generated responses: every status, field, framing (a length, chunks, the connection's end),
/// `HEAD`, and body size, taken by the response machine in writes of random sizes. The decoder must read back the
/// status, the fields and the body exactly, and see each response end where it should. (It keeps no reason
/// phrase: the status line is checked as sent.)
@Suite struct HTTP1ResponseEncoderTests {
    struct Generated {
        var state: UInt64
        mutating func draw(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// One generated response as the decoder read it.
    struct Decoded {
        var head: HTTPResponseHead?
        var body = ByteBuffer()
        var ended = false
    }

    static let statuses: [(Int, String?)] = [
        (200, nil), (201, nil), (204, nil), (304, nil), (404, nil), (500, nil), (299, "Odd But Fine"),
        (599, nil), (418, "I'm a teapot"), (302, nil),
    ]
    static let fields = [
        ("Content-Type", "application/json"), ("X-Trace", "a b  c"), ("Set-Cookie", "a=1; Path=/"),
        ("Set-Cookie", "b=2"), ("cache-control", "no-cache, no-store"), ("X-Empty", ""), ("ETag", "\"xyzzy\""),
        ("Vary", "Accept-Encoding, Origin"),
    ]
    static let sizes = [0, 1, 2, 100, 8_191, 65_535, 65_536, 65_537, 131_073, 300_001]

    @Test func generatedResponsesDecodeAsTheyWereMade() throws {
        var random = Generated(state: 0xC0FFEE)
        var failures: [String] = []
        for index in 0..<400 {
            let (code, reason) = Self.statuses[random.draw(Self.statuses.count)]
            let isHead = random.draw(5) == 0
            let version: HTTPVersion = random.draw(6) == 0 ? .http1_0 : .http1_1
            let body = patternBytes(Self.sizes[random.draw(Self.sizes.count)], seed: UInt64(index))
            var headers: StuntDouble.HTTPHeaders = [:]
            for field in Self.fields where random.draw(3) == 0 {
                headers.add(name: .init(rawValue: field.0), value: field.1)
            }
            // How the stub frames its body: a length (the default), chunks, or nothing said.
            switch random.draw(3) {
            case 0: headers[.transferEncoding] = "chunked"
            case 1: headers[.contentLength] = String(body.count)
            default: break
            }
            let stubber = HTTPStubber()
            stubber.add(
                stub: HTTPStubRequest().stub(for: isHead ? .head : .get) {
                    $0.statusCode = HTTPStatusCode(rawValue: code)
                    $0.statusMessage = reason
                    $0.headers = headers
                    $0.body = body
                })
            var limits = MachineHarness.limits()
            limits.pieceSize = 1 + random.draw(70_000)
            limits.batchSize = 1 + random.draw(300_000)
            let requestHead = HTTPRequestHead(
                version: version, method: isHead ? .HEAD : .GET, uri: "/", headers: ["Host": "x"])
            let (bytes, keepAlive) = try Self.encode(requestHead, stubber: stubber, limits: limits)
            let decoded = try Self.decode(bytes, request: requestHead, closesAfter: !keepAlive, random: &random)
            let expectsBody = !isHead && code != 204 && code != 304
            let what = "case \(index): \(code) \(isHead ? "HEAD" : "GET") \(version) \(body.count) B"
            guard let head = decoded.head else {
                failures.append("\(what): no head decoded")
                continue
            }
            if Int(head.status.code) != code { failures.append("\(what): status \(head.status.code)") }
            // SwiftNIO's decoder keeps no reason phrase of its own: the status line, as sent.
            let statusLine = String(decoding: bytes.readableBytesView.prefix { $0 != 13 }, as: UTF8.self)
            let expectedReason = reason ?? HTTPResponseStatus(statusCode: code).reasonPhrase
            if statusLine != "HTTP/1.\(version.minor) \(code) \(expectedReason)" {
                failures.append("\(what): status line \(statusLine)")
            }
            for (name, value) in Self.fields where headers.contains(where: { $0.name.rawValue == name }) {
                let sent = headers.values(for: .init(rawValue: name))
                if head.headers[name] != sent { failures.append("\(what): \(name) \(head.headers[name]) != \(sent)") }
                _ = value
            }
            if expectsBody, Data(decoded.body.readableBytesView) != body {
                failures.append("\(what): body of \(decoded.body.readableBytes) B")
            }
            if !expectsBody, decoded.body.readableBytes != 0 { failures.append("\(what): a body where none may be") }
            if !decoded.ended { failures.append("\(what): no end") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }

    /// The bytes the machine and the encoder make of a stub's response to `request`, and whether the connection
    /// stays open after it.
    static func encode(_ request: HTTPRequestHead, stubber: HTTPStubber, limits: ConnectionStateMachine.Limits)
        throws -> (ByteBuffer, keepAlive: Bool)
    {
        let incoming = try IncomingRequestBuilder.make(request, body: ByteBuffer(), declaresBody: false, authority: "x")
        let plan = try #require(stubber.decide(incoming, via: .server).decision.plan)
        var response = ResponseStateMachine.plan(
            plan, id: 0, for: HeadRequirements(request),
            record: ResponseRecord(entry: 0, request: request, received: .now()), receivedAt: .now())
        var bytes = ByteBuffer()
        while true {
            var writes = ResponseWrites()
            let progress = response.produce(into: &writes, limits: limits, now: { .now() })
            HTTP1ResponseEncoder.encode(writes) { buffer in
                var buffer = buffer
                bytes.writeBuffer(&buffer)
            }
            switch progress {
            case .write: continue
            case .ended(let keepAlive): return (bytes, keepAlive)
            default: throw Failure(description: "unexpected \(progress)")
            }
        }
    }

    /// What SwiftNIO's client pipeline reads of `bytes`, fed in pieces of random sizes after the request was
    /// written (the decoder learns from it whether a body may follow); the connection then closes when the response
    /// said it would.
    static func decode(_ bytes: ByteBuffer, request: HTTPRequestHead, closesAfter: Bool, random: inout Generated)
        throws -> Decoded
    {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        try channel.pipeline.syncOperations.addHandler(HTTPRequestEncoder())
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)))
        try channel.writeOutbound(HTTPClientRequestPart.head(request))
        try channel.writeOutbound(HTTPClientRequestPart.end(nil))
        var remaining = bytes
        while remaining.readableBytes > 0 {
            let piece = remaining.readSlice(length: min(remaining.readableBytes, 1 + random.draw(100_000)))!
            try channel.writeInbound(piece)
        }
        if closesAfter { channel.pipeline.fireChannelInactive() }
        var decoded = Decoded()
        while let part = try channel.readInbound(as: HTTPClientResponsePart.self) {
            switch part {
            case .head(let head): decoded.head = head
            case .body(var piece): decoded.body.writeBuffer(&piece)
            case .end: decoded.ended = true
            }
        }
        return decoded
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
