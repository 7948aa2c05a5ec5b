import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import StuntDoubleServer

/// The server's HTTP/1.1 request parser, held to SwiftNIO's decoder (llhttp) on generated requests: the same
/// heads, bodies and ends for what both read, and a refusal from both for what SwiftNIO refuses, whatever pieces
/// the bytes arrive in.
@Suite struct HTTP1RequestParserTests {
    /// One request as a parser read it.
    struct Read: Equatable, CustomStringConvertible {
        var method: String
        var target: String
        var version: String
        var fields: [String]
        var body = Data()
        var ended = false

        init(_ head: HTTPRequestHead) {
            method = head.method.rawValue
            target = head.uri
            version = "\(head.version.major).\(head.version.minor)"
            // SwiftNIO keeps the spaces after a value; RFC 9112, section 5 says they are not part of it (the
            // server's parser drops them). Compared without.
            fields = head.headers.map { field in
                var value = Substring(field.value)
                while value.last == " " || value.last == "\t" { value = value.dropLast() }
                return "\(field.name): \(value)"
            }
        }

        var description: String { "\(method) \(target) \(version) \(fields) \(body.count) B ended: \(ended)" }
    }

    /// What a parser read of a connection's bytes: its requests, and whether it refused what followed them.
    struct Outcome: Equatable, CustomStringConvertible {
        var requests: [Read] = []
        var refused = false
        var description: String { "\(requests)\(refused ? ", refused" : "")" }
    }

    static func ours(_ bytes: [UInt8], pieces: [Int], limit: Int = 80 << 10) -> Outcome {
        var parser = HTTP1RequestParser(maximumHeadSize: limit)
        var outcome = Outcome()
        var offset = 0
        for size in pieces + [bytes.count] where offset < bytes.count {
            let end = min(bytes.count, offset + max(size, 1))
            parser.feed(ByteBuffer(bytes: bytes[offset..<end]))
            offset = end
            while let event = parser.next() {
                switch event {
                case .head(let head, let facts):
                    // What the parser gathered field by field is what the whole head says.
                    if facts != HeadFacts(head) { outcome.refused = true }
                    outcome.requests.append(Read(head))
                case .body(let part):
                    outcome.requests[outcome.requests.count - 1].body.append(Data(part.readableBytesView))
                case .end: outcome.requests[outcome.requests.count - 1].ended = true
                case .malformed: outcome.refused = true
                }
            }
        }
        return outcome
    }

