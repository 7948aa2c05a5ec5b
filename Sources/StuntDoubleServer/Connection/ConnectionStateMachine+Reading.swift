import NIOCore
import NIOHTTP1

/// Reading requests: one at a time, pipelined parts waiting their turn, refusals before a body is read.
extension ConnectionStateMachine {
    /// A part of a request arrived from the decoder. (The time is read only when it matters: a request without a
    /// body, answered at once, reads the clock once, for its receipt.)
    mutating func received(_ part: HTTPServerRequestPart, now: @autoclosure () -> NIODeadline) -> Action {
        switch state {
        case .answering, .responding:
            pending.append(part)
            return .none
        case .finishing, .closed:
            return .none
        case .idle, .receiving, .rejecting:
            if !pending.isEmpty || isWriting {
                pending.append(part)
                return .none
            }
            return take(part, now: now)
        }
    }

    /// Takes the parts that waited, until one of them needs the handler (an answer, a refusal, `100 Continue`);
    /// then reads the socket again if a read was held.
    mutating func takePending(now: @autoclosure () -> NIODeadline) -> Action {
        while !pending.isEmpty, !isWriting {
            switch state {
            case .idle, .receiving, .rejecting:
                let action = take(pending.removeFirst(), now: now)
                if case .none = action { continue }
                return action
            case .answering, .responding:
                return .none
            case .finishing, .closed:
                pending.removeAll()
            }
        }
        if pending.isEmpty, readHeld, !isWriting {
            switch state {
            case .finishing, .closed:
                return .none
            default:
                readHeld = false
                return .read
            }
        }
        return .none
    }

    private mutating func take(_ part: HTTPServerRequestPart, now: () -> NIODeadline) -> Action {
        switch part {
        case .head(let head):
            guard case .idle = state else { return .none }
            return receive(head, now: now)
        case .body(var part):
            guard case .receiving(let head) = state else { return .none }
            lastBodyActivity = now()
            let limit = limits.maximumRequestBodySize
            let received = body?.readableBytes ?? 0
            if received + part.readableBytes > limit {
                body = nil
                return refuse(head, status: .payloadTooLarge, text: tooLargeText(declared: nil), now: lastBodyActivity)
            }
            if body == nil {
                body = part
            } else {
                if let declaredLength, body!.capacity < declaredLength {
                    // Once, for the whole declared body: the parts that follow are appended without moving.
                    body!.reserveCapacity(declaredLength)
                }
                body!.writeBuffer(&part)
            }
            return .none
        case .end:
            switch state {
            case .receiving(let head):
                state = .answering
                let received = body ?? ByteBuffer()
                body = nil
                return .respond(head, received, declaresBody: declaresBody)
            case .rejecting:
                state = .closed
                return .close(reason: .refusedRequestEnded)
            default:
                return .none
            }
        }
    }

    private mutating func receive(_ head: HTTPRequestHead, now: () -> NIODeadline) -> Action {
        let facts = HeadFacts(head)
        if let (status, text) = problem(with: head, facts) {
            return refuse(head, status: status, text: text, now: now())
        }
        if let declared = facts.contentLength, declared > limits.maximumRequestBodySize {
            // A client waiting for 100 Continue never sends the body: nothing to read before closing.
            return refuse(
                head, status: .payloadTooLarge, text: tooLargeText(declared: declared),
                closesAtOnce: facts.expectsContinue, now: now())
        }
        declaredLength = facts.contentLength
        declaresBody = facts.contentLength != nil || facts.hasTransferCoding
        body = nil
        state = .receiving(head)
        guard facts.hasBody else { return .none }
        let time = now()
        lastBodyActivity = time
        idleSince = time
        if facts.expectsContinue, head.version.minor >= 1 {
            batch.append(ResponseWire.continueHead)
            isWriting = true
            return .write
        }
        // The body must not stall for longer than its timeout, which may end before the timer now set.
        return armConnectionTimer(at: time + limits.bodyTimeout)
    }

    /// Refuses the request being read with a response of the server's own, then closes the connection: at once,
    /// or once the rest of the body has been read and dropped (at most the linger time), so that the client
    /// reads the refusal rather than a reset connection.
    mutating func refuse(
        _ head: HTTPRequestHead, status: HTTPResponseStatus, text: String, closesAtOnce: Bool = false,
        now: NIODeadline
    ) -> Action {
        state = .rejecting
        body = nil
        if !closesAtOnce { lingerUntil = now + limits.linger }
        isWriting = true
        refusal = Refusal(head: head, status: status, text: text, closesAtOnce: closesAtOnce)
        return .refuse
    }

