import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleWireMock

extension StubRequestHandler {
    /// Writes a batch of the machine's and flushes; the batch that ends a response carries the promise that
    /// tells the machine when the response has gone out.
    func perform(_ writes: ConnectionStateMachine.Writes, context: ChannelHandlerContext) {
        var promise: EventLoopPromise<Void>?
        if let ended = writes.ends {
            let sent = context.eventLoop.makePromise(of: Void.self)
            sent.futureResult.assumeIsolated().whenComplete { [self] result in
                var error: (any Error)?
                if case .failure(let failure) = result { error = failure }
                run(machine.responseSent(ended, error: error, now: context.eventLoop.now), context: context)
            }
            promise = sent
        }
        guard writes.count > 0 else {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer()), promise: promise)
            return
        }
        writes.forEach { buffer, isLast in
            if isLast {
                context.writeAndFlush(wrapOutboundOut(buffer), promise: promise)
            } else {
                context.write(wrapOutboundOut(buffer), promise: nil)
            }
        }
    }

    /// Writes a plain-text response of the server's own that ends the connection (with `Connection: close`, and
    /// without the text when it answers `HEAD`); closes once it has gone out when nothing more will be read.
    func perform(_ refusal: ConnectionStateMachine.Refusal, context: ChannelHandlerContext) {
        if let head = refusal.head {
            core.logger.info("\(head.method.rawValue) \(core.loggedTarget(head.uri)) → \(refusal.status.code) refused")
        }
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(refusal.text.utf8.count))
        headers.add(name: "Connection", value: "close")
        var bytes = ResponseWire.head(version: refusal.version, status: refusal.status, headers: headers)
        if refusal.sendsText { bytes.writeString(refusal.text) }
        guard refusal.closesAtOnce else {
            context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
            return
        }
        context.writeAndFlush(wrapOutboundOut(bytes)).assumeIsolated().whenComplete { [self] _ in
            close(context: context)
        }
    }

    /// Breaks the connection as a faulty server would (WireMock's faults).
    func commit(_ fault: HTTPStubFault, context: ChannelHandlerContext) {
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

    /// Records the end of a response in the journal and the log.
    func finish(_ playback: Playback, error: (any Error)?) {
        guard !playback.isFinished else { return }
        playback.isFinished = true
        playback.upstreamFlow?.finish()
        guard let entry = playback.entry else { return }  // admin calls are not journaled, nor logged here
        if let followUps = playback.followUps {
            // After the response, as WireMock fires them; whatever becomes of them, the response stays as it was.
            core.webhooks.send(
                followUps.calls, after: followUps.request, answered: followUps.response, entry: entry,
                client: core.proxy?.client)
        }
        let duration = ContinuousClock.now - playback.received
        // What a loaded document (an OpenAPI contract) found wrong with the stub's response, read with the
        // completion (no second look at the journal).
        let annotations = core.stubber.complete(
            entry, after: duration, error: error, statusCode: playback.statusCode,
            bodyByteCount: playback.bytesWritten)
        for annotation in annotations {
            let target = core.loggedTarget(playback.requestHead.uri)
            let lines = annotation.lines.joined(separator: "; ")
            core.logger.warning("\(playback.requestHead.method.rawValue) \(target): \(annotation.summary): \(lines)")
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
}
