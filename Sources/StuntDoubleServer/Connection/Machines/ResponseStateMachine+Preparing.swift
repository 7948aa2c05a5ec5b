import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StuntDouble

/// The responses a handler prepares: a stub's plan, the server's own answers (text, an admin call's bytes, a
/// preflight's empty `204`), and a proxied request's answer to come.
extension ResponseStateMachine {
    /// A stub's plan, every step moved by `shift` (the admin API's global `fixedDelay`).
    static func plan(
        _ plan: HTTPResponsePlan, id: Int, for requirements: HeadRequirements, record: consuming ResponseRecord,
        receivedAt: NIODeadline, shift: Duration = .zero
    ) -> ResponseStateMachine {
        // The record is taken and passed on, never copied (each copy of one retains what it holds).
        record.outcome = .stub(plan.stub, note: nil)
        // The usual case first: a response the stub answered with before, its wire form kept with it (no look at
        // the response itself, whose copy is a runtime call: it holds Foundation's `Data`).
        if let wire = plan.derived(StubWireResponse.self), requirements.version.major < 2 || wire.status.code >= 200 {
            return playing(wire, plan: plan, id: id, for: requirements, record: record, at: receivedAt, shift: shift)
        }
        switch plan.action {
        case .fail(let error):
            let steps = ResponseSteps(plan, at: shift)
            let failure: ResponseFailure
            if let fault = plan.fault {
                failure = .fault(fault, error)
                record.outcome = .stub(plan.stub, note: ": fault \(fault)")
            } else {
                failure = .error(error)
                record.outcome = .stub(
                    plan.stub, note: ": error \(error), so the connection closes without a response")
            }
            let due = steps.isImmediate ? nil : receivedAt + TimeAmount(steps.next?.time ?? .zero)
            return ResponseStateMachine(id: id, state: .failing(Failing(due: due, failure: failure, record: record)))
        case .respond(let response):
            var problem = response.wireProblem
            if problem == nil, requirements.version.major >= 2, response.statusCode.rawValue < 200 {
                problem = "HTTP/2 has no status \(response.statusCode.rawValue) as an answer (RFC 9113, section 8.1)"
            }
            if let problem {
                record.outcome = .text("\(plan.stub) (invalid response)")
                return text(
                    status: .internalServerError,
                    text: "The response of \(plan.stub) cannot be sent: \(problem). Fix the stub.\n", id: id,
                    for: requirements, record: record, receivedAt: receivedAt)
            }
            let wire = StubWireResponse(response, stub: plan.stub)
            plan.storeDerived(wire)
            return playing(wire, plan: plan, id: id, for: requirements, record: record, at: receivedAt, shift: shift)
        }
    }

    /// A stub's response, played from its wire form (gzipped, when the request accepts it and the response is
    /// one WireMock gzips).
    private static func playing(
        _ wire: StubWireResponse, plan: HTTPResponsePlan, id: Int, for requirements: HeadRequirements,
        record: consuming ResponseRecord, at receivedAt: NIODeadline, shift: Duration
    ) -> ResponseStateMachine {
        if requirements.acceptsGzip, let gzipped = wire.gzipped(for: plan) {
            return playing(
                wire, headers: gzipped.headers, body: gzipped.body, usual: gzipped.usual, isGzipped: true, plan: plan,
                id: id, for: requirements, record: record, at: receivedAt, shift: shift)
        }
        return playing(
            wire, headers: wire.headers, body: wire.body, usual: wire.usual, isGzipped: false, plan: plan, id: id,
            for: requirements, record: record, at: receivedAt, shift: shift)
    }

    /// A stub's response in one of its forms: its fields, its body, and its head for the usual request.
    private static func playing(
        _ wire: StubWireResponse, headers: NIOHTTP1.HTTPHeaders, body: ByteBuffer, usual: WireResponse,
        isGzipped: Bool, plan: HTTPResponsePlan, id: Int, for requirements: HeadRequirements,
        record: consuming ResponseRecord, at receivedAt: NIODeadline, shift: Duration
    ) -> ResponseStateMachine {
        let playing: WireResponse
        if requirements.takesUsualHead, !wire.closes {
            playing = usual
        } else {
            let (head, keepAlive) = requirements.head(status: wire.status, headers: headers, closes: wire.closes)
            playing = WireResponse(head: head, keepAlive: keepAlive, body: body)
        }
        record.statusCode = Int(wire.status.code)
        let sendsBody = requirements.sendsBody(playing.head)
        let steps =
            isGzipped
            ? ResponseSteps(plan, at: shift, body: sendsBody, wholeBodyLength: body.readableBytes)
            : ResponseSteps(plan, at: shift, body: sendsBody)
        return ResponseStateMachine(
            id: id,
            state: .playing(
                Playing(
                    wire: playing, chunked: sendsBody && playing.head.framing == .chunked, steps: steps,
                    receivedAt: receivedAt, record: record)))
    }

