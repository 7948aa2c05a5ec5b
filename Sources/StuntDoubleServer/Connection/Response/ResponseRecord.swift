import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleWireMock

/// What the journal and the log keep of one response. It travels with the response, from where it is prepared
/// to where it ends (sent, cut short, or failed), and the handler records it there (`StubRequestHandler.finish`).
struct ResponseRecord: Sendable {
    /// What answered, for the log (worked out only when logged).
    enum Outcome: Sendable {
        /// A stub, and what became of its answer (a fault, an error), if anything.
        case stub(HTTPStubRequest, note: String?)
        /// The server's own answer, described.
        case text(String)
    }

    /// The calls the stub that answered makes once the response has been sent (its mapping's webhooks, its
    /// document's callbacks), with the request and the response they are made after. (A class: a record is moved
    /// several times a request, and what it holds directly must have a layout known when it is compiled, which
    /// Foundation's `Data` in a response has not.)
    final class FollowUps: Sendable {
        let calls: [any StubFollowUp]
        let request: HTTPIncomingRequest
        let response: HTTPResponsePlan.Response?

        init(calls: [any StubFollowUp], request: HTTPIncomingRequest, response: HTTPResponsePlan.Response?) {
            self.calls = calls
            self.request = request
            self.response = response
        }
    }

    /// The request's journal entry; `nil` for the admin API's answers, which are not journaled (nor logged here).
    let entry: Int?
    let method: NIOHTTP1.HTTPMethod
    let target: String
    /// When the request was received (on the event loop's clock: a clock of the concurrency library, whose layout
    /// is not known when this is compiled, made every copy of a record a runtime call).
    let received: NIODeadline
    /// The status sent, or `nil` while (or when) none is.
    var statusCode: Int?
    /// How many bytes of the body went out.
    var bytesWritten = 0
    var outcome: Outcome
    var followUps: FollowUps?
    /// Holds an upstream back while the client is slow (a proxied response's); let go when the response ends.
    var flow: UpstreamFlow?

    init(entry: Int?, request: HTTPRequestHead, received: NIODeadline, outcome: Outcome = .text("")) {
        self.entry = entry
        method = request.method
        target = request.uri
        self.received = received
        self.outcome = outcome
    }

    /// The record, leaving one that stands for nothing in its place: swapped out, where a copy would retain (and
    /// its end release) everything the record holds.
    mutating func take() -> ResponseRecord {
        var taken = ResponseRecord(entry: nil, method: .GET, target: "", received: received)
        swap(&taken, &self)
        return taken
    }

    private init(entry: Int?, method: NIOHTTP1.HTTPMethod, target: String, received: NIODeadline) {
        self.entry = entry
        self.method = method
        self.target = target
        self.received = received
        outcome = .text("")
    }

    /// What answered, as the log line says it.
    var outcomeDescription: String {
        switch outcome {
        case .stub(let stub, let note): stub.description + (note ?? "")
        case .text(let text): text
        }
    }
}

/// The parts of one write: as much of a response as is due and fits in a batch (its head, pieces of its body, its
/// end). They name no protocol: the connection's writer encodes them (`ResponseWriter`: HTTP/1.1 bytes with chunk
/// framing, or an HTTP/2 stream's parts). The first two body pieces, all of a usual response, are kept without an
/// array.
struct ResponseWrites: Sendable {
    /// The response's head, when this write starts it.
    private(set) var head: ResponseHead?
    private var first: ByteBuffer?
    private var second: ByteBuffer?
    private var more: [ByteBuffer] = []
    /// How many body pieces the write holds.
    private(set) var pieceCount = 0
    /// How many bytes (the head's encoded bytes and the pieces').
    private(set) var byteCount = 0
    /// Whether the response's body is framed in HTTP/1.1 chunks (the HTTP/1.1 writer wraps each piece).
    var chunked = false
    /// These parts as HTTP/1.1 bytes, made beforehand (a small response due at once: `WireResponse.encoded`).
    var encoded: ByteBuffer?
    /// The response these parts end: the handler reports with `ConnectionStateMachine.responseSent` once they have
    /// gone out (or failed to), then records it.
    var ends: ResponseRecord?

    init() {}

    var isEmpty: Bool { head == nil && pieceCount == 0 && ends == nil }

    mutating func append(head: ResponseHead) {
        self.head = head
        byteCount += head.encoded?.readableBytes ?? 64
    }

    mutating func append(body piece: ByteBuffer) {
        byteCount += piece.readableBytes
        switch pieceCount {
        case 0: first = piece
        case 1: second = piece
        default: more.append(piece)
        }
        pieceCount += 1
    }

    /// Calls `body` with each body piece in order.
    func forEachPiece(_ body: (ByteBuffer) -> Void) {
        if let first { body(first) }
        if let second { body(second) }
        for piece in more { body(piece) }
    }

    /// The body pieces in order.
    var pieces: [ByteBuffer] {
        var all: [ByteBuffer] = []
        forEachPiece { all.append($0) }
        return all
    }
}
