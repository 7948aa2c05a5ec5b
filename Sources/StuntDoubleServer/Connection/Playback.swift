import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble

/// One response being written to a connection: its head, its body's chunks with their deadlines, and how far
/// writing has got. Lives on the connection's event loop.
final class Playback {
    enum Kind {
        /// A response.
        case response
        /// A stub's error: the connection closes without a response at the deadline.
        case failure(any Error, NIODeadline)
        /// A stub's fault, committed on the wire at the deadline; the error is what in-process clients get.
        case fault(HTTPStubFault, any Error, NIODeadline)
    }

    struct TimedChunk {
        let range: Range<Int>
        let deadline: NIODeadline
    }

    let requestHead: HTTPRequestHead
    /// The request's journal entry; `nil` for an admin call (WireMock does not journal those).
    let entry: Int?
    let receivedAt: NIODeadline
    let received: ContinuousClock.Instant

    private(set) var kind = Kind.response
    private(set) var responseHead = HTTPResponseHead(version: .http1_1, status: .ok)
    private(set) var headDeadline: NIODeadline
    private(set) var chunks: [TimedChunk] = []
    private(set) var body = Data()
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
    var nextChunk = 0
    /// How much of the chunk at `nextChunk` has been written (a large chunk goes out in pieces).
    var chunkOffset = 0
    var bytesWritten = 0
    /// A proxied body's parts, as the upstream sent them, waiting for the socket.
    var upstreamParts = CircularBuffer<ByteBuffer>()
    /// How many bytes `upstreamParts` holds.
    var upstreamBacklog = 0
    /// Holds the upstream back while the client is slow to read what came already.
    let upstreamFlow = UpstreamFlow()
    var isWaitingForWritability = false
    var isFinished = false
    var timer: Scheduled<Void>?

    /// Added to every deadline of a stub's plan (the admin API's global `fixedDelay`).
    private var shift = Duration.zero

    init(requestHead: HTTPRequestHead, entry: Int, receivedAt: NIODeadline, received: ContinuousClock.Instant) {
        self.requestHead = requestHead
        self.entry = entry
        self.receivedAt = receivedAt
        self.received = received
        headDeadline = receivedAt
    }

    /// The playback of an admin call's answer, which is not journaled.
    init(adminRequestHead: HTTPRequestHead) {
        requestHead = adminRequestHead
        entry = nil
        receivedAt = .now()
        received = .now
        headDeadline = receivedAt
    }

    func cancel() {
        timer?.cancel()
        timer = nil
    }

