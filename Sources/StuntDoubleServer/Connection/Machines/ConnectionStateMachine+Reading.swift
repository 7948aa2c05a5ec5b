import NIOCore
import NIOHTTP1

/// Reading requests: one at a time, pipelined parts waiting their turn, refusals before a body is read.
extension ConnectionStateMachine {
    /// The socket may be read: read it, unless requests are waiting their turn (a client that pipelines faster
    /// than it is answered is held back by TCP, not by the server's memory).
    mutating func read() -> Action {
        switch state.kind {
        case .closed, .closing:
            return .none
        case .idle, .receiving, .answering, .responding, .rejecting:
            if waiting.items.isEmpty { return .read }
            waiting.readHeld = true
            return .none
        case .modifying:
            preconditionFailure("ConnectionStateMachine is being modified")
        }
    }

    /// A part of a request arrived (or bytes that did not parse: refused in their turn, after the responses to the
    /// requests before them, then the connection closes). (The time is read only when it matters: a request
    /// without a body, answered at once, reads the clock once, for its receipt.)
    mutating func received(_ event: RequestEvent, now: @autoclosure () -> NIODeadline) -> Action {
        switch state.kind {
        case .answering, .responding:
            waiting.items.append(event)
            return .none
        case .closing, .closed:
            return .none
        case .idle, .receiving, .rejecting:
            if !waiting.items.isEmpty || outbound.isWriting {
                waiting.items.append(event)
                return .none
            }
            return take(event, now: now)
        case .modifying:
            preconditionFailure("ConnectionStateMachine is being modified")
        }
    }

    /// Takes the parts that waited, until one of them needs the handler (an answer, a refusal, `100 Continue`);
    /// then reads the socket again if a read was held.
    mutating func takeWaiting(now: @autoclosure () -> NIODeadline) -> Action {
        while let item = waiting.items.first, !outbound.isWriting {
            switch state.kind {
            case .idle, .receiving, .rejecting:
                waiting.items.removeFirst()
                let action = take(item, now: now)
                if case .none = action { continue }
                return action
            case .answering, .responding:
                return .none
            case .closing, .closed:
                waiting.items.removeAll()
            case .modifying:
                preconditionFailure("ConnectionStateMachine is being modified")
            }
        }
        guard waiting.items.isEmpty, waiting.readHeld, !outbound.isWriting else { return .none }
        switch state.kind {
        case .closing, .closed:
            return .none
        default:
            waiting.readHeld = false
            return .read
        }
    }

    private mutating func take(_ event: RequestEvent, now: () -> NIODeadline) -> Action {
        switch event {
        case .malformed(let status, let text):
            // Bytes after a refused request that do not parse: the connection was closing anyway, nothing more is
            // answered on it.
            if state.kind == .rejecting { return endRejecting(now: now()) }
            return refuse(nil, status: status, text: text, closesAtOnce: true, now: now())
        case .head(let head, let facts):
            switch state.kind {
            case .idle: return receive(head, facts, now: now)
            // A head while a refused request lingers: the connection closes anyway, nothing more is answered.
            case .rejecting: return .none
            case .receiving, .answering, .responding, .closing, .closed:
                preconditionFailure("a request head cannot arrive while \(state)")
            case .modifying:
                preconditionFailure("ConnectionStateMachine is being modified")
            }
        case .body(var part):
            guard state.kind == .receiving, case .receiving(var receiving) = takeState() else {
                // A refused request's body: dropped.
                return .none
            }
            receiving.lastActivity = now()
            let limit = limits.maximumRequestBodySize
            let received = receiving.body?.readableBytes ?? 0
            if received + part.readableBytes > limit {
                return refuse(
                    receiving.head, status: .payloadTooLarge, text: tooLargeText(declared: nil),
                    now: receiving.lastActivity)
            }
            if receiving.body == nil {
                receiving.body = part
            } else {
                if let declared = receiving.declaredLength, receiving.body!.capacity < declared {
                    // Once, for the whole declared body: the parts that follow are appended without moving.
                    receiving.body!.reserveCapacity(declared)
                }
                receiving.body!.writeBuffer(&part)
            }
            state = .receiving(receiving)
            return .none
        case .end:
            switch state.kind {
            case .receiving:
                guard case .receiving(let receiving) = takeState() else { preconditionFailure("not receiving") }
                state = .answering
                return .respond(
                    Request(
                        head: receiving.head, body: receiving.body ?? ByteBuffer(),
                        declaresBody: receiving.declaresBody, keepAlive: receiving.keepAlive,
                        asksUpgrade: receiving.asksUpgrade),
                    id: takeResponseID())
            case .rejecting:
                return endRejecting(now: now())
            case .idle, .answering, .responding, .closing, .closed:
                return .none
            case .modifying:
                preconditionFailure("ConnectionStateMachine is being modified")
            }
        }
    }