    /// Why a request head is refused before its body is read (RFC 9112), or `nil`.
    private func problem(with head: HTTPRequestHead, _ facts: HeadFacts) -> (HTTPResponseStatus, String)? {
        let limit = limits.maximumHeaderSize
        if facts.size > limit {
            return (
                .requestHeaderFieldsTooLarge,
                "The request's head (\(facts.size) bytes, \(head.headers.count) header fields) is larger than this "
                    + "server accepts (\(limit) bytes). Send fewer or shorter headers, or raise maximumHeaderSize.\n"
            )
        }
        if head.method == .CONNECT {
            return (
                .notImplemented,
                "CONNECT is not supported: this is a stub server, not a tunnelling proxy. Send requests to it "
                    + "directly (origin-form, such as GET /path), or use --proxy URL to forward to an upstream.\n"
            )
        }
        if head.version.major == 1, head.version.minor >= 1 {
            if facts.hostCount == 0 {
                return (.badRequest, "An HTTP/1.1 request must have a Host header (RFC 9112, section 3.2).\n")
            }
            if facts.hostCount > 1 {
                return (
                    .badRequest, "The request has \(facts.hostCount) Host headers; send one (RFC 9112, section 3.2).\n"
                )
            }
        }
        if let unknown = facts.unknownTransferCoding {
            let shown = String(unknown.unicodeScalars.filter { (0x20..<0x7F).contains($0.value) }.prefix(40))
            return (
                .notImplemented,
                "The transfer coding \"\(shown)\" is not supported; send the body with Content-Length, or with "
                    + "Transfer-Encoding: chunked alone (RFC 9112, section 6.1).\n"
            )
        }
        return nil
    }

    private func tooLargeText(declared: Int?) -> String {
        let limit = limits.maximumRequestBodySize
        let size = declared.map { "\($0) bytes" } ?? "more than \(limit) bytes"
        return "The request body (\(size)) is larger than this server accepts (\(limit) bytes). Send a smaller "
            + "body, or raise HTTPStubServer.Configuration.maximumRequestBodySize (--max-body-size).\n"
    }
}

/// What the server must know of a request's head before it reads the body, gathered in one pass over its fields
/// (looking fields up by name, one name at a time, cost more than the rest of reading a request).
struct HeadFacts {
    /// The head as sent: the request line, each field with its `: ` and CRLF, the empty line.
    private(set) var size: Int
    private(set) var hostCount = 0
    /// The first `Content-Length`, when it is a number.
    private(set) var contentLength: Int?
    private(set) var expectsContinue = false
    /// A transfer coding other than `chunked`, which the server cannot decode.
    private(set) var unknownTransferCoding: String?
    /// Whether a body follows the head (a length above 0, or a transfer coding).
    var hasBody: Bool { (contentLength ?? 0) > 0 || hasTransferCoding }
    /// Whether the head has a `Transfer-Encoding`.
    private(set) var hasTransferCoding = false

    init(_ head: HTTPRequestHead) {
        size = head.method.rawValue.utf8.count + head.uri.utf8.count + 12
        for (name, value) in head.headers {
            size += name.utf8.count + value.utf8.count + 4
            switch name.utf8.count {
            case 4 where Self.name(name, is: "host"):
                hostCount += 1
            case 6 where Self.name(name, is: "expect"):
                expectsContinue = expectsContinue || Self.name(value, is: "100-continue")
            case 14 where Self.name(name, is: "content-length"):
                if contentLength == nil { contentLength = Int(value) }
            case 17 where Self.name(name, is: "transfer-encoding"):
                hasTransferCoding = true
                for coding in value.split(separator: ",") {
                    let trimmed = coding.trimmingCharacters(in: .whitespaces)
                    if unknownTransferCoding == nil, !Self.name(trimmed, is: "chunked") {
                        unknownTransferCoding = trimmed.lowercased()
                    }
                }
            default:
                break
            }
        }
    }

    /// Whether a text is a lower-case ASCII word, ignoring case. (Over the text's bytes in place when it has them
    /// in one piece, as a received header's do: walking two UTF-8 views with `zip` cost 500 instructions a request.)
    @inline(__always)
    static func name(_ text: some StringProtocol, is lowercased: String) -> Bool {
        let fast = text.utf8.withContiguousStorageIfAvailable { bytes in
            lowercased.utf8.withContiguousStorageIfAvailable { expected in
                guard bytes.count == expected.count else { return false }
                for index in 0..<bytes.count {
                    let byte = bytes[index]
                    if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected[index] { return false }
                }
                return true
            }
        }
        if let fast, let answer = fast { return answer }
        return text.utf8.count == lowercased.utf8.count
            && zip(text.utf8, lowercased.utf8).allSatisfy { ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }
    }
}
