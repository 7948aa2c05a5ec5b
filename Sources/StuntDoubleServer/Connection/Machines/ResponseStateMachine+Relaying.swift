import NIOCore
import NIOHTTP1

/// An upstream's answer (a proxying stub's, or the server-wide upstream's), taken as it arrives: its head, its
/// body's parts (no more than its head declared), its end or its failure.
extension ResponseStateMachine {
    /// What became of an upstream's event.
    enum UpstreamOutcome {
        /// Taken; ask the response for what is due.
        case taken
        /// A part of the body was taken, and `backlog` bytes now wait for the client.
        case queued(backlog: Int, flow: UpstreamFlow)
        /// The upstream failed after the head went out: the client sees the connection end early.
        case cut(ResponseRecord)
        /// Nobody reads the rest (the response is not relaying any more): let the upstream drain.
        case abandoned
    }

    /// Takes an upstream's event; `failureText` is the answer (a `500`) when it failed before the head went out.
    mutating func upstream(_ event: UpstreamEvent, failureText: String, receivedAt: NIODeadline) -> UpstreamOutcome {
        guard case .relaying(var relaying) = state else { return .abandoned }
        state = .modifying
        defer {
            if case .modifying = state { state = .relaying(relaying) }
        }
        switch event {
        case .head(let status, let headers):
            let requirements = relaying.requirements
            let (head, keepAlive) = requirements.head(
                status: status, headers: headers, closes: ResponseHead.saysClose(headers))
            let sendsBody = requirements.sendsBody(head)
            relaying.head = (head, keepAlive, sendsBody)
            relaying.record.statusCode = Int(status.code)
            if !sendsBody {
                relaying.bodyComplete = true
            } else if head.framing == .length, let length = headers.first(name: "content-length").flatMap({ Int($0) }) {
                // Complete once that many bytes have come, whenever the upstream's end comes: on an HTTP/2 stream
                // the last byte ends the stream, and an HTTP/1.1 connection can take its next request.
                relaying.remaining = length
                if length == 0 { relaying.bodyComplete = true }
            }
            return .taken
        case .body(var part):
            guard relaying.head?.sendsBody == true, !relaying.bodyComplete else { return .taken }
            if let remaining = relaying.remaining {
                // Bytes beyond the declared length cannot be sent: dropped.
                if part.readableBytes > remaining { part = part.getSlice(at: part.readerIndex, length: remaining)! }
                relaying.remaining = remaining - part.readableBytes
                if relaying.remaining == 0 { relaying.bodyComplete = true }
            }
            relaying.parts.append(part)
            relaying.backlog += part.readableBytes
            return .queued(backlog: relaying.backlog, flow: relaying.flow)
        case .end:
            relaying.bodyComplete = true
            return .taken
        case .failed:
            if relaying.headWritten {
                state = .ended
                return .cut(relaying.record)
            }
            // As WireMock answers: 500, with the same first words (clients and tests look for them).
            var record = relaying.record
            record.outcome = .text("upstream failed")
            state =
                Self.text(
                    status: .internalServerError, text: failureText, for: relaying.requirements, record: record,
                    receivedAt: receivedAt
                ).state
            return .taken
        }
    }

    /// Takes the upstream's head (when it has come) and the parts waiting, up to the write's size.
    static func take(
        _ relaying: inout Relaying, into writes: inout ResponseWrites, limits: ConnectionStateMachine.Limits
    )
        -> Progress
    {
        guard let head = relaying.head else { return .awaitUpstream(open: nil) }
        writes.chunked = head.head.framing == .chunked && head.sendsBody
        if !relaying.headWritten {
            writes.append(head: head.head)
            relaying.headWritten = true
        }
        while let part = relaying.parts.first {
            if writes.byteCount >= limits.batchSize { return .write }
            relaying.parts.removeFirst()
            relaying.backlog -= part.readableBytes
            relaying.record.bytesWritten += part.readableBytes
            if part.readableBytes > 0 { writes.append(body: part) }
        }
        guard relaying.bodyComplete else {
            // More when the upstream sends it, which it may now.
            return writes.isEmpty ? .awaitUpstream(open: relaying.flow) : .write
        }
        return .ended(keepAlive: head.keepAlive)
    }
}
