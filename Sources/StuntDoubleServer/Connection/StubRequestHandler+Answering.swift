import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StuntDouble

extension StubRequestHandler {
    /// Answers a request whose body has been read: the admin API's, a stub's plan, a proxied answer, or the
    /// server's own error.
    func respond(to head: HTTPRequestHead, body: ByteBuffer, context: ChannelHandlerContext) {
        if core.hasAdmin, Self.isAdminTarget(head.uri), let admin = core.admin {
            respondAdmin(admin, head: head, body: body, context: context)
            return
        }
        let receivedAt = NIODeadline.now()
        let received = ContinuousClock.now
        let request: HTTPIncomingRequest
        do {
            request = try IncomingRequestBuilder.make(
                head, body: body, authority: core.authority.withLockedValue { $0 })
        } catch {
            let text =
                "The request target cannot be read as a URL: \(error). Send an origin-form target such as "
                + "/path?query.\n"
            core.logger.info("\(head.method.rawValue) \(core.loggedTarget(head.uri)) → 400 \(error)")
            writeSimple(status: .badRequest, text: text, version: head.version, close: true, context: context)
            close(context: context)
            return
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
        if let plan = decision.plan, let stubProxy = plan.proxy {
            // A proxying stub: forwarded once its delay has passed.
            self.playback = playback
            let delay = plan.responseDeadline + core.globalDelay.withLockedValue { $0 }
            let (seconds, attoseconds) = delay.components
            let start = receivedAt + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            playback.timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: start) { [self] in
                proxy(
                    head, body: body, request: request, via: stubProxy, playback: playback, recording: nil,
                    context: context)
            }
            return
        }
        if decision.plan == nil, let serverWide = core.proxy?.serverWide, !isRefusedProxyTarget(head.uri) {
            // Unmatched or let through, with an upstream: forwarded (and recorded, when a recording let it through).
            var recording: HTTPRecording?
            if case .passThrough(.recording(let attached)) = decision { recording = attached }
            self.playback = playback
            proxy(
                head, body: body, request: request, via: serverWide, playback: playback, recording: recording,
                context: context)
            return
        }
        switch decision {
        case .stub(let plan):
            playback.prepare(plan, core: core)
        case .unmatched(let report):
            if let stopped = report.stoppedMatchers.first {
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
            playback.prepareText(
                status: .badGateway,
                text: "The request is not stubbed: \(reason.explanation). This server has no upstream to pass it "
                    + "to: stub the request, remove the ignore rule, or give the server an upstream (--proxy URL).\n",
                outcome: "not stubbed (no upstream)")
        }
        self.playback = playback
        advance(context: context)
    }

    /// Whether a request must not go to the server-wide upstream: the upstream's own admin API, unless the
    /// configuration allows it (another StuntDouble or WireMock behind this one would otherwise take admin
    /// calls, shutdown included, from anyone who reaches this server).
    private func isRefusedProxyTarget(_ target: String) -> Bool {
        !core.configuration.proxiesAdminRequests && Self.isAdminTarget(target)
    }

    /// Forwards a request to the upstream and streams the answer to the client as it arrives, no faster than
    /// the client reads it; a recording keeps the exchange when it ends.
    private func proxy(
        _ head: HTTPRequestHead, body: ByteBuffer, request: HTTPIncomingRequest, via stubProxy: HTTPStubProxy,
        playback: Playback, recording: HTTPRecording?, context: ChannelHandlerContext
    ) {
        guard let proxy = core.proxy, self.playback === playback else { return }
        let target = UpstreamProxy.target(for: head, via: stubProxy)
        let flow = playback.prepareProxied(
            outcome: recording == nil
                ? "proxied to \(core.loggedTarget(target))" : "recorded from \(core.loggedTarget(target))")
        let bound = NIOLoopBound((handler: self, context: context, playback: playback), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        // The recording keeps the exchange whatever becomes of the client's connection (it may have all it
        // needs, and close, before the upstream's end arrives).
        let received = NIOLockedValueBox((status: 0, headers: [(name: String, value: String)](), body: Data()))
        proxy.forward(
            head, body: body, to: target, adding: stubProxy.additionalHeaders, identityEncoding: recording != nil,
            flow: flow
        ) { event in
            if let recording {
                switch event {
                case .head(let status, let headers):
                    received.withLockedValue {
                        $0.status = Int(status.code)
                        $0.headers = headers.map { (name: $0.name, value: $0.value) }
                    }
                case .body(let part):
                    received.withLockedValue { $0.body.append(contentsOf: part.readableBytesView) }
                case .end:
                    let exchange = received.withLockedValue { $0 }
                    recording.add(request, status: exchange.status, headers: exchange.headers, body: exchange.body)
                case .failed(let error):
                    recording.addFailure(request, reason: "\(error)")
                }
            }
            eventLoop.execute {
                let (handler, context, playback) = bound.value
                handler.upstream(event, playback: playback, request: request, context: context)
            }
        }
    }

    private func upstream(
        _ event: UpstreamEvent, playback: Playback, request: HTTPIncomingRequest, context: ChannelHandlerContext
    ) {
        guard !playback.isFinished, self.playback === playback else {
            // Nobody reads the rest: let the upstream's body drain rather than wait.
            playback.upstreamFlow?.finish()
            return
        }
        switch event {
        case .head(let status, let headers):
            playback.receiveUpstreamHead(status: status, headers: headers)
        case .body(let part):
            playback.receiveUpstreamBody(part)
        case .end:
            playback.upstreamEnded()
        case .failed(let error):
            if playback.headWritten {
                // The client has part of the answer: it sees the connection end early, as the upstream's did.
                finish(playback, error: error)
                self.playback = nil
                close(context: context)
                return
            }
            playback.prepareText(
                status: .badGateway,
                text: "The upstream did not answer \(request.method) \(request.url.path): \(error).\n",
                outcome: "upstream failed")
        }
        advance(context: context)
    }

    /// Whether a request target is the admin API's: `/__admin` or under it.
    static func isAdminTarget(_ target: String) -> Bool {
        target == "/__admin" || target.hasPrefix("/__admin/") || target.hasPrefix("/__admin?")
    }

    /// Answers an admin API request: off the event loop (saving and resetting touch files), then back on it.
    private func respondAdmin(
        _ admin: AdminAPI, head: HTTPRequestHead, body: ByteBuffer, context: ChannelHandlerContext
    ) {
        var path = String(head.uri.dropFirst("/__admin".count))
        var query: [String: String] = [:]
        if let mark = path.firstIndex(of: "?") {
            for item in URLComponents(string: "http://x/" + path[mark...])?.queryItems ?? [] {
                query[item.name] = item.value ?? ""
            }
            path = String(path[..<mark])
        }
        var headers = StuntDouble.HTTPHeaders()
        for (name, value) in head.headers {
            headers.add(name: .init(rawValue: name), value: value)
        }
        let request = AdminRequest(
            method: head.method.rawValue, path: path.removingPercentEncoding ?? path, query: query, headers: headers,
            body: Data(body.readableBytesView))
        let answered = context.eventLoop.makePromise(of: AdminResponse.self)
        answered.completeWithTask { await admin.handle(request) }
        answered.futureResult.assumeIsolated().whenSuccess { [self] response in
            guard case .responding = state else { return }
            let playback = Playback(adminRequestHead: head)
            playback.prepareRaw(
                status: HTTPResponseStatus(statusCode: response.status), contentType: response.contentType,
                body: response.body, headers: response.headers, outcome: "admin")
            core.logger.info("\(head.method.rawValue) \(core.loggedTarget(head.uri)) → \(response.status) admin")
            self.playback = playback
            advance(context: context)
        }
    }
}

extension HTTPStubDecision.PassThroughReason {
    /// Why the request would go to the network, for the server's 502.
    var explanation: String {
        switch self {
        case .ignored(let rule): "\(rule) lets it through to the network"
        case .optIn: "the stubber is in opt-in mode and no stub matches it"
        case .recording(let recording): "the stubber records it (\(recording))"
        }
    }
}
