import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleWireMock

extension StubRequestHandler {
    /// Writes a write of the machine's and flushes. When the write ends a response, the machine hears once the
    /// response has gone out: at once when the flush left nothing in the channel (the usual answer, taken by the
    /// kernel whole: no promise made for it), else when a promise that follows its last bytes completes.
    func perform(_ writes: consuming ResponseWrites, context: ChannelHandlerContext) {
        guard writes.ends != nil else {
            return writer.write(writes, promise: nil, context: context)
        }
        if writer == .http1 {
            writer.write(writes, promise: nil, context: context)
            // The record taken out of the writes in place, not copied: the writes end here. (`Optional.take()` and
            // `swap` on the optional copied it, through the optional's generic value witnesses.)
            let ended = writes.ends!.take()
            if let buffered = try? (channelOptions ?? context.channel.syncOptions)?.getOption(.bufferedWritableBytes),
                buffered == 0
            {
                return run(machine.responseSent(ended, error: nil, now: context.eventLoop.now), context: context)
            }
            // Some of it waits for the client: the promise of an empty write after it completes when it has gone.
            context.writeAndFlush(NIOAny(ByteBuffer()), promise: sent(ended, context: context))
            return
        }
        guard let ended = writes.ends else { preconditionFailure("the writes end a response") }
        writer.write(writes, promise: sent(ended, context: context), context: context)
    }

    /// A promise that tells the machine the response `ended` has gone out (or could not) when it completes.
    private func sent(_ ended: ResponseRecord, context: ChannelHandlerContext) -> EventLoopPromise<Void> {
        let sent = context.eventLoop.makePromise(of: Void.self)
        sent.futureResult.assumeIsolated().whenComplete { [self] result in
            var error: (any Error)?
            if case .failure(let failure) = result { error = failure }
            run(machine.responseSent(ended, error: error, now: context.eventLoop.now), context: context)
        }
        return sent
    }

    /// Writes a plain-text response of the server's own that ends the connection (with `Connection: close`, and
    /// without the text when it answers `HEAD`); the machine hears once it has gone out.
    func perform(_ refusal: Refusal, context: ChannelHandlerContext) {
        if let request = refusal.request {
            core.logger.info(
                "\(request.method.rawValue) \(core.loggedTarget(request.target)) → \(refusal.status.code) refused")
        }
        writer.write(refusal, context: context) { [self] error in
            run(machine.refusalSent(error: error, now: context.eventLoop.now), context: context)
        }
    }

    /// Records the end of a response in the journal and the log.
    func finish(_ record: ResponseRecord, error: (any Error)?) {
        record.flow?.finish()
        guard let entry = record.entry else { return }  // admin calls are not journaled, nor logged here
        if let followUps = record.followUps {
            // After the response, as WireMock fires them; whatever becomes of them, the response stays as it was.
            core.webhooks.send(
                followUps.calls, after: followUps.request, answered: followUps.response, entry: entry,
                client: core.proxy?.client)
        }
        let duration = Duration.nanoseconds((NIODeadline.now() - record.received).nanoseconds)
        // What a loaded document (an OpenAPI contract) found wrong with the stub's response, read with the
        // completion (no second look at the journal).
        let annotations = core.stubber.complete(
            entry, after: duration, error: error, statusCode: record.statusCode, bodyByteCount: record.bytesWritten)
        for annotation in annotations {
            let target = core.loggedTarget(record.target)
            let lines = annotation.lines.joined(separator: "; ")
            core.logger.warning("\(record.method.rawValue) \(target): \(annotation.summary): \(lines)")
        }
        guard core.logLevel <= .info else { return }
        let tenths = (duration.components.seconds * 10_000 + duration.components.attoseconds / 100_000_000_000_000)
        let milliseconds = "\(tenths / 10).\(tenths % 10)"
        let status = record.statusCode.map(String.init) ?? "no response"
        var line = "\(record.method.rawValue) \(core.loggedTarget(record.target)) → "
        line += "\(status) \(record.outcomeDescription) \(milliseconds) ms"
        if let error { line += " (\(error))" }
        core.logger.info("\(line)")
    }
}
