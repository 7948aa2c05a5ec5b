import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleWireMock

extension StubRequestHandler {
    /// Writes a write of the machine's and flushes; the write that ends a response carries the promise that tells
    /// the machine when the response has gone out.
    func perform(_ writes: borrowing ResponseWrites, context: ChannelHandlerContext) {
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
        writer.write(writes, promise: promise, context: context)
    }

    /// Writes a plain-text response of the server's own that ends the connection (with `Connection: close`, and
    /// without the text when it answers `HEAD`); closes once it has gone out when nothing more will be read.
    func perform(_ refusal: Refusal, context: ChannelHandlerContext) {
        if let request = refusal.request {
            core.logger.info(
                "\(request.method.rawValue) \(core.loggedTarget(request.target)) → \(refusal.status.code) refused")
        }
        writer.write(
            refusal, context: context, then: refusal.closesAtOnce ? { [self] in close(context: context) } : nil)
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
        guard core.logger.logLevel <= .info else { return }
        let tenths = (duration.components.seconds * 10_000 + duration.components.attoseconds / 100_000_000_000_000)
        let milliseconds = "\(tenths / 10).\(tenths % 10)"
        let status = record.statusCode.map(String.init) ?? "no response"
        var line = "\(record.method.rawValue) \(core.loggedTarget(record.target)) → "
        line += "\(status) \(record.outcomeDescription) \(milliseconds) ms"
        if let error { line += " (\(error))" }
        core.logger.info("\(line)")
    }
}
