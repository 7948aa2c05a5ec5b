import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleWireMock

/// One response being written to a connection: its head, its body, what is due when (a stub's `ResponseSteps`),
/// and how far writing has got. The connection's `ConnectionStateMachine` writes it; the handler prepares it
/// (from a stub's plan, the admin API's answer, an upstream's) and records how it ended. Lives on the
/// connection's event loop, and holds no channel.
final class Playback {
    enum Kind {
        /// A response.
        case response
        /// A stub's error: the connection closes without a response when the head is due.
        case failure(any Error)
        /// A stub's fault, committed on the wire when the head is due; the error is what in-process clients get.
        case fault(HTTPStubFault, any Error)
    }

    let requestHead: HTTPRequestHead
    /// The request's journal entry; `nil` for an admin call (WireMock does not journal those).
    let entry: Int?
    let receivedAt: NIODeadline
    let received: ContinuousClock.Instant

    private(set) var kind = Kind.response
    /// The response's head as bytes, once known (a proxied response's comes from the upstream).
    private(set) var head: ByteBuffer?
    /// What is due when, after `receivedAt`: the head, each chunk of the body, the end. A stub's are its plan's
    /// (moved by the admin API's global `fixedDelay`); the server's own answers are due at once.
    var steps = ResponseSteps(atOnce: [])
    /// Whether the body goes out in chunks (`Transfer-Encoding: chunked`).
    private(set) var chunked = false
    /// Whether the response has a body on the wire: not for `HEAD`, nor for 1xx, 204 and 304.
    private(set) var sendsBody = true
    /// The body the chunks of `steps` are ranges of: a stub's is shared by every response it plays, never copied.
    private(set) var body = ByteBuffer()
    private(set) var keepAlive = true
    /// The status sent, or `nil` when no response is sent.
    private(set) var statusCode: Int?
    /// What answered, for the log: a stub's description, `unmatched` ... (worked out only when logged).
    var outcome: String {
        switch answer {
        case .stub(let stub, let note): stub.description + (note ?? "")
        case .text(let text): text
        }
    }
    private var answer = Answer.text("")

    private enum Answer {
        case stub(HTTPStubRequest, note: String?)
        case text(String)
    }

    /// Whether the head is known (a proxied response's comes from the upstream later).
    private(set) var headReady = true
    /// Whether every chunk is known (a proxied response's body keeps coming until the upstream ends it).
    private(set) var bodyComplete = true
    var headWritten = false
    /// How much of the chunk due next has been written (a large chunk goes out in pieces).
    var chunkOffset = 0
    var bytesWritten = 0
    /// How much of a proxied body its head declared and has not come yet.
    private var upstreamRemaining: Int?
    /// How the body is framed on the wire.
    private(set) var framing = ResponseWire.Framing.contentLength
    /// A proxied body's parts, as the upstream sent them, waiting for the socket.
    var upstreamParts: [ByteBuffer] = []
    /// How many bytes `upstreamParts` holds.
    var upstreamBacklog = 0
    /// Holds the upstream back while the client is slow to read what came already (a proxied response's).
    private(set) var upstreamFlow: UpstreamFlow?
    var isFinished = false
    /// What cut the response short, when something did.
    var endError: (any Error)?
    /// When a proxying stub forwards its request (after its delay), or `nil` when it forwards at once or does not.
    var upstreamStart: NIODeadline?
    /// The calls the stub that answered makes once the response has been sent (its mapping's webhooks, its
    /// document's callbacks), the request, and the response when the stub gave one.
    var followUps: (calls: [any StubFollowUp], request: HTTPIncomingRequest, response: HTTPResponsePlan.Response?)?

    init(requestHead: HTTPRequestHead, entry: Int, receivedAt: NIODeadline, received: ContinuousClock.Instant) {
        self.requestHead = requestHead
        self.entry = entry
        self.receivedAt = receivedAt
        self.received = received
    }

    /// The playback of an admin call's answer (or the server's own), which is not journaled.
    init(adminRequestHead: HTTPRequestHead, receivedAt: NIODeadline) {
        requestHead = adminRequestHead
        entry = nil
        self.receivedAt = receivedAt
        received = .now
    }