    /// A plain-text response of the server's own, due now.
    static func text(
        status: HTTPResponseStatus, text: String, headers extra: [(String, String)] = [], id: Int = 0,
        for requirements: HeadRequirements, record: ResponseRecord, receivedAt: NIODeadline
    ) -> ResponseStateMachine {
        raw(
            status: status, contentType: "text/plain; charset=utf-8", body: ByteBuffer(string: text), headers: extra,
            id: id, for: requirements, record: record, receivedAt: receivedAt)
    }

    /// A response of the server's own (an admin API answer, a file of `__files/`), due now.
    static func raw(
        status: HTTPResponseStatus, contentType: String, body: ByteBuffer, headers extra: [(String, String)] = [],
        id: Int, for requirements: HeadRequirements, record: ResponseRecord, receivedAt: NIODeadline
    ) -> ResponseStateMachine {
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        for (name, value) in extra { headers.add(name: name, value: HeaderText.value(value)) }
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        let (head, keepAlive) = requirements.head(
            status: status, headers: headers, closes: ResponseHead.saysClose(headers))
        let sendsBody = requirements.sendsBody(head)
        let chunks = sendsBody ? [HTTPResponsePlan.Chunk(range: 0..<body.readableBytes, deadline: .zero)] : []
        return known(
            head, keepAlive: keepAlive, chunked: sendsBody && head.framing == .chunked, body: body, chunks: chunks,
            id: id, record: record, at: receivedAt)
    }

    /// An answer of the server's own with no body (a CORS preflight's `204`), due now.
    static func empty(
        status: HTTPResponseStatus, headers extra: [(String, String)], id: Int, for requirements: HeadRequirements,
        record: ResponseRecord, receivedAt: NIODeadline
    ) -> ResponseStateMachine {
        var headers = NIOHTTP1.HTTPHeaders()
        for (name, value) in extra { headers.add(name: name, value: HeaderText.value(value)) }
        let (head, keepAlive) = requirements.head(status: status, headers: headers, closes: false)
        return known(
            head, keepAlive: keepAlive, chunked: false, body: ByteBuffer(), chunks: [], id: id, record: record,
            at: receivedAt)
    }

    private static func known(
        _ head: ResponseHead, keepAlive: Bool, chunked: Bool, body: ByteBuffer, chunks: [HTTPResponsePlan.Chunk],
        id: Int, record: ResponseRecord, at receivedAt: NIODeadline
    ) -> ResponseStateMachine {
        var record = record
        record.statusCode = Int(head.status.code)
        return ResponseStateMachine(
            id: id,
            state: .playing(
                Playing(
                    wire: WireResponse(head: head, keepAlive: keepAlive, body: body), chunked: chunked,
                    steps: ResponseSteps(atOnce: chunks), receivedAt: receivedAt, record: record)))
    }

    /// An answer an upstream will send, once the request is forwarded at `start` (a proxying stub's delay; the
    /// request's receipt to forward at once).
    static func forwarding(
        at start: NIODeadline, flow: UpstreamFlow, id: Int, for requirements: HeadRequirements, record: ResponseRecord
    ) -> ResponseStateMachine {
        var record = record
        record.flow = flow
        return ResponseStateMachine(
            id: id, state: .forwarding(start: start, Relaying(requirements: requirements, flow: flow, record: record)))
    }
}

/// A stub's response as the wire needs it, made once per stub and response object and kept with the response
/// (`HTTPResponsePlan.derived(_:)`): most requests a stub answers get the same bytes. Made when the stub is loaded
/// (``prepare(_:)``), or else by the first request it answers.
final class StubWireResponse: Sendable {
    /// Makes the wire form of each of a stub's fixed responses now, as it is loaded: its first request then costs
    /// what the others do (with a thousand stubs each asked a few times, making them on first use was a tenth of
    /// the server's work).
    static func prepare(_ stub: HTTPStubRequest) {
        for plan in stub.fixedResponsePlans() where plan.derived(StubWireResponse.self) == nil {
            guard plan.proxy == nil, case .respond(let response) = plan.action, response.wireProblem == nil else {
                continue
            }
            plan.storeDerived(StubWireResponse(response, stub: stub))
        }
    }

