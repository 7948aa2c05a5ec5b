import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleWireMock

/// Proxying: a request a stub sends on (`proxiedFrom`), or that no stub matches when the server has an upstream,
/// is forwarded with `UpstreamProxy` and its answer streamed back; a recording keeps the exchange.
extension StubRequestHandler {
    /// Answers a request, as the response numbered `id`, with what the upstream answers, forwarded at `start` (a
    /// proxying stub's delay); returns what the machine does next.
    func forward(
        _ head: HTTPRequestHead, body: ByteBuffer, request: HTTPIncomingRequest, via stubProxy: HTTPStubProxy,
        record: ResponseRecord, requirements: HeadRequirements, recording: HTTPRecording?, mappingID: UUID? = nil,
        at start: NIODeadline, checks: [HTTPForwardedCheck] = [], asBrowserProxy: Bool = false, id: Int,
        context: ChannelHandlerContext
    ) -> ConnectionStateMachine.Action {
        let target = UpstreamProxy.target(for: head, via: stubProxy)
        var record = record
        record.outcome = .text(
            recording == nil
                ? "proxied to \(core.loggedTarget(target))" : "recorded from \(core.loggedTarget(target))")
        let flow = UpstreamFlow()
        pendingForward = { [self] in
            proxy(
                head, body: body, request: request, via: stubProxy, entry: record.entry, id: id, flow: flow,
                recording: recording, mappingID: mappingID, target: target, checks: checks,
                asBrowserProxy: asBrowserProxy, context: context)
        }
        let response = ResponseStateMachine.forwarding(
            at: start, flow: flow, id: id, for: requirements, record: record)
        return machine.answer(consume response, now: context.eventLoop.now)
    }

    /// Answers a browser-proxied request (browser proxying's: a whole URL, or a request in a tunnel) with what its
    /// own site answers: the tunnel's target, or the host and port of its URL.
    func forwardAsProxy(
        _ head: HTTPRequestHead, body: ByteBuffer, request: HTTPIncomingRequest, record: ResponseRecord,
        requirements: HeadRequirements, recording: HTTPRecording?, at start: NIODeadline, id: Int,
        context: ChannelHandlerContext
    ) -> ConnectionStateMachine.Action {
        let site: URL?
        if let tunnel {
            site = URL(string: "\(isSecure ? "https" : "http")://\(tunnel)")
        } else {
            // The URL's scheme and authority as the client wrote them (an IPv6 address keeps its brackets).
            let text = head.uri
            site = text.range(of: "://").flatMap { schemeEnd in
                let rest = text[schemeEnd.upperBound...]
                let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
                return URL(string: String(text[..<end]))
            }
        }
        guard let site, site.host != nil else {
            // The router sends only `http://` and `https://` URLs here, which the request's URL was made from.
            var record = record
            record.outcome = .text("no site to forward to")
            let response = ResponseStateMachine.text(
                status: .badRequest, text: "\(head.uri) names no site to forward to: send a whole http:// URL.\n",
                id: id, for: requirements, record: record, receivedAt: start)
            return machine.answer(consume response, now: start)
        }
        return forward(
            head, body: body, request: request, via: HTTPStubProxy(baseURL: site), record: record,
            requirements: requirements, recording: recording, at: start, asBrowserProxy: true, id: id,
            context: context)
    }