    /// The moment `time` after the request was received (a time of `steps`).
    func deadline(_ time: Duration) -> NIODeadline {
        let (seconds, attoseconds) = time.components
        return receivedAt + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// A response's head and body as the wire needs them, made once per stub and response object and kept with
    /// the response (`HTTPResponsePlan.derived(_:)`): most requests a stub answers get the same bytes.
    final class WireHead: Sendable {
        let status: HTTPResponseStatus
        /// The response's headers, and `Matched-Stub-Id` and `-Name` for a mapping.
        let headers: NIOHTTP1.HTTPHeaders
        /// Whether the headers say `Connection: close`.
        let closes: Bool
        /// The body, shared by every response that plays it.
        let body: ByteBuffer
        /// The head encoded for the usual request (HTTP/1.1, keep-alive), and how its body is framed.
        let usual: (head: ByteBuffer, framing: ResponseWire.Framing)

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
            closes = Self.saysClose(headers)
            body = ByteBuffer(bytes: response.body)
            var framed = headers
            let framing = ResponseWire.frame(&framed, status: status, version: .http1_1)
            usual = (ResponseWire.head(version: .http1_1, status: status, headers: framed), framing)
        }

        static func saysClose(_ headers: NIOHTTP1.HTTPHeaders) -> Bool {
            headers.contains { field in
                HeadFacts.name(field.name, is: "connection")
                    && field.value.split(separator: ",").contains {
                        HeadFacts.name($0.trimmingCharacters(in: .whitespaces), is: "close")
                    }
            }
        }
    }

    /// The `Origin` of a request from a browser on another origin, when the server answers those (CORS): every
    /// head then carries `CrossOrigin.adding(origin:to:)`'s headers.
    var crossOrigin: String?

    /// Prepares a stub's plan, every step moved by `shift` (the admin API's global `fixedDelay`).
    func prepare(_ plan: HTTPResponsePlan, shift: Duration = .zero) {
        answer = .stub(plan.stub, note: nil)
        switch plan.action {
        case .fail(let error):
            steps = ResponseSteps(plan, at: shift)
            if let fault = plan.fault {
                kind = .fault(fault, error)
                answer = .stub(plan.stub, note: ": fault \(fault)")
            } else {
                kind = .failure(error)
                answer = .stub(plan.stub, note: ": error \(error), so the connection closes without a response")
            }
        case .respond(let response):
            if let problem = response.wireProblem {
                prepareText(
                    status: .internalServerError,
                    text: "The response of \(plan.stub) cannot be sent: \(problem). Fix the stub.\n",
                    outcome: "\(plan.stub) (invalid response)")
                return
            }
            let head =
                plan.derived(WireHead.self)
                ?? {
                    let made = WireHead(response, stub: plan.stub)
                    plan.storeDerived(made)
                    return made
                }()
            body = head.body
            if requestHead.version == .http1_1, !head.closes, requestHead.isKeepAlive, crossOrigin == nil {
                // The usual request: the head made when the stub first answered.
                keepAlive = true
                setHead(head.usual.head, framing: head.usual.framing, status: head.status)
            } else {
                setHead(status: head.status, headers: head.headers, closes: head.closes)
            }
            steps = ResponseSteps(plan, at: shift, body: sendsBody)
        }
    }

    /// Prepares a response that an upstream will send: its head and body arrive later.
    /// - Returns: What holds the upstream back while the client is slow.
    func prepareProxied(outcome: String) -> UpstreamFlow {
        answer = .text(outcome)
        headReady = false
        bodyComplete = false
        body = ByteBuffer()
        steps = ResponseSteps(atOnce: [])
        let flow = UpstreamFlow()
        upstreamFlow = flow
        return flow
    }

