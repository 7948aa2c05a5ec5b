import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1

/// One request as a parser read it.
struct Read: Equatable, CustomStringConvertible {
    var head: HTTPRequestHead
    var fields: [String]
    var body: [UInt8] = []
    var ended = false

    init(_ head: HTTPRequestHead) {
        self.head = head
        // SwiftNIO keeps the spaces after a value; RFC 9112, section 5 says they are not part of it (the server's
        // parser drops them). Compared without.
        fields = head.headers.map { field in
            var value = Substring(field.value)
            while value.last == " " || value.last == "\t" { value = value.dropLast() }
            return "\(field.name): \(value)"
        }
    }

    /// The request as both parsers must read it: SwiftNIO names M-SEARCH `MSEARCH` and other methods it does not
    /// know `RAW`; the text is compared.
    var key: String {
        "\(head.method.rawValue) \(head.uri) \(head.version.major).\(head.version.minor) \(fields) \(body)"
    }

    var description: String {
        "\(head.method.rawValue) \(head.uri.debugDescription) \(head.version) \(fields) \(body.count) B"
            + (ended ? "" : " (not ended)")
    }
}

/// What a parser read of a connection's bytes: its requests, and whether (and why) it refused what followed.
struct Outcome: Equatable, CustomStringConvertible {
    struct Refusal: Equatable {
        var status: Int
        var text: String
    }

    var requests: [Read] = []
    var refusal: Refusal?
    /// Whether the facts gathered while a head was read differ from the head's.
    var factsDiffer = false

    static func == (lhs: Outcome, rhs: Outcome) -> Bool {
        lhs.requests.map(\.key) == rhs.requests.map(\.key) && lhs.requests.map(\.ended) == rhs.requests.map(\.ended)
            && lhs.refusal == rhs.refusal && lhs.factsDiffer == rhs.factsDiffer
    }

    var heads: [HTTPRequestHead] { requests.map(\.head) }

    /// How the bytes were cut into requests: each one's method, target, body size and end, and whether the rest
    /// was refused.
    var framing: [String] {
        requests.map { "\($0.head.method.rawValue) \($0.head.uri) \($0.body.count) \($0.ended)" } + [
            "\(refusal != nil)"
        ]
    }

    var description: String {
        "\(requests)" + (refusal.map { ", refused (\($0.status)): \($0.text.debugDescription)" } ?? "")
    }

    /// What the server's parser reads, fed `piece` bytes at a time.
    static func ours(_ bytes: [UInt8], piece: Int) -> Outcome {
        var parser = HTTP1RequestParser(maximumHeadSize: 80 << 10)
        var outcome = Outcome()
        var offset = 0
        repeat {
            let end = min(bytes.count, offset + max(piece, 1))
            parser.feed(ByteBuffer(bytes: bytes[offset..<end]))
            offset = end
            while let event = parser.next() {
                switch event {
                case .head(let head, let facts):
                    if facts != HeadFacts(head) { outcome.factsDiffer = true }
                    outcome.requests.append(Read(head))
                case .body(let part): outcome.requests[outcome.requests.count - 1].body += part.readableBytesView
                case .end: outcome.requests[outcome.requests.count - 1].ended = true
                case .malformed(let status, let text): outcome.refusal = Refusal(status: Int(status.code), text: text)
                }
            }
        } while offset < bytes.count
        return outcome
    }

    /// What SwiftNIO's decoder reads.
    static func nio(_ bytes: [UInt8], piece: Int) -> Outcome {
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
        while offset < bytes.count && collector.outcome.refusal == nil {
            let end = min(bytes.count, offset + max(piece, 1))
            _ = try? channel.writeInbound(ByteBuffer(bytes: bytes[offset..<end]))
            offset = end
        }
        return collector.outcome
    }