    /// Forwards a request to the upstream and streams the answer to the client as it arrives, no faster than
    /// the client reads it; a recording keeps the exchange when it ends, and so does `core.proxiedExchanges`
    /// (for the admin API's recordings). `mappingID` is the proxying stub's mapping, if a stub proxies.
    private func proxy(
        _ head: HTTPRequestHead, body: ByteBuffer, request: HTTPIncomingRequest, via stubProxy: HTTPStubProxy,
        entry: Int?, id: Int, flow: UpstreamFlow, recording: HTTPRecording?, mappingID: UUID?, target: String,
        checks: [HTTPForwardedCheck], asBrowserProxy: Bool, context: ChannelHandlerContext
    ) {
        guard let proxy = core.proxy else { return }
        let checked = checking(checks, entry: entry, head: head)
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        // The recording keeps the exchange whatever becomes of the client's connection (it may have all it
        // needs, and close, before the upstream's end arrives).
        let received = NIOLockedValueBox(
            (
                status: 0, headers: [(name: String, value: String)](), body: Data(), isOversize: false,
                arrivals: [HTTPRecordedExchange.Arrival]()
            ))
        // Recordings keep when each part came (an event stream's pace).
        let sent = ContinuousClock.now
        // What the admin API's recordings and snapshots make stubs of; bodies as they are meant when the
        // admin API's recording proxies (as WireMock records them: uncompressed).
        let exchanges = core.proxiedExchanges
        let capacity = core.stubber.journalCapacity
        let isRecorder = core.recorder.isRecording(through: mappingID)
        // A stubber's recording and `--record-mappings` keep whole bodies.
        let mappings = core.mappingsRecorder
        let keepsWhole = recording != nil || mappings != nil
        // `--record-mappings` holds the answer until it is whole, as WireMock does, so that its files are written
        // before the client has it; an event stream, which may never end, passes as it comes.
        let holder = mappings != nil && checked == nil ? AnswerHolder() : nil
        proxy.forward(
            head, body: body, to: target, adding: stubProxy.additionalHeaders,
            identityEncoding: recording != nil || isRecorder, asBrowserProxy: asBrowserProxy, flow: flow
        ) { event in
            // A validating proxy holds the answer until it is whole: held bytes have arrived where they wait.
            let (delivered, streamed) = checked?.pass(event) ?? holder?.pass(event) ?? ([event], true)
            switch event {
            case .head(let status, let headers):
                received.withLockedValue {
                    $0.status = Int(status.code)
                    $0.headers = headers.map { (name: $0.name, value: $0.value) }
                    $0.arrivals.append(.init(byteCount: 0, time: .now - sent))
                }
            case .body(let part):
                received.withLockedValue { received in
                    // A recording keeps whole bodies; the admin API's exchanges keep none beyond their limit, and
                    // answers still arriving hold at most that much in all, so that proxied downloads stream
                    // through without being held.
                    guard !received.isOversize else { return }
                    guard keepsWhole || exchanges.reserve(part.readableBytes) else {
                        exchanges.release(received.body.count)
                        received.isOversize = true
                        received.body = Data()
                        return
                    }
                    received.body.append(contentsOf: part.readableBytesView)
                    received.arrivals.append(.init(byteCount: received.body.count, time: .now - sent))
                }
            case .end:
                let exchange = received.withLockedValue { received in
                    defer { if !keepsWhole { exchanges.release(received.body.count) } }
                    return received
                }
                recording?.add(
                    request, status: exchange.status, headers: exchange.headers, body: exchange.body,
                    arrivals: exchange.arrivals, contractNotes: checked?.notes ?? [])
                mappings?.record(
                    request, status: exchange.status, headers: exchange.headers, body: exchange.body,
                    arrivals: exchange.arrivals)
                if let entry, !exchange.isOversize {
                    exchanges.add(
                        entry: entry,
                        ProxiedExchanges.Exchange(
                            status: exchange.status, headers: exchange.headers, body: exchange.body,
                            isIdentityEncoded: recording != nil || isRecorder, arrivals: exchange.arrivals),
                        capacity: capacity)
                }
            case .failed(let error):
                recording?.addFailure(request, reason: "\(error)")
                if !keepsWhole {
                    let held = received.withLockedValue { received in
                        defer { received.body = Data() }
                        return received.body.count
                    }
                    exchanges.release(held)
                }
            }
            if !streamed, case .body(let part) = event { flow.arrived(part.readableBytes) }
            guard !delivered.isEmpty else { return }
            eventLoop.execute {
                if streamed, case .body(let part) = event { flow.arrived(part.readableBytes) }
                let (handler, context) = bound.value
                for event in delivered {
                    handler.upstream(event, for: id, flow: flow, target: target, context: context)
                }
            }
        }
    }

    /// A validating proxy's hold on the answer, when loaded documents check this request (`serve --openapi X
    /// --proxy URL`): what the request breaks goes into its journal entry at once, what the answer breaks when it
    /// has all arrived.
    private func checking(_ checks: [HTTPForwardedCheck], entry: Int?, head: HTTPRequestHead) -> CheckedForwarding? {
        guard !checks.isEmpty else { return nil }
        let stubber = core.stubber
        if let entry { stubber.annotate(entry: entry, with: checks.flatMap(\.request.annotations)) }
        let logger = core.logger
        let line = "\(head.method.rawValue) \(core.loggedTarget(head.uri))"
        return CheckedForwarding(checks: checks) { annotations, unchecked in
            if let entry { stubber.annotate(entry: entry, with: annotations) }
            if let unchecked {
                logger.info("\(line): the upstream's answer is \(unchecked): only its head was checked")
            }
        }
    }

    private func upstream(
        _ event: UpstreamEvent, for id: Int, flow: UpstreamFlow, target: String, context: ChannelHandlerContext
    ) {
        var failureText = ""
        if case .failed(let error) = event {
            failureText =
                error is UpstreamProxy.DeniedTarget
                ? "\(error)"
                : "Network failure trying to make a proxied request from StuntDouble to \(core.loggedTarget(target))\n"
                    + "\(error)\n"
        }
        let action = machine.upstream(event, for: id, failureText: failureText, now: context.eventLoop.now)
        if case .abandonUpstream = action {
            // Nobody reads the rest (the response ended, or the connection closed): the upstream drains.
            flow.finish()
            return
        }
        run(action, context: context)
    }
}

/// Holds an upstream's answer until it is whole (`--record-mappings`), unless it is an event stream.
final class AnswerHolder: Sendable {
    /// Whether the answer is held, and what of it was.
    private let state = NIOLockedValueBox((holds: true, events: [UpstreamEvent]()))

    /// What to deliver now for an event, and whether it streams through (else it is held, or delivered with the
    /// held ones at the end).
    func pass(_ event: UpstreamEvent) -> (delivered: [UpstreamEvent], streamed: Bool) {
        state.withLockedValue { state in
            switch event {
            case .head(_, let headers):
                let type = headers.first(name: "content-type")?.lowercased() ?? ""
                state.holds = !type.hasPrefix("text/event-stream")
            case .failed:
                // A failure is answered as it is: what was held never reaches the client.
                state.events = []
                return ([event], true)
            case .body, .end:
                break
            }
            guard state.holds else { return ([event], true) }
            state.events.append(event)
            guard case .end = event else { return ([], false) }
            defer { state.events = [] }
            return (state.events, false)
        }
    }
}