    /// The upstream's head arrived. When it declares its body's length (or has none), the body is complete once
    /// that many bytes have come, whenever the upstream's end comes: on an HTTP/2 stream the last byte ends the
    /// stream, and an HTTP/1.1 connection can take its next request.
    func receiveUpstreamHead(status: HTTPResponseStatus, headers: NIOHTTP1.HTTPHeaders) {
        setHead(status: status, headers: headers, closes: WireHead.saysClose(headers))
        headReady = true
        if !sendsBody {
            bodyComplete = true
        } else if framing == .contentLength, let length = headers.first(name: "content-length").flatMap({ Int($0) }) {
            upstreamRemaining = length
            if length == 0 { bodyComplete = true }
        }
    }

    /// More of the upstream's body arrived (beyond its declared length, dropped: it cannot be sent).
    func receiveUpstreamBody(_ part: ByteBuffer) {
        guard sendsBody, !bodyComplete else { return }
        var part = part
        if let remaining = upstreamRemaining {
            if part.readableBytes > remaining { part = part.getSlice(at: part.readerIndex, length: remaining)! }
            upstreamRemaining = remaining - part.readableBytes
            if upstreamRemaining == 0 { bodyComplete = true }
        }
        upstreamParts.append(part)
        upstreamBacklog += part.readableBytes
    }

    /// The upstream ended its body.
    func upstreamEnded() {
        bodyComplete = true
    }

    /// Prepares a plain-text response of the server's own, due now.
    func prepareText(status: HTTPResponseStatus, text: String, outcome: String) {
        upstreamParts.removeAll()
        upstreamBacklog = 0
        prepareRaw(status: status, contentType: "text/plain; charset=utf-8", body: Data(text.utf8), outcome: outcome)
    }

    /// Prepares a response of the server's own (an admin API answer), due now.
    func prepareRaw(
        status: HTTPResponseStatus, contentType: String, body: Data, headers extra: [(String, String)] = [],
        outcome: String
    ) {
        answer = .text(outcome)
        headReady = true
        bodyComplete = true
        var headers = NIOHTTP1.HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        for (name, value) in extra { headers.add(name: name, value: HeaderText.value(value)) }
        self.body = ByteBuffer(bytes: body)
        headers.add(name: "Content-Length", value: String(body.count))
        setHead(status: status, headers: headers, closes: WireHead.saysClose(headers))
        steps = ResponseSteps(atOnce: sendsBody ? [HTTPResponsePlan.Chunk(range: 0..<body.count, deadline: .zero)] : [])
    }

    /// Prepares an answer of the server's own with no body (a CORS preflight's `204`), due now.
    func prepareEmpty(status: HTTPResponseStatus, headers extra: [(String, String)], outcome: String) {
        answer = .text(outcome)
        headReady = true
        bodyComplete = true
        var headers = NIOHTTP1.HTTPHeaders()
        for (name, value) in extra { headers.add(name: name, value: HeaderText.value(value)) }
        body = ByteBuffer()
        setHead(status: status, headers: headers, closes: false)
        steps = ResponseSteps(atOnce: [])
    }

    /// Sets the head for the request's version and connection: framed (`ResponseWire.frame`), with
    /// `Connection: close` when the connection ends after it and `keep-alive` for an HTTP/1.0 client that keeps it.
    private func setHead(status: HTTPResponseStatus, headers: NIOHTTP1.HTTPHeaders, closes: Bool) {
        var headers = crossOrigin.map { CrossOrigin.adding(origin: $0, to: headers) } ?? headers
        let version = requestHead.version
        let framing = ResponseWire.frame(&headers, status: status, version: version)
        // An HTTP/2 stream ends with the END_STREAM of its response, by itself: closing it would reset it, dropping
        // frames still waiting for the client's flow-control window (the response matrix saw such streams
        // cancelled). HTTP/2 has no `Connection` header to ask otherwise.
        keepAlive =
            version.major >= 2 || (requestHead.isKeepAlive && !closes && framing != .untilClose)
        if !keepAlive, !closes {
            headers.replaceOrAdd(name: "Connection", value: "close")
        } else if keepAlive, version == .http1_0, !headers.contains(name: "connection") {
            headers.add(name: "Connection", value: "keep-alive")
        }
        setHead(ResponseWire.head(version: version, status: status, headers: headers), framing: framing, status: status)
    }

