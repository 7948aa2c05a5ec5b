// Input: one byte that says how the rest arrives (in pieces of 1 to 16 bytes, or whole), then the bytes a client
// sent on an HTTP/1.1 connection to the stub server.
//
// Properties, for the server's own parser (`HTTP1RequestParser`), which replaced SwiftNIO's decoder:
// - the pieces the bytes arrive in change nothing: the same requests, parts and refusal as when they arrive whole;
// - what it gathers of a head while reading it (`HeadFacts`) is what the whole head says;
// - with every line ending in CRLF, it reads what SwiftNIO's decoder (llhttp) reads: every request both read whole is the same request (method,
//   target, version, fields, body), and where one refuses what the other reads, the difference is one this file
//   names (each a refusal the parser's documentation gives, or a leniency most servers share);
// - a refusal is a 4xx with a message;
// - each request read becomes the request stubs see, or a clear refusal: a target made into a URL as it is has the
//   route Foundation's accessors give that URL.
//
// The parser's and the request builder's files are compiled into this fuzzer (links in Server/), not linked from
// the server's module, whose TLS, HTTP/2 and HTTP client would cost CI minutes of building.

import Foundation
import FuzzSupport
import NIOCore
import NIOEmbedded
import NIOHTTP1

@testable import StuntDouble

/// libFuzzer's entry point: checks one input; a violated property aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let (pace, input) = FuzzInput(data, size).firstByteAndRest
    let bytes = Array(input.bytes)
    let whole = Outcome.ours(bytes, piece: bytes.count)
    let piece = Int(pace % 17)
    if piece > 0 {
        let pieces = Outcome.ours(bytes, piece: piece)
        require(pieces == whole, "in pieces of \(piece) bytes: \(pieces); whole: \(whole) for \(show(bytes))")
    }
    require(!whole.factsDiffer, "the facts gathered are not the head's for \(show(bytes))")
    if let refusal = whole.refusal {
        require(
            (400..<500).contains(refusal.status) && refusal.text.hasSuffix(".\n") && refusal.text.count > 30,
            "a refusal without a 4xx and a message: \(refusal) for \(show(bytes))")
    }
    // Held to SwiftNIO with every line ending in CRLF: the server reads a bare LF as one, as RFC 9112, section 2.2
    // allows and most servers do; llhttp refuses it.
    let lines = withCRLF(bytes)
    let ours = lines == bytes ? whole : Outcome.ours(lines, piece: lines.count)
    let nio = Outcome.nio(lines, piece: lines.count)
    if let difference = ours.difference(from: nio, bytes: lines) {
        // llhttp takes a tab for whitespace in fewer places than RFC 9110's optional whitespace around a value
        // (section 5.6.3): a difference that goes when every tab is a space, the requests framed alike, is that one.
        let spaced = lines.map { $0 == UInt8(ascii: "\t") ? UInt8(ascii: " ") : $0 }
        let oursSpaced = Outcome.ours(spaced, piece: spaced.count)
        let explained =
            spaced != lines && oursSpaced.framing == ours.framing
            && oursSpaced.difference(from: Outcome.nio(spaced, piece: spaced.count), bytes: spaced) == nil
        require(explained, "\(difference)\nours: \(ours)\nSwiftNIO: \(nio)\nfor \(show(lines))")
    }
    for head in whole.heads { checkRequest(head) }
    return 0
}

/// The request stubs see, made from a head as the server makes it.
func checkRequest(_ head: HTTPRequestHead) {
    let target = head.uri
    do {
        let request = try IncomingRequestBuilder.make(
            head, body: ByteBuffer(), declaresBody: false, authority: "127.0.0.1:8080")
        // The URL a stub sees, and the route the stub index reads, are one URL's.
        let url = request.url
        require(URL(string: url.absoluteString) != nil, "the request's URL \(url) does not parse for \(target)")
        // Foundation percent-encodes `[` and `]` after the host; the route keeps them as sent, as WireMock
        // matches a URL as sent (`?filter[name]=x`).
        if let parsed = RequestRoute(foundationParsing: url) {
            let route = request.route
            let key =
                String(route.exactKey.utf8.prefix(route.pathStart))!
                + String(route.exactKey.utf8.dropFirst(route.pathStart))!
                .replacingOccurrences(of: "[", with: "%5B").replacingOccurrences(of: "]", with: "%5D")
            require(
                parsed.exactKey == key,
                "the route read from the text is \(request.route.exactKey), Foundation's \(parsed.exactKey) for "
                    + target.debugDescription)
        }
    } catch {
        require(!"\(error)".isEmpty, "a refused target without a reason: \(target)")
    }
}

/// The bytes with a CR before every LF that has none.
func withCRLF(_ bytes: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    for (index, byte) in bytes.enumerated() {
        if byte == UInt8(ascii: "\n"), index == 0 || bytes[index - 1] != UInt8(ascii: "\r") {
            result.append(UInt8(ascii: "\r"))
        }
        result.append(byte)
    }
    return result
}

/// Bytes as a Swift literal would write them, for a message.
func show(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self).debugDescription
}
