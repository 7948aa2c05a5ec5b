import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleWireMock

extension StubRequestHandler {
    /// Works out the answer to a request whose body has been read: the admin API's, a stub's plan, a proxied
    /// answer, or the server's own error; hands it to the machine, and returns what the machine does next
    /// (`.none` while the answer is still being worked out: the admin API's, off the event loop).
    func respond(to head: HTTPRequestHead, body: ByteBuffer, declaresBody: Bool, context: ChannelHandlerContext)
        -> ConnectionStateMachine.Action
    {
        if core.hasAdmin, Self.isAdminTarget(head.uri), let admin = core.admin {
            respondAdmin(admin, head: head, body: body, context: context)
            return .none
        }
        let receivedAt = context.eventLoop.now
        let received = ContinuousClock.now
        let request: HTTPIncomingRequest
        do {
            request =
                isSecure
                ? try IncomingRequestBuilder.make(
                    head, body: body, declaresBody: declaresBody, authority: core.httpsAuthority.withLockedValue { $0 },
                    scheme: "https")
                : try IncomingRequestBuilder.make(
                    head, body: body, declaresBody: declaresBody, authority: core.authority.withLockedValue { $0 })
        } catch {
            let text =
                "The request target cannot be read as a URL: \(error). Send an origin-form target such as "
                + "/path?query.\n"
            core.logger.info("\(head.method.rawValue) \(core.loggedTarget(head.uri)) → 400 \(error)")
            let playback = Playback(adminRequestHead: head, receivedAt: context.eventLoop.now)
            playback.prepareRaw(
                status: .badRequest, contentType: "text/plain; charset=utf-8", body: Data(text.utf8),
                headers: [("Connection", "close")], outcome: "invalid target")
            return machine.answer(playback, now: context.eventLoop.now)
        }
        let origin = core.configuration.answersCrossOriginRequests ? head.headers.first(name: "origin") : nil
        if let origin, let asked = CrossOrigin.requestedMethod(head) {
            return answerPreflight(head, request: request, origin: origin, method: asked, context: context)
        }
        let (decision, entry) = core.stubber.decide(request, via: .server, received: received)
        if core.hasAdmin, let address = clientAddress(context) {
            core.recordClient(address, entry: entry)
        }
        if core.logger.logLevel <= .debug {
            let headers = request.headers.map { "\($0.name): \($0.value)" }.joined(separator: "; ")
            core.logger.debug(
                "#\(entry) \(request.method) \(core.loggedTarget(request.url.absoluteString)) headers: \(headers); body: \(request.body?.count ?? 0) bytes"
            )
            if case .unmatched(let report) = decision {
                core.logger.debug("#\(entry) \(report.description)")
            }
        }
        let playback = Playback(requestHead: head, entry: entry, receivedAt: receivedAt, received: received)
        playback.crossOrigin = origin
        // One look at the decision (each `decision.plan` or `if case` copied it: 300 instructions a request).
        switch decision {
        case .stub(let plan):
            let followUps = plan.stub.followUps
            if !followUps.isEmpty { playback.followUps = (followUps, plan.request, plan.response) }
            if let stubProxy = plan.proxy {
                // A proxying stub: forwarded when its head is due (after its delay and the global one).
                let due = ResponseSteps(plan, at: core.globalDelay.withLockedValue { $0 }).next?.time ?? .zero
                return forward(
                    head, body: body, request: request, via: stubProxy, playback: playback, recording: nil,
                    mappingID: plan.stub.mappingID, at: playback.deadline(due), context: context)
            }
            playback.prepare(plan, shift: core.globalDelay.withLockedValue { $0 })
        case .unmatched(let report):
            if let serverWide = core.proxy?.serverWide, !isRefusedProxyTarget(head.uri) {
                // Unmatched, with an upstream: forwarded (and checked, behind a validating proxy).
                return forward(
                    head, body: body, request: request, via: serverWide, playback: playback, recording: nil,
                    at: receivedAt, checks: core.stubber.forwardedChecks(for: request), context: context)
            }
            if head.method == .GET, let files = core.store.root?.appendingPathComponent("__files"),
                let file = StaticFiles.file(at: request.url.path(percentEncoded: true), in: files)
            {
                // As WireMock: a file under __files/ at the request's path.
                playback.prepareRaw(
                    status: .ok, contentType: file.contentType, body: file.body, outcome: "a file of __files/")
            } else if let stopped = report.stoppedMatchers.first {
                playback.prepareText(
                    status: .internalServerError,
                    text: "The request could not be matched: \(stopped.description)\n",
                    outcome: "matching stopped at \(stopped.stub)")
            } else {
                playback.prepareText(
                    status: .notFound,
                    text: "Request was not matched\n=======================\n\n\(report.description)\n",
                    outcome: "unmatched")
            }
        case .passThrough(let reason):
            if let serverWide = core.proxy?.serverWide, !isRefusedProxyTarget(head.uri) {
                // Let through, with an upstream: forwarded (and recorded, when a recording let it through).
                var recording: HTTPRecording?
                if case .recording(let attached) = reason { recording = attached as? HTTPRecording }
                return forward(
                    head, body: body, request: request, via: serverWide, playback: playback, recording: recording,
                    at: receivedAt, checks: core.stubber.forwardedChecks(for: request), context: context)
            }
            playback.prepareText(
                status: .badGateway,
                text: "The request is not stubbed: \(reason). This server has no upstream to pass it "
                    + "to: stub the request, remove the ignore rule, or give the server an upstream (--proxy URL).\n",
                outcome: "not stubbed (no upstream)")
        }
        return machine.answer(playback, now: receivedAt)
    }
}