    let status: HTTPResponseStatus
    /// The response's fields, and `Matched-Stub-Id` and `-Name` for a mapping.
    let headers: NIOHTTP1.HTTPHeaders
    /// Whether the fields say `Connection: close`.
    let closes: Bool
    /// The body, shared by every response that plays it.
    let body: ByteBuffer
    /// The head for the usual request (HTTP/1.1, kept alive, no CORS), encoded once, with the body.
    let usual: WireResponse
    /// The gzipped form, made on first use (`nil` inside once the response turned out not to be gzipped).
    private let gzippedForm = NIOLockedValueBox<GzippedForm??>(nil)

    /// A response's gzipped form: its fields with `Content-Encoding: gzip`, the gzipped body, the usual head.
    struct GzippedForm: Sendable {
        let headers: NIOHTTP1.HTTPHeaders
        let body: ByteBuffer
        let usual: WireResponse
    }

    /// The response gzipped, for a request that accepts it, made once; `nil` for a response Jetty's GzipHandler
    /// leaves as it is for WireMock (a body under 32 bytes, a status without a body, a compressed type or an
    /// event stream, a stub's own `Content-Encoding`, `Transfer-Encoding` or a `Content-Length` other than its
    /// body's) and for a body paced in parts.
    func gzipped(for plan: HTTPResponsePlan) -> GzippedForm? {
        gzippedForm.withLockedValue { form in
            if let form { return form }
            let made = makeGzipped(for: plan)
            form = .some(made)
            return made
        }
    }

    private func makeGzipped(for plan: HTTPResponsePlan) -> GzippedForm? {
        guard body.readableBytes >= 32, status.code >= 200, status != .noContent, status != .notModified,
            plan.chunks.count == 1, plan.chunks[0].range == 0..<body.readableBytes, plan.continuation == nil,
            !headers.contains(name: "content-encoding"), !headers.contains(name: "transfer-encoding"),
            // The engine's own length, not one a stub set apart from its body's.
            headers[canonicalForm: "content-length"].allSatisfy({ $0 == "\(body.readableBytes)" }),
            !Gzip.isCompressedType(headers.first(name: "content-type")), let gzippedBody = Gzip.compress(body)
        else { return nil }
        var gzippedHeaders = headers
        gzippedHeaders.replaceOrAdd(name: "Content-Length", value: "\(gzippedBody.readableBytes)")
        gzippedHeaders.add(name: "Content-Encoding", value: "gzip")
        return GzippedForm(
            headers: gzippedHeaders, body: gzippedBody,
            usual: Self.usual(status: status, headers: gzippedHeaders, body: gzippedBody))
    }

    /// A response for the usual request (HTTP/1.1, kept alive, no CORS), its head encoded once.
    private static func usual(status: HTTPResponseStatus, headers: NIOHTTP1.HTTPHeaders, body: ByteBuffer)
        -> WireResponse
    {
        let usualRequest = HeadRequirements(version: .http1_1, keepsAlive: true, isHead: false, crossOrigin: nil)
        let (head, keepAlive) = usualRequest.head(status: status, headers: headers, closes: false)
        return WireResponse(head: head, keepAlive: keepAlive, body: body)
    }

    init(_ response: HTTPResponsePlan.Response, stub: HTTPStubRequest) {
        var headers = NIOHTTP1.HTTPHeaders()
        for field in response.headers {
            headers.add(name: field.name.rawValue, value: field.value)
        }
        if let id = stub.mappingIDText {
            headers.add(name: "Matched-Stub-Id", value: id)
            if let name = stub.name { headers.add(name: "Matched-Stub-Name", value: HeaderText.value(name)) }
        }
        let status =
            response.reasonPhrase.map {
                .custom(code: UInt(response.statusCode.rawValue), reasonPhrase: $0)
            } ?? HTTPResponseStatus(statusCode: response.statusCode.rawValue)
        self.status = status
        self.headers = headers
        closes = ResponseHead.saysClose(headers)
        body = ByteBuffer(bytes: response.body)
        usual = Self.usual(status: status, headers: headers, body: body)
    }
}