    /// Collects what SwiftNIO's decoder reads, and its error.
    final class Collector: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        var outcome = Outcome()

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): outcome.requests.append(Read(head))
            case .body(let part): outcome.requests[outcome.requests.count - 1].body += part.readableBytesView
            case .end: outcome.requests[outcome.requests.count - 1].ended = true
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            outcome.refusal = Refusal(status: 400, text: "\(error)")
        }
    }

    /// How this outcome (the server's parser's) differs from SwiftNIO's, unless the difference is one of those
    /// named here, or `nil`. Every request both read whole must be the same; after those, one may refuse what the
    /// other has not yet read whole (a refusal comes as soon as a parser sees it).
    func difference(from nio: Outcome, bytes: [UInt8]) -> String? {
        for index in 0..<min(requests.count, nio.requests.count)
        where requests[index].ended && nio.requests[index].ended && requests[index].key != nio.requests[index].key {
            return "request \(index) is read as \(requests[index]) by the server, \(nio.requests[index]) by SwiftNIO"
        }
        let oursWhole = requests.prefix { $0.ended }.count
        let nioWhole = nio.requests.prefix { $0.ended }.count
        if oursWhole == nioWhole { return nil }
        if oursWhole > nioWhole {
            // After a request that asks to change protocols, SwiftNIO's decoder stops; the server's handler takes
            // the connection's bytes over at that request (`handOver()`).
            if nioWhole > 0, Self.asksToUpgrade(nio.requests[nioWhole - 1]) { return nil }
            if let refusal = nio.refusal, Self.leniencies.contains(where: { refusal.text.contains($0) }) { return nil }
            if let refusal = nio.refusal, Self.hasBadWhitespace(bytes),
                ["invalid character in chunk size header", "strict mode assertion"].contains(refusal.text)
            {
                return nil
            }
            // HTTP/1.2 and later minors, read as HTTP/1.1 (RFC 9112, section 2.3); llhttp refuses them.
            if nio.refusal?.text == "invalid HTTP version", requests[nioWhole].head.version.minor > 1 { return nil }
            // A Transfer-Encoding list with an empty element (`chunked,`), which a recipient must ignore (RFC 9110,
            // section 5.6.1); llhttp refuses it.
            let codings = requests[nioWhole].head.headers["transfer-encoding"].joined(separator: ",")
            if codings.split(separator: ",", omittingEmptySubsequences: false).contains(where: {
                $0.allSatisfy { $0 == " " || $0 == "\t" }
            }) {
                return nil
            }
            // A body whose last transfer coding is not chunked ends with the connection: SwiftNIO refuses it; the
            // server reads the head, answers 501 (the connection machine refuses the coding), and nothing after.
            if oursWhole == nioWhole + 1, HeadFacts(requests[nioWhole].head).unknownTransferCoding != nil {
                return nil
            }
            return "the server reads \(oursWhole) requests whole, SwiftNIO \(nioWhole)"
                + (nio.refusal.map { " and refuses the next (\($0.text))" } ?? "")
        }
        if let refusal, Self.refusalsNamed.contains(where: { refusal.text.contains($0) }) { return nil }
        return "the server reads \(oursWhole) requests whole, SwiftNIO \(nioWhole)"
            + (refusal.map { "; the server refuses the next (\($0.text.debugDescription))" } ?? "")
    }

    /// Refusals of what SwiftNIO reads, each named in the parser's documentation: bytes after a request that ends
    /// its connection (nothing would answer them); a Transfer-Encoding that names no coding, alone or beside a
    /// Content-Length (SwiftNIO reads it as absent; a front end may read a body by it); a chunk's size line that
    /// breaks RFC 9112's grammar (llhttp reads past an extension without a name or a value); a trailer named
    /// Content-Length or Transfer-Encoding (llhttp reads one with an empty value); a request line with more than one
    /// space between its parts (RFC 9112, section 3: parsing on whitespace "can result in request smuggling"; llhttp
    /// reads it).
    static let refusalsNamed = [
        "bytes follow a request that ends its connection", "Transfer-Encoding names no coding",
        "framed by both Transfer-Encoding and Content-Length",
        "a chunk's size line is malformed", "the request line has more than one space", "which only a head may send",
    ]

    /// What SwiftNIO refuses and the server reads, on purpose: a method llhttp does not know (RFC 9110, section 9:
    /// a method is any token; stubs may match any, as WireMock's do); a target llhttp's URL table refuses (the
    /// parser takes any visible ASCII; the request builder then refuses a target that is neither a path nor an
    /// absolute URL with a 400 saying so, and encodes what a lenient client sent unencoded, as `checkRequest` holds
    /// to Foundation's reading).
    static let leniencies = ["invalid HTTP method", "invalid URL"]

    /// Whether the bytes hold whitespace before a `;` or around an `=`: in a chunk's extensions, RFC 9112's "bad
    /// whitespace" (BWS, section 7.1.1), which a recipient must read past and llhttp refuses.
    static func hasBadWhitespace(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        return [" ;", "\t;", "; ", ";\t", " =", "\t=", "= ", "=\t"].contains { text.contains($0) }
    }

    /// Whether llhttp takes a request as asking to change protocols (an `Upgrade` field, or `CONNECT`).
    static func asksToUpgrade(_ read: Read) -> Bool {
        read.head.method == .CONNECT || read.head.headers.contains(name: "upgrade")
    }
}
