import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StuntDouble

extension StubRequestHandler {
    /// The most body bytes written to the socket at once. A larger body goes out in pieces of this size, each
    /// only when the socket takes more: a client that reads slowly, or never, holds at most about this much of
    /// the server's memory beyond the stub's shared body, not a copy of the body.
    static let writeSize = 64 << 10
    /// How much of an upstream's body may wait for a slow client before the upstream is read no further.
    static let upstreamBacklog = 256 << 10

    /// Writes whatever of the response is due, taking the steps of its `ResponseSteps` in order, then waits for
    /// the next step's time or for the socket to take more (backpressure).
    func advance(context: ChannelHandlerContext) {
        guard let playback else { return }
        // Each write waits until the next is known, so that the response's last write carries the promise
        // that says it has gone out.
        var output = Output(context: context)
        // The steps are taken in place (one exclusivity check, no copy); what follows, which may call back
        // into this handler, comes after.
        switch takeDueSteps(&playback.steps, of: playback, output: &output, context: context) {
        case .due(let deadline):
            output.flush()
            playback.timer = schedule(at: deadline, context: context)
            return
        case .blocked:
            output.flush()
            playback.isWaitingForWritability = true
            return
        case .waitingForHead:
            return
        case .fails(let error, let fault):
            finish(playback, error: error)
            self.playback = nil
            if let fault {
                commit(fault, context: context)
            } else {
                // What a client sees of a network error: the connection ends without a response.
                close(context: context)
            }
            return
        case .atEnd:
            break
        }
        while let part = playback.upstreamParts.first {
            if !context.channel.isWritable {
                output.flush()
                playback.isWaitingForWritability = true
                return
            }
            playback.upstreamParts.removeFirst()
            playback.upstreamBacklog -= part.readableBytes
            playback.bytesWritten += part.readableBytes
            if part.readableBytes > 0 { output.writeBody(part, chunked: playback.chunked) }
        }
        if !playback.bodyComplete {
            // A proxied body: more when the upstream sends it, which it may now.
            playback.upstreamFlow?.open()
            output.flush()
            return
        }
        if playback.chunked { output.write(ResponseWire.lastChunk) }
        // The next pipelined request may be read once the response is written: be ready for it first.
        self.playback = nil
        let staysOpen = playback.keepAlive && !closeAfterResponse
        state = staysOpen ? .idle : .finishing
        // Idle from now: an idle timer due this instant (armed while the response was in progress) must not
        // close the connection under the response's last bytes.
        idleSince = .now()
        let ended = context.eventLoop.makePromise(of: Void.self)
        output.flush(promise: ended)
        ended.futureResult.assumeIsolated().whenComplete { [self] result in
            switch result {
            case .success:
                finish(playback, error: nil)
                if !staysOpen {
                    close(context: context)
                } else if case .idle = state {
                    idleSince = .now()
                }
            case .failure(let error):
                finish(playback, error: error)
                close(context: context)
            }
        }
        if staysOpen { readPending(context: context) }
    }

    /// Where taking a response's due steps stopped.
    private enum Progress {
        /// The next step is due at this later moment.
        case due(NIODeadline)
        /// The socket must take more first.
        case blocked
        /// The head waits for the upstream's (a proxied response).
        case waitingForHead
        /// The stub fails when its head is due: the connection breaks (a fault) or closes without a response.
        case fails(any Error, HTTPStubFault?)
        /// Every step before the end has been taken.
        case atEnd
    }

    /// Takes every step of a response that is due: writes its head, then its body's chunks as the socket takes
    /// them.
    private func takeDueSteps(
        _ steps: inout ResponseSteps, of playback: Playback, output: inout Output, context: ChannelHandlerContext
    ) -> Progress {
        let now = NIODeadline.now()
        while let next = steps.next {
            if !steps.isImmediate, case let deadline = playback.deadline(next.time), now < deadline {
                return .due(deadline)
            }
            switch next.step {
            case .head:
                switch playback.kind {
                case .response: break
                case .failure(let error): return .fails(error, nil)
                case .fault(let fault, let error): return .fails(error, fault)
                }
                guard playback.headReady, let head = playback.head else { return .waitingForHead }
                output.write(head)
                playback.headWritten = true
            case .chunk(let index):
                if !context.channel.isWritable { return .blocked }
                let chunk = steps.chunks[index]
                let start = chunk.range.lowerBound + playback.chunkOffset
                let end = min(chunk.range.upperBound, start + Self.writeSize)
                if end > start {
                    output.writeBody(
                        playback.body.getSlice(at: playback.body.readerIndex + start, length: end - start)!,
                        chunked: playback.chunked)
                }
                playback.bytesWritten += end - start
                guard end == chunk.range.upperBound else {
                    // The rest of the chunk goes out as the socket takes it.
                    playback.chunkOffset = end - chunk.range.lowerBound
                    continue
                }
                playback.chunkOffset = 0
            case .finish, .timeOut:
                // The end comes once a proxied body's parts are written too (the server has no timeout).
                return .atEnd
            }
            steps.removeNext()
        }
        return .atEnd
    }