    /// Collects what SwiftNIO's decoder reads, and whether it refused.
    final class Collector: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        var outcome = Outcome()

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): outcome.requests.append(Read(head))
            case .body(let part):
                outcome.requests[outcome.requests.count - 1].body.append(Data(part.readableBytesView))
            case .end: outcome.requests[outcome.requests.count - 1].ended = true
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            outcome.refused = true
        }
    }

    static func nio(_ bytes: [UInt8], pieces: [Int]) -> Outcome {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderListSize = 80 << 10
        limits.maxHeaderFieldSize = 80 << 10
        let collector = Collector()
        try! channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits)))
        try! channel.pipeline.syncOperations.addHandler(collector)
        var offset = 0
        for size in pieces + [bytes.count] where offset < bytes.count && !collector.outcome.refused {
            let end = min(bytes.count, offset + max(size, 1))
            _ = try? channel.writeInbound(ByteBuffer(bytes: bytes[offset..<end]))
            offset = end
        }
        return collector.outcome
    }

    struct Generator {
        var state: UInt64
        mutating func draw(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        mutating func pick<T>(_ values: [T]) -> T { values[draw(values.count)] }
    }

    // (SwiftNIO names M-SEARCH `MSEARCH`; the server keeps a method as sent.)
    static let methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "PROPFIND", "PURGE"]
    static let targets = ["/", "/a/b?c=d&e", "/%20x", "/p;q", "http://h:8/x?y", "*", "/%C3%A9", "/a//b/../c"]
    static let names = ["Host", "Accept", "X-Custom", "content-type", "Cookie", "x_underscore", "X-Many"]
    static let values = ["x", "a, b", "", "  padded  ", "v\twith\ttabs", "üñî", String(repeating: "z", count: 300)]

    /// A request: its bytes as a client would send them (valid HTTP/1.1), framed by a length, by chunks (with
    /// extensions and trailers), or not at all.
    /// An HTTP/1.0 request (which ends its connection) only when `last`.
    static func request(_ random: inout Generator, last: Bool = true) -> [UInt8] {
        let minor = last ? random.draw(2) : 1
        var text = "\(random.pick(methods)) \(random.pick(targets)) HTTP/1.\(minor)\r\n"
        for _ in 0..<random.draw(6) {
            text += "\(random.pick(names)):\(random.draw(2) == 0 ? " " : "")\(random.pick(values))\r\n"
        }
        let body = [UInt8](patternBytes(random.pick([0, 1, 10, 5000, 70_000]), seed: UInt64(random.draw(1000))))
        // (An HTTP/1.0 request framed by chunks ends its connection: RFC 9112, section 6.1.)
        switch minor == 0 ? random.draw(2) * 2 : random.draw(3) {
        case 0 where !body.isEmpty:
            var bytes = Array((text + "Content-Length: \(body.count)\r\n\r\n").utf8)
            bytes += body
            return bytes
        case 1:
            var bytes = Array((text + "Transfer-Encoding: chunked\r\n\r\n").utf8)
            var offset = 0
            while offset < body.count {
                let size = min(body.count - offset, 1 + random.draw(9000))
                let extensions = random.draw(4) == 0 ? ";a=b;c" : ""
                bytes += Array("\(String(size, radix: 16))\(extensions)\r\n".utf8) + body[offset..<offset + size]
                bytes += Array("\r\n".utf8)
                offset += size
            }
            bytes += Array((random.draw(3) == 0 ? "0\r\nX-Trailer: t\r\n\r\n" : "0\r\n\r\n").utf8)
            return bytes
        default:
            return Array((text + "\r\n").utf8)
        }
    }

    /// A way of breaking a request that SwiftNIO refuses.
    static let breakages: [(String, @Sendable ([UInt8]) -> [UInt8])] = [
        ("space before a colon", { replace($0, "\r\n", with: "\r\nX-Bad : v\r\n") }),
        ("a folded line", { replace($0, "\r\n", with: "\r\nX-Fold: a\r\n  b\r\n") }),
        ("a version 9.9", { replace($0, "HTTP/1.", with: "HTTP/9.") }),
        ("a NUL in a value", { replace($0, "\r\n", with: "\r\nX-Nul: a\u{0}b\r\n") }),
        ("no method", { Array(" ".utf8) + $0 }),
        ("two lengths", { replace($0, "\r\n", with: "\r\nContent-Length: 1\r\nContent-Length: 2\r\n") }),
        (
            "a length and chunks",
            { replace($0, "\r\n", with: "\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n") }
        ),
        ("a name with a slash", { replace($0, "\r\n", with: "\r\nX/Y: v\r\n") }),
        ("a target that is not ASCII", { replace($0, " ", with: " /\u{E9}") }),
    ]

    /// Replaces the first occurrence of `pattern`.
    static func replace(_ bytes: [UInt8], _ pattern: String, with replacement: String) -> [UInt8] {
        let needle = Array(pattern.utf8)
        guard
            let start = (0...(bytes.count - needle.count)).first(where: {
                Array(bytes[$0..<$0 + needle.count]) == needle
            })
        else { return bytes }
        return Array(bytes[..<start]) + Array(replacement.utf8) + Array(bytes[(start + needle.count)...])
    }

    /// 600 connections of one to four pipelined requests, in pieces of random sizes, read alike by both.
    @Test func generatedRequestsReadAsSwiftNIOReadsThem() {
        var random = Generator(state: 0xFEED)
        var failures: [String] = []
        for index in 0..<600 {
            var bytes: [UInt8] = []
            let count = 1 + random.draw(4)
            for index in 0..<count { bytes += Self.request(&random, last: index == count - 1) }
            let pieces = (0..<20).map { _ in 1 + random.draw(random.pick([3, 100, 10_000, 100_000])) }
            let ours = Self.ours(bytes, pieces: pieces)
            let nio = Self.nio(bytes, pieces: pieces)
            if ours != nio {
                let first = zip(ours.requests, nio.requests).first { $0 != $1 }
                failures.append(
                    "connection \(index): ours \(ours.requests.count) requests (refused \(ours.refused)), SwiftNIO "
                        + "\(nio.requests.count) (refused \(nio.refused)); first difference: "
                        + "\(first.map { "\($0.0) / \($0.1)" } ?? "none")")
            }
            if ours.refused { failures.append("connection \(index): refused a valid request") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
    }

    /// Requests broken in the ways SwiftNIO refuses, after a valid one: both read the first and refuse the rest.
    @Test func brokenRequestsAreRefusedAsSwiftNIORefusesThem() {
        var random = Generator(state: 0xBAD)
        var failures: [String] = []
        for index in 0..<400 {
            let (name, breaking) = Self.breakages[index % Self.breakages.count]
            let valid = Self.request(&random, last: false)
            let bytes = valid + breaking(Self.request(&random))
            let pieces = (0..<20).map { _ in 1 + random.draw(random.pick([3, 1000, 100_000])) }
            let ours = Self.ours(bytes, pieces: pieces)
            let nio = Self.nio(bytes, pieces: pieces)
            if !ours.refused { failures.append("\(name) (\(index)): not refused: \(ours)") }
            if !nio.refused { failures.append("\(name) (\(index)): SwiftNIO did not refuse it") }
            if ours.requests.first != nio.requests.first {
                failures.append("\(name) (\(index)): the valid request before it differs: \(ours) / \(nio)")
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
    }

    /// Where the two differ on purpose: a bare LF ends a line (as most servers read it); a chunk's size line and a
    /// head that never end are refused past the head limit; a head over the limit is refused with its size.
    @Test func whereTheParserReadsMoreLeniently() throws {
        let bare = Self.ours(Array("GET /a HTTP/1.1\nHost: x\n\n".utf8), pieces: [100])
        #expect(bare.requests.map(\.target) == ["/a"])
        #expect(bare.requests.first?.ended == true)
        // (Found by FuzzRequestHead: a length with more than 18 digits, all but one of them leading zeros.)
        let zeros = "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: \(String(repeating: "0", count: 40))5\r\n\r\nhello"
        #expect(Self.ours(Array(zeros.utf8), pieces: [1000]).requests.first?.body == Data("hello".utf8))
        // A last coding that is not chunked: the body ends with the connection, so nothing after the head is read
        // (the connection machine answers 501).
        let gzip = "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n"
        let unframed = Self.ours(Array(gzip.utf8), pieces: [1000])
        #expect(unframed.requests.map(\.target) == ["/a"])
        #expect(unframed.refused)

        var parser = HTTP1RequestParser(maximumHeadSize: 1000)
        parser.feed(ByteBuffer(string: "GET / HTTP/1.1\r\n" + String(repeating: "X-A: b\r\n", count: 200) + "\r\n"))
        guard case .malformed(let status, let text) = parser.next() else {
            Issue.record("expected a refusal")
            return
        }
        #expect(status == .requestHeaderFieldsTooLarge)
        #expect(text.contains("200 header fields"), "\(text)")
        #expect(parser.next() == nil, "nothing more is read")

        var endless = HTTP1RequestParser(maximumHeadSize: 1000)
        endless.feed(ByteBuffer(string: "GET / HTTP/1.1\r\n" + String(repeating: "X-A: b\r\n", count: 200)))
        guard case .malformed(let endlessStatus, _) = endless.next() else {
            Issue.record("expected a refusal of a head that never ends")
            return
        }
        #expect(endlessStatus == .requestHeaderFieldsTooLarge)
    }

    /// Chunked bodies whose lines a lenient reader and a strict one would cut differently (a front end before the
    /// server reads chunks the server does not, and the rest as a request of the client's choosing): refused, as
    /// SwiftNIO refuses them. An extension without a name, which SwiftNIO reads past, is refused too (RFC 9112's
    /// `chunk-ext` needs a name).
    @Test func chunkLinesThatReadersCouldCutDifferentlyAreRefused() {
        let head = "POST /u HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        let after = "GET /next HTTP/1.1\r\nHost: x\r\n\r\n"
        let broken = [
            "a size line ended by a bare LF": "5\nhello\r\n0\r\n\r\n",
            "a chunk ended by a bare LF": "5\r\nhello\n0\r\n\r\n",
            "a last chunk ended by a bare LF": "5\r\nhello\r\n0\n\r\n",
            "a NUL in an extension": "5;a\u{0}b\r\nhello\r\n0\r\n\r\n",
            "a CR in an extension": "5;a\rb\r\nhello\r\n0\r\n\r\n",
            "a quoted extension that does not close": "5;a=\"b\r\nhello\r\n0\r\n\r\n",
            "a trailer that is not a field": "5\r\nhello\r\n0\r\nnot a field\r\n\r\n",
            "a trailer ended by a bare LF": "5\r\nhello\r\n0\r\nT: v\n\r\n",
            // (Found by FuzzRequestHead: whitespace that no `;` follows, a trailer that frames the message.)
            "a space after a size": "5 \r\nhello\r\n0\r\n\r\n",
            "a tab after the last size": "5\r\nhello\r\n0\t\r\n\r\n",
            "a space after an extension's value": "5;a=b \r\nhello\r\n0\r\n\r\n",
            "a space after an extension's name": "5;a \r\nhello\r\n0\r\n\r\n",
            "a Content-Length trailer": "5\r\nhello\r\n0\r\nContent-Length: 5\r\n\r\n",
            "a Transfer-Encoding trailer": "5\r\nhello\r\n0\r\nX: y\r\ntransfer-encoding: chunked\r\n\r\n",
        ]
        for (name, body) in broken.sorted(by: { $0.key < $1.key }) {
            let bytes = Array((head + body + after).utf8)
            for pieces in [[bytes.count], [head.utf8.count + 1, 1, 1, 1, 1, 1, 1, 1]] {
                let ours = Self.ours(bytes, pieces: pieces)
                #expect(ours.refused, "\(name): read as \(ours)")
                #expect(!ours.requests.contains { $0.target == "/next" }, "\(name)")
                #expect(Self.nio(bytes, pieces: pieces).refused, "\(name): SwiftNIO reads it")
            }
        }
        let nameless = Array((head + "5;=b\r\nhello\r\n0\r\n\r\n" + after).utf8)
        #expect(Self.ours(nameless, pieces: [nameless.count]).refused, "an extension without a name")
        let valid = [
            "a quoted extension": "5;a=\"b c;d\\\"\"\r\nhello\r\n0\r\n\r\n",
            "extensions with spaces around them": "5 ; a = b ;c\r\nhello\r\n0\r\n\r\n",
            "trailers": "5\r\nhello\r\n0\r\nT: v\r\nU:w\r\n\r\n",
        ]
        for (name, body) in valid.sorted(by: { $0.key < $1.key }) {
            let bytes = Array((head + body + after).utf8)
            let ours = Self.ours(bytes, pieces: [bytes.count])
            #expect(!ours.refused, "\(name)")
            #expect(ours.requests.map(\.target) == ["/u", "/next"], "\(name)")
            #expect(ours.requests.first?.body == Data("hello".utf8), "\(name)")
        }
    }

    /// Transfer-Encoding in several fields is read as one list, as a front end that joins them reads it: a second,
    /// empty field does not hide the first's `chunked` (the body read as a request of its own), and a list that
    /// names no coding, or `chunked` before another coding or twice, is refused.
    @Test func transferCodingsInSeveralFieldsAreOneList() {
        let chunked = "5\r\nhello\r\n0\r\n\r\n"
        let after = "GET /next HTTP/1.1\r\nHost: x\r\n\r\n"
        func request(_ fields: [String], body: String = chunked) -> [UInt8] {
            Array(
                ("POST /u HTTP/1.1\r\nHost: x\r\n" + fields.map { "\($0)\r\n" }.joined() + "\r\n" + body + after).utf8)
        }
        for fields in [
            ["Transfer-Encoding: chunked", "Transfer-Encoding: "],
            ["Transfer-Encoding: chunked", "Transfer-Encoding: ,"],
            ["Transfer-Encoding: , chunked"],
        ] {
            let read = Self.ours(request(fields), pieces: [1000])
            #expect(!read.refused, "\(fields)")
            #expect(read.requests.map(\.target) == ["/u", "/next"], "\(fields)")
            #expect(read.requests.first?.body == Data("hello".utf8), "\(fields)")
        }
        for fields in [
            ["Transfer-Encoding: "], ["Transfer-Encoding: ,"], ["Transfer-Encoding: chunked, chunked"],
            ["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"],
            ["Transfer-Encoding: chunked", "Transfer-Encoding: gzip"],
        ] {
            let read = Self.ours(request(fields), pieces: [1000])
            #expect(read.refused, "\(fields)")
            #expect(read.requests.isEmpty, "\(fields)")
        }
    }

    /// An HTTP/1.0 request framed by Transfer-Encoding ends its connection even when it asks to keep it alive
    /// (RFC 9112, section 6.1): the facts the machine answers by say so, and what follows is refused.
    @Test func anHTTP10RequestWithATransferCodingEndsItsConnection() {
        let bytes = Array(
            ("POST /u HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
                + "GET /next HTTP/1.1\r\nHost: x\r\n\r\n").utf8)
        var parser = HTTP1RequestParser(maximumHeadSize: 1000)
        parser.feed(ByteBuffer(bytes: bytes))
        guard case .head(let head, let facts) = parser.next() else {
            Issue.record("expected a head")
            return
        }
        #expect(!facts.keepAlive(head.version))
        let read = Self.ours(bytes, pieces: [bytes.count])
        #expect(read.requests.map(\.target) == ["/u"])
        #expect(read.refused)
    }

    /// The bytes after a request are left unread for whoever takes the connection over.
    @Test func theBytesAfterARequestAreHandedOver() {
        var parser = HTTP1RequestParser(maximumHeadSize: 1000)
        var bytes = ByteBuffer(string: "GET /chat HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n")
        bytes.writeBytes([0x81, 0x05] + Array("hello".utf8))
        parser.feed(bytes)
        guard case .head = parser.next(), case .end = parser.next() else {
            Issue.record("expected a head and an end")
            return
        }
        let rest = parser.handOver()
        #expect(Array(rest.readableBytesView) == [0x81, 0x05] + Array("hello".utf8))
        #expect(parser.next() == nil)
    }

    /// A large pipelined body in one read is handed over as slices of it (no copy), and a head split anywhere is
    /// found whole.
    @Test func everySplitOfARequestReadsTheSame() {
        let bytes = Array(
            "POST /u HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;e=1\r\nhello\r\n0\r\nT: v\r\n\r\n".utf8)
        let whole = Self.ours(bytes, pieces: [bytes.count])
        for split in 1..<bytes.count {
            #expect(Self.ours(bytes, pieces: [split]) == whole, "split at \(split)")
        }
        #expect(whole.requests.first?.body == Data("hello".utf8))
    }

    /// The names the parser knows by their bytes (the usual spellings) read as any other spelling of them does:
    /// the name as written, and the same facts as the whole head gives.
    @Test(arguments: [
        "Host", "host", "HOST", "hOsT", "Expect", "EXPECT", "Upgrade", "upgrade", "Connection", "connection",
        "CONNECTION", "User-Agent", "user-agent", "USER-AGENT", "Content-Length", "content-length", "Content-length",
        "Transfer-Encoding", "transfer-encoding", "TRANSFER-ENCODING", "Accept", "Cookie", "Origin", "Referer",
        "Content-Type", "Authorization", "Cache-Control", "Accept-Encoding", "Accept-Language", "X-Other",
    ])
    func usualNamesReadAsAnySpellingOfThem(name: String) throws {
        let value =
            switch name.lowercased() {
            case "content-length": "0"
            case "transfer-encoding": "chunked"
            case "expect": "100-continue"
            case "connection": "close"
            default: "v"
            }
        let host = name.lowercased() == "host" ? "" : "Host: h\r\n"
        let end = name.lowercased() == "transfer-encoding" ? "0\r\n\r\n" : ""
        var parser = HTTP1RequestParser(maximumHeadSize: 80 << 10)
        parser.feed(ByteBuffer(string: "POST /x HTTP/1.1\r\n\(host)\(name): \(value)\r\n\r\n\(end)"))
        let event = parser.next()
        guard case .head(let head, let facts) = try #require(event) else {
            Issue.record("no head")
            return
        }
        #expect(head.headers.map(\.name).contains(name))
        #expect(head.headers[name] == [value])
        #expect(facts == HeadFacts(head))
        #expect(facts.hostCount == 1)
        #expect(facts.declaresBody == ["content-length", "transfer-encoding"].contains(name.lowercased()))
        #expect(facts.expectsContinue == (name.lowercased() == "expect"))
        #expect(facts.hasUpgrade == (name.lowercased() == "upgrade"))
        #expect(facts.keepAlive(head.version) == (name.lowercased() != "connection"))
    }

    /// `isMethod` says what `==` says, for SwiftNIO's cases and methods it keeps as text.
    @Test func methodsCompareAsEqualitySays() {
        let methods: [HTTPMethod] = [
            .GET, .HEAD, .POST, .PUT, .DELETE, .PATCH, .OPTIONS, .CONNECT, .TRACE, .RAW(value: "GET"),
            .RAW(value: "get"), .RAW(value: "CONNECT"), .RAW(value: "BREW"), .PROPFIND,
        ]
        for method in methods {
            for other in methods {
                #expect(method.isMethod(other) == (method == other), "\(method) \(other)")
            }
        }
    }
}