    private mutating func receive(_ head: HTTPRequestHead, _ facts: HeadFacts, now: () -> NIODeadline) -> Action {
        if let (status, text) = problem(with: head, facts) {
            return refuse(head, status: status, text: text, now: now())
        }
        if let declared = facts.contentLength, declared > limits.maximumRequestBodySize {
            // A client waiting for 100 Continue never sends the body: nothing to read before closing.
            return refuse(
                head, status: .payloadTooLarge, text: tooLargeText(declared: declared),
                closesAtOnce: facts.expectsContinue, now: now())
        }
        let keepAlive = facts.keepAlive(head.version)
        guard facts.hasBody else {
            state = .receiving(
                Receiving(
                    head: head, declaredLength: facts.contentLength, declaresBody: facts.declaresBody,
                    lastActivity: outbound.lastProgress, keepAlive: keepAlive, asksUpgrade: facts.hasUpgrade))
            return .none
        }
        let time = now()
        state = .receiving(
            Receiving(
                head: head, declaredLength: facts.contentLength, declaresBody: facts.declaresBody,
                lastActivity: time, keepAlive: keepAlive, asksUpgrade: facts.hasUpgrade))
        if facts.expectsContinue, head.version == .http1_1 {
            outbound.isWriting = true
            return .writeContinue
        }
        // The body must not stall for longer than its timeout, which may end before the timer now set.
        return armConnectionTimer(at: time + limits.bodyTimeout)
    }

    /// Refuses the request being read (or bytes that did not parse, `head` `nil`) with a response of the server's
    /// own, then closes the connection: at once, or once the rest of the body has been read and dropped (at most
    /// the linger time), so that the client reads the refusal rather than a reset connection. The connection's
    /// timer is set with it: for the linger's end, or to give up on a client that takes none of the refusal (the
    /// send timeout).
    mutating func refuse(
        _ head: HTTPRequestHead?, status: HTTPResponseStatus, text: String, closesAtOnce: Bool = false,
        now: NIODeadline
    ) -> Action {
        let timer: NIODeadline
        if closesAtOnce {
            state = .closing
            timer = now + limits.sendTimeout
        } else {
            timer = now + limits.linger
            state = .rejecting(lingerUntil: timer)
        }
        // The refusal is output like a response: the connection closes once it (and what went before it) is sent,
        // and the client has the send timeout to take it.
        outbound.isWriting = true
        outbound.unsent += 1
        outbound.lastProgress = now
        timers.connection = timer
        return .refuse(Refusal(head, status: status, text: text), timer: timer)
    }

    /// The refused request ended (or bytes after it did not parse): nothing more is read, and the connection
    /// closes once the refusal has been sent.
    private mutating func endRejecting(now: NIODeadline) -> Action {
        if outbound.unsent == 0 {
            state = .closed
            return .close(.refused)
        }
        state = .closing
        return armConnectionTimer(at: now + limits.probeInterval)
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
        if head.method.isMethod(.CONNECT), !limits.opensTunnels {
            return (
                .notImplemented,
                "CONNECT is not supported unless the server is a proxy too (--enable-browser-proxying). Send "
                    + "requests to it directly (origin-form, such as GET /path), or use --proxy URL to forward to an "
                    + "upstream.\n"
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