    /// The writes of one `advance`: each is held until the next comes, so that the last can carry a promise.
    private struct Output {
        let context: ChannelHandlerContext
        private var held: ByteBuffer?

        init(context: ChannelHandlerContext) {
            self.context = context
        }

        mutating func write(_ buffer: ByteBuffer) {
            if let held { context.write(NIOAny(held), promise: nil) }
            held = buffer
        }

        /// Writes a piece of the body, as a chunk when the body is chunked.
        mutating func writeBody(_ piece: ByteBuffer, chunked: Bool) {
            guard chunked else { return write(piece) }
            write(ResponseWire.chunkPrefix(length: piece.readableBytes))
            write(piece)
            write(ResponseWire.chunkSuffix)
        }

        /// Writes what is held and flushes; the promise (if any) is kept when everything written has gone out.
        mutating func flush(promise: EventLoopPromise<Void>? = nil) {
            if let held {
                context.writeAndFlush(NIOAny(held), promise: promise)
                self.held = nil
            } else if let promise {
                context.writeAndFlush(NIOAny(ByteBuffer()), promise: promise)
            } else {
                context.flush()
            }
        }
    }

    /// Breaks the connection as a faulty server would (WireMock's faults).
    private func commit(_ fault: HTTPStubFault, context: ChannelHandlerContext) {
        state = .finishing
        switch fault {
        case .connectionResetByPeer:
            // SO_LINGER with a zero timeout: close() sends a reset instead of a FIN.
            guard let provider = context.channel as? any SocketOptionProvider else {
                close(context: context)
                return
            }
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { [self] _ in
                close(context: context)
            }
        case .malformedResponseChunk, .randomDataThenClose:
            var bytes = ByteBuffer()
            if fault == .malformedResponseChunk {
                bytes.writeString("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            }
            bytes.writeBytes(Self.garbage)
            context.writeAndFlush(wrapOutboundOut(bytes)).assumeIsolated().whenComplete { [self] _ in
                close(context: context)
            }
        default:
            close(context: context)
        }
    }

    /// What a faulty server sends instead of a response: 1,024 bytes that are neither HTTP nor a chunk, the
    /// same every time (a linear congruential sequence), so that tests behave the same on every run.
    static let garbage: [UInt8] = {
        var state: UInt32 = 0x5EED
        return (0..<1024).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24) | 0x80
        }
    }()

    private func schedule(at deadline: NIODeadline, context: ChannelHandlerContext) -> Scheduled<Void> {
        context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            advance(context: context)
        }
    }

    /// Records the end of a response in the journal and the log.
    func finish(_ playback: Playback, error: (any Error)?) {
        guard !playback.isFinished else { return }
        playback.isFinished = true
        playback.upstreamFlow?.finish()
        guard let entry = playback.entry else { return }  // admin calls are not journaled, nor logged here
        if let webhooks = playback.webhooks {
            // After the response, as WireMock fires them; whatever becomes of them, the response stays as it was.
            core.webhooks.send(webhooks.specs, for: webhooks.request, entry: entry, client: core.proxy?.client)
        }
        let duration = ContinuousClock.now - playback.received
        core.stubber.complete(
            entry, after: duration, error: error, statusCode: playback.statusCode,
            bodyByteCount: playback.bytesWritten)
        if core.checksContracts {
            let violations = core.stubber.contractViolations(ofEntry: entry)
            if !violations.isEmpty {
                let target = core.loggedTarget(playback.requestHead.uri)
                let broken = violations.joined(separator: "; ")
                core.logger.warning(
                    "\(playback.requestHead.method.rawValue) \(target): the stub's response breaks the OpenAPI document: \(broken)"
                )
            }
        }
        guard core.logger.logLevel <= .info else { return }
        let tenths = (duration.components.seconds * 10_000 + duration.components.attoseconds / 100_000_000_000_000)
        let milliseconds = "\(tenths / 10).\(tenths % 10)"
        let status = playback.statusCode.map(String.init) ?? "no response"
        var line = "\(playback.requestHead.method.rawValue) \(core.loggedTarget(playback.requestHead.uri)) → "
        line += "\(status) \(playback.outcome) \(milliseconds) ms"
        if let error { line += " (\(error))" }
        core.logger.info("\(line)")
    }

    /// Writes a complete plain-text response of the server's own, with `Connection: close` when asked (and
    /// without the text when it answers `HEAD`).
    func writeSimple(
        status: HTTPResponseStatus, text: String, version: HTTPVersion, close: Bool, sendsText: Bool = true,
        context: ChannelHandlerContext
    ) {
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(text.utf8.count))
        if close { headers.add(name: "Connection", value: "close") }
        var bytes = ResponseWire.head(version: version, status: status, headers: headers)
        if sendsText { bytes.writeString(text) }
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }
}