    private func deadline(_ offset: Duration) -> NIODeadline {
        let (seconds, attoseconds) = (offset + shift).components
        return receivedAt + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Prepares a stub's plan.
    func prepare(_ plan: HTTPResponsePlan, core: ServerCore) {
        shift = core.globalDelay.withLockedValue { $0 }
        answer = .stub(plan.stub, note: nil)
        switch plan.action {
        case .fail(let error):
            if let fault = plan.fault {
                kind = .fault(fault, error, deadline(plan.responseDeadline))
                answer = .stub(plan.stub, note: ": fault \(fault)")
            } else {
                kind = .failure(error, deadline(plan.responseDeadline))
                answer = .stub(plan.stub, note: ": error \(error), so the connection closes without a response")
            }
        case .respond(let response):
            if let problem = Self.problem(with: response) {
                prepareText(
                    status: .internalServerError,
                    text: "The response of \(plan.stub) cannot be sent: \(problem). Fix the stub.\n",
                    outcome: "\(plan.stub) (invalid response)")
                return
            }
            var headers = NIOHTTP1.HTTPHeaders()
            for field in response.headers {
                headers.add(name: field.name.rawValue, value: field.value)
            }
            if let id = plan.stub.mappingIDText {
                headers.add(name: "Matched-Stub-Id", value: id)
                if let name = plan.stub.name { headers.add(name: "Matched-Stub-Name", value: HeaderText.value(name)) }
            }
            let status: HTTPResponseStatus =
                response.reasonPhrase.map {
                    .custom(code: UInt(response.statusCode.rawValue), reasonPhrase: $0)
                } ?? HTTPResponseStatus(statusCode: response.statusCode.rawValue)
            let sendsBody = requestHead.method != .HEAD && ![204, 304].contains(response.statusCode.rawValue)
            body = response.body
            chunks =
                sendsBody
                ? plan.chunks.map { TimedChunk(range: $0.range, deadline: deadline($0.deadline)) } : []
            setHead(status: status, headers: headers, deadline: deadline(plan.responseDeadline))
        }
    }

    /// Prepares a response that an upstream will send: its head and body arrive later.
    func prepareProxied(outcome: String) {
        answer = .text(outcome)
        headReady = false
        bodyComplete = false
        body = Data()
        chunks = []
    }

    /// The upstream's head arrived.
    func receiveUpstreamHead(status: HTTPResponseStatus, headers: NIOHTTP1.HTTPHeaders) {
        setHead(status: status, headers: headers, deadline: .now())
        headReady = true
    }

    /// More of the upstream's body arrived; past the backlog a slow client may have, the upstream waits.
    func receiveUpstreamBody(_ part: ByteBuffer) {
        guard requestHead.method != .HEAD else { return }
        upstreamParts.append(part)
        upstreamBacklog += part.readableBytes
        if upstreamBacklog > StubRequestHandler.upstreamBacklog {
            upstreamFlow.close()
        }
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
        self.body = body
        headers.add(name: "Content-Length", value: String(body.count))
        chunks = requestHead.method == .HEAD ? [] : [TimedChunk(range: 0..<body.count, deadline: receivedAt)]
        setHead(status: status, headers: headers, deadline: receivedAt)
    }

    private func setHead(status: HTTPResponseStatus, headers: NIOHTTP1.HTTPHeaders, deadline: NIODeadline) {
        var headers = headers
        let closes = headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
        keepAlive = requestHead.isKeepAlive && !closes
        if !keepAlive, !closes {
            headers.replaceOrAdd(name: "Connection", value: "close")
        } else if keepAlive, requestHead.version == .http1_0, !headers.contains(name: "connection") {
            headers.add(name: "Connection", value: "keep-alive")
        }
        statusCode = Int(status.code)
        responseHead = HTTPResponseHead(version: requestHead.version, status: status, headers: headers)
        headDeadline = deadline
    }

    /// Why a response cannot go on the wire, or `nil`.
    static func problem(with response: HTTPResponsePlan.Response) -> String? {
        let code = response.statusCode.rawValue
        if code < 200 {
            return "\(code) is an informational status, which cannot end a response; use 200 to 599"
        }
        if let reason = response.reasonPhrase, reason.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
            return "its status message contains a line break"
        }
        for field in response.headers {
            let name = field.name.rawValue
            if name.isEmpty || !name.utf8.allSatisfy(isTokenByte) {
                return "the header name \"\(name)\" is not a valid HTTP field name"
            }
            if field.value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                return "the value of header \(name) contains a line break or another control character (only tabs "
                    + "may be in a header value)"
            }
        }
        return nil
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

/// Turns a request head and body into the request stubs see: `http://<Host><target>`.
enum IncomingRequestBuilder {
    struct InvalidTarget: Error, CustomStringConvertible {
        let description: String
    }

    static func make(_ head: HTTPRequestHead, body: ByteBuffer, authority: String) throws -> HTTPIncomingRequest {
        let url = try url(for: head, authority: authority)
        var headers = StuntDouble.HTTPHeaders()
        for (name, value) in head.headers {
            headers.add(name: StuntDouble.HTTPHeaders.Name(rawValue: name), value: value)
        }
        let bytes = body.readableBytes > 0 ? Data(body.readableBytesView) : nil
        let hasBody =
            bytes != nil || head.headers.contains(name: "content-length")
            || head.headers.contains(name: "transfer-encoding")
        return try HTTPIncomingRequest(
            method: StuntDouble.HTTPMethod(rawValue: head.method.rawValue), url: url, headers: headers,
            body: hasBody ? (bytes ?? Data()) : nil)
    }

    static func url(for head: HTTPRequestHead, authority: String) throws -> URL {
        let target = head.uri
        if target.hasPrefix("/") {
            let host = head.headers.first(name: "host").flatMap { isAuthority($0) ? $0 : nil } ?? authority
            if let url = URL(string: "http://\(host)\(target)") { return url }
            // Characters a URL may not hold (a `|` or `"` that a lenient client sent): encode them.
            var allowed = CharacterSet.urlQueryAllowed
            allowed.insert(charactersIn: "%#")
            if let encoded = target.addingPercentEncoding(withAllowedCharacters: allowed),
                let url = URL(string: "http://\(host)\(encoded)")
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
        !value.isEmpty
            && value.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"),
                    UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "_"):
                    return true
                default:
                    return false
                }
            }
    }
}