    private func setHead(_ encoded: ByteBuffer, framing: ResponseWire.Framing, status: HTTPResponseStatus) {
        head = encoded
        self.framing = framing
        sendsBody = framing != .none && requestHead.method != .HEAD
        chunked = framing == .chunked && sendsBody
        statusCode = Int(status.code)
    }
}

/// Turns a request head and body into the request stubs see: `http://<Host><target>` (`https://` on the HTTPS
/// listener).
enum IncomingRequestBuilder {
    struct InvalidTarget: Error, CustomStringConvertible {
        let description: String
    }

    /// The request a head and body make.
    /// - Parameters:
    ///   - head: The request's head.
    ///   - body: Its body.
    ///   - declaresBody: Whether the head gave a length or a transfer coding (then an empty body is one).
    ///   - authority: The server's `host:port`, for a request that names no host.
    ///   - scheme: `http`, or `https` on the HTTPS listener.
    /// - Returns: The request.
    /// - Throws: `InvalidTarget` when the target is not a path, nor an absolute URL.
    static func make(
        _ head: HTTPRequestHead, body: ByteBuffer, declaresBody: Bool, authority: String, scheme: String = "http"
    ) throws -> HTTPIncomingRequest {
        // In one array of the right size (adding one at a time grew it twice for a usual request).
        let headers = StuntDouble.HTTPHeaders(
            head.headers.map { StuntDouble.HTTPHeaders.Element(name: .init(rawValue: $0.name), value: $0.value) })
        let bytes = body.readableBytes > 0 ? Data(body.readableBytesView) : nil
        let hasBody = bytes != nil || declaresBody
        let method = StuntDouble.HTTPMethod(rawValue: head.method.rawValue)
        let body = hasBody ? (bytes ?? Data()) : nil
        // The usual request: an origin-form target that is a URL as it is, matched by its route with no `URL` made.
        if head.uri.hasPrefix("/"),
            let request = HTTPIncomingRequest(
                method: method,
                validatedURLText: scheme == "http"
                    ? "http://\(host(of: head, authority: authority))\(head.uri)"
                    : "\(scheme)://\(host(of: head, authority: authority))\(head.uri)",
                headers: headers, body: body)
        {
            return request
        }
        return try HTTPIncomingRequest(
            method: method, url: url(for: head, authority: authority, scheme: scheme), headers: headers, body: body)
    }

    /// The request's host: its Host header when that can be a URL's authority, else the server's.
    private static func host(of head: HTTPRequestHead, authority: String) -> String {
        head.headers.first(name: "host").flatMap { isAuthority($0) ? $0 : nil } ?? authority
    }

    static func url(for head: HTTPRequestHead, authority: String, scheme: String = "http") throws -> URL {
        let target = head.uri
        if target.hasPrefix("/") {
            let host = host(of: head, authority: authority)
            if let url = URL(string: "\(scheme)://\(host)\(target)") { return url }
            // Characters a URL may not hold (a `|` or `"` that a lenient client sent): encode them.
            var allowed = CharacterSet.urlQueryAllowed
            allowed.insert(charactersIn: "%#")
            if let encoded = target.addingPercentEncoding(withAllowedCharacters: allowed),
                let url = URL(string: "\(scheme)://\(host)\(encoded)")
            {
                return url
            }
            throw InvalidTarget(description: "it is not a valid path and query")
        }
        let lowered = target.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let url = URL(string: target), url.host != nil
        {
            return url
        }
        throw InvalidTarget(
            description: "only origin-form (/path) and absolute-form (http://host/path) targets are served")
    }

    /// Whether a Host header value can be a URL's authority.
    private static func isAuthority(_ value: String) -> Bool {
        func allowed(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"),
                UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "_"):
                return true
            default:
                return false
            }
        }
        guard !value.isEmpty else { return false }
        // The bytes in place (a received header's are in one piece): the view's iterator cost 400 instructions.
        return value.utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy(allowed) }
            ?? value.utf8.allSatisfy(allowed)
    }
}
