import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleWireMock

extension StubRequestHandler {
    /// Works out the answer to a request whose body has been read, as the response numbered `id`: where the router
    /// sends it (the admin API, a preflight, the engine, and what answers when no stub does), then hands it to the
    /// machine and returns what the machine does next (`.none` while the answer is still being worked out: the
    /// admin API's, off the event loop).
    func respond(to request: ConnectionStateMachine.Request, id: Int, context: ChannelHandlerContext)
        -> ConnectionStateMachine.Action
    {
        let head = request.head
        let body = request.body
        let declaresBody = request.declaresBody
        let route = router.route(
            head, canUpgrade: (request.asksUpgrade || head.method.isMethod(.CONNECT)) && machine.canUpgrade)
        if case .admin = route, let admin = core.admin {
            respondAdmin(admin, head: head, body: body, id: id, context: context)
            return .none
        }
        if case .webSocketUpgrade = route, let accepted = WebSocketUpgrade.accept(head, core: core, isSecure: isSecure)
        {
            // The connection becomes a WebSocket channel: this handler leaves the pipeline, and the bytes after the
            // request (a client's first frames) go to the frame decoder.
            isUpgraded = true
            WebSocketUpgrade.upgrade(accepted, leftover: parser.handOver(), context: context)
            return machine.upgraded()
        }
        if case .tunnel(let authority) = route {
            do throws(TunnelRefusal) {
                guard let certificates = core.tunnelCertificates, let target = BrowserProxyTunnel.target(authority)
                else {
                    throw TunnelRefusal(
                        description: "\"\(authority)\" is not a host and port: CONNECT names where to tunnel to, as "
                            + "CONNECT api.example.com:443.")
                }
                let tls = try certificates.context(for: target.host)
                // The connection becomes a TLS server for the host: this handler leaves the pipeline, and a new one
                // reads the tunnel's requests.
                isUpgraded = true
                BrowserProxyTunnel.open(authority, tls: tls, leftover: parser.handOver(), core: core, context: context)
                return machine.upgraded()
            } catch {
                let receivedAt = context.eventLoop.now
                core.logger.info("CONNECT \(core.loggedTarget(head.uri)) → 400 \(error)")
                let response = ResponseStateMachine.text(
                    status: .badRequest, text: "\(error)\n", headers: [("Connection", "close")], id: id,
                    for: HeadRequirements(head, keepAlive: false),
                    record: ResponseRecord(entry: nil, request: head, received: receivedAt), receivedAt: receivedAt)
                return machine.answer(consume response, now: receivedAt)
            }
        }
        let receivedAt = context.eventLoop.now
        let received = ContinuousClock.now
        let incoming: HTTPIncomingRequest
        // A gzipped body (`Content-Encoding: gzip`, or gzip's first bytes) is matched as its plain text, as WireMock
        // reads it; one that is not gzip after all, or inflates past the body limit, stays as it came. What is
        // forwarded upstream is the body as it came.
        let matchedBody = Gzip.inflated(head, body: body, limit: core.configuration.maximumRequestBodySize)
        do {
            // A tunnel's requests are its site's; the others are this server's, on the listener they came to.
            let authority =
                tunnel ?? (isSecure ? core.httpsAuthority : core.authority).withLockedValue { $0 }
            incoming = try IncomingRequestBuilder.make(
                head, body: matchedBody, declaresBody: declaresBody, authority: authority,
                scheme: isSecure ? "https" : "http")
        } catch {
            let text =
                "The request target cannot be read as a URL: \(error). Send an origin-form target such as "
                + "/path?query.\n"
            core.logger.info("\(head.method.rawValue) \(core.loggedTarget(head.uri)) → 400 \(error)")
            let response = ResponseStateMachine.text(
                status: .badRequest, text: text, headers: [("Connection", "close")], id: id,
                for: HeadRequirements(head, keepAlive: request.keepAlive),
                record: ResponseRecord(entry: nil, request: head, received: receivedAt),
                receivedAt: receivedAt)
            return machine.answer(consume response, now: receivedAt)
        }
        let origin: String?
        let otherwise: RequestRouter.Fallback
        switch route {
        case .preflight(let origin, let method):
            return answerPreflight(head, request: incoming, origin: origin, method: method, id: id, context: context)
        case .stub(let crossOrigin, let fallback):
            origin = crossOrigin
            otherwise = fallback
        case .admin, .webSocketUpgrade, .tunnel:
            // The admin API is off, or the upgrade was not valid: the request is the stubs'.
            origin = core.configuration.answersCrossOriginRequests ? head.headers.first(name: "origin") : nil
            otherwise = .report
        }
        let (decision, entry) = core.stubber.decide(incoming, via: .server, received: received)
        if core.hasAdmin, let address = clientAddress(context) {
            core.recordClient(address, entry: entry)
        }
        if core.logLevel <= .debug {
            let headers = incoming.headers.map { "\($0.name): \($0.value)" }.joined(separator: "; ")
            core.logger.debug(
                "#\(entry) \(incoming.method) \(core.loggedTarget(incoming.url.absoluteString)) headers: \(headers); body: \(incoming.body?.count ?? 0) bytes"
            )
            if case .unmatched(let report) = decision {
                core.logger.debug("#\(entry) \(report.description)")
            }
        }
        let requirements = HeadRequirements(
            head, keepAlive: request.keepAlive, crossOrigin: origin,
            acceptsGzip: core.configuration.gzipsResponses && Gzip.accepts(head))
        var record = ResponseRecord(entry: entry, request: head, received: receivedAt)
        let response: ResponseStateMachine
        // One look at the decision (each `decision.plan` or `if case` copied it: 300 instructions a request).
        switch decision {
        case .stub(let plan):
            let followUps = plan.stub.followUps
            if !followUps.isEmpty {
                record.followUps = ResponseRecord.FollowUps(
                    calls: followUps, request: plan.request, response: plan.response)
            }
            if let stubProxy = plan.proxy {
                // A proxying stub: forwarded when its head is due (after its delay and the global one).
                let due = ResponseSteps(plan, at: core.globalDelay.withLockedValue { $0.drawn() }).next?.time ?? .zero
                return forward(
                    head, body: body, request: incoming, via: stubProxy, record: record, requirements: requirements,
                    recording: nil, mappingID: plan.stub.mappingID, at: receivedAt + TimeAmount(due), id: id,
                    context: context)
            }
            response = .plan(
                plan, id: id, for: requirements, record: record.take(), receivedAt: receivedAt,
                shift: core.globalDelay.withLockedValue { $0.drawn() })
        case .unmatched(let report):
            if otherwise == .forward, let serverWide = core.proxy?.serverWide {
                // Unmatched, with an upstream: forwarded (and checked, behind a validating proxy).
                return forward(
                    head, body: body, request: incoming, via: serverWide, record: record, requirements: requirements,
                    recording: nil, at: receivedAt, checks: core.stubber.forwardedChecks(for: incoming), id: id,
                    context: context)
            }
            if otherwise == .browserProxy {
                return forwardAsProxy(
                    head, body: body, request: incoming, record: record, requirements: requirements, recording: nil,
                    at: receivedAt, id: id, context: context)
            }
            if otherwise == .staticFile, let files = core.store.root?.appendingPathComponent("__files"),
                let file = StaticFiles.file(at: incoming.url.path(percentEncoded: true), in: files)
            {
                // As WireMock: a file under __files/ at the request's path.
                record.outcome = .text("a file of __files/")
                response = .raw(
                    status: .ok, contentType: file.contentType, body: ByteBuffer(bytes: file.body), id: id,
                    for: requirements, record: record, receivedAt: receivedAt)
            } else if let stopped = report.stoppedMatchers.first {
                record.outcome = .text("matching stopped at \(stopped.stub)")
                response = .text(
                    status: .internalServerError, text: "The request could not be matched: \(stopped.description)\n",
                    id: id, for: requirements, record: record, receivedAt: receivedAt)
            } else {
                record.outcome = .text("unmatched")
                response = .text(
                    status: .notFound,
                    text: "Request was not matched\n=======================\n\n\(report.description)\n",
                    id: id, for: requirements, record: record, receivedAt: receivedAt)
            }
        case .passThrough(let reason):
            if otherwise == .forward, let serverWide = core.proxy?.serverWide {
                // Let through, with an upstream: forwarded (and recorded, when a recording let it through).
                var recording: HTTPRecording?
                if case .recording(let attached) = reason { recording = attached as? HTTPRecording }
                return forward(
                    head, body: body, request: incoming, via: serverWide, record: record, requirements: requirements,
                    recording: recording, at: receivedAt, checks: core.stubber.forwardedChecks(for: incoming), id: id,
                    context: context)
            }
            if otherwise == .browserProxy {
                var recording: HTTPRecording?
                if case .recording(let attached) = reason { recording = attached as? HTTPRecording }
                return forwardAsProxy(
                    head, body: body, request: incoming, record: record, requirements: requirements,
                    recording: recording, at: receivedAt, id: id, context: context)
            }
            record.outcome = .text("not stubbed (no upstream)")
            response = .text(
                status: .badGateway,
                text: "The request is not stubbed: \(reason). This server has no upstream to pass it "
                    + "to: stub the request, remove the ignore rule, or give the server an upstream (--proxy URL).\n",
                id: id, for: requirements, record: record, receivedAt: receivedAt)
        }
        return machine.answer(consume response, now: receivedAt)
    }
}
