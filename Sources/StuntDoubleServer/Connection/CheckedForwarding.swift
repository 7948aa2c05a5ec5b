import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StuntDouble

/// A validating proxy's hold on an upstream's answer (`serve --openapi X --proxy URL`): the answer is kept until it
/// has all arrived, checked whole by the loaded documents, and passed on with what it and the request break in
/// `StuntDouble-Violations` (or replaced, when violations are errors). An event stream, or an answer larger than
/// `limit`, is passed on as it comes after its head: its body is not checked, and the log says so.
final class CheckedForwarding: Sendable {
    private struct State {
        var head: (status: HTTPResponseStatus, headers: NIOHTTP1.HTTPHeaders)?
        var body = ByteBuffer()
        /// Each rule broken, `request: ...` or `answer: ...`.
        var notes: [String] = []
        /// Passing events on as they come.
        var isStreaming = false
    }

    /// The header naming what the exchange breaks.
    static let header = "StuntDouble-Violations"

    let checks: [HTTPForwardedCheck]
    /// What the request breaks, on one line.
    let requestSummary: String?
    let limit: Int
    /// Takes what the checks found about the answer (for the journal), and a note when its body was not checked.
    private let found: @Sendable (_ annotations: [any HTTPJournalAnnotation], _ unchecked: String?) -> Void
    private let state = NIOLockedValueBox(State())

    init(
        checks: [HTTPForwardedCheck], limit: Int = 32 << 20,
        found: @escaping @Sendable (_ annotations: [any HTTPJournalAnnotation], _ unchecked: String?) -> Void
    ) {
        self.checks = checks
        let summaries = checks.compactMap(\.request.summary)
        requestSummary = summaries.isEmpty ? nil : summaries.joined(separator: "; ")
        self.limit = limit
        self.found = found
        let requestNotes = checks.flatMap(\.request.annotations).flatMap(\.lines).map { "request: " + $0 }
        state.withLockedValue { $0.notes = requestNotes }
    }

    /// Each rule the exchange breaks, `request: ...` or `answer: ...` (the answer's once it has all arrived): what
    /// a recording made through the proxy writes into the mapping.
    var notes: [String] { state.withLockedValue { $0.notes } }

    /// What to pass on for an event of the upstream's: nothing while the answer is held, all of it at its end;
    /// `streamed` when the event itself is passed on (its bytes reach the event loop as any proxied part does).
    func pass(_ event: UpstreamEvent) -> (events: [UpstreamEvent], streamed: Bool) {
        let (events, unchecked, annotations, streamed) = state.withLockedValue { state in
            let streamed = state.isStreaming
            let (events, unchecked, annotations) = passLocked(event, state: &state)
            return (events, unchecked, annotations, streamed)
        }
        if unchecked != nil || !annotations.isEmpty { found(annotations, unchecked) }
        return (events, streamed)
    }

    private func passLocked(_ event: UpstreamEvent, state: inout State)
        -> ([UpstreamEvent], String?, [any HTTPJournalAnnotation])
    {
        if state.isStreaming { return ([event], nil, []) }
        switch event {
        case .head(let status, let headers):
            let type = headers.first(name: "content-type")?.lowercased() ?? ""
            guard !type.hasPrefix("text/event-stream") else {
                state.isStreaming = true
                return ([.head(status, withSummary(headers, [requestSummary]))], "an event stream", [])
            }
            state.head = (status, headers)
            return ([], nil, [])
        case .body(let part):
            var part = part
            state.body.writeBuffer(&part)
            guard state.body.readableBytes > limit, let head = state.head else { return ([], nil, []) }
            state.isStreaming = true
            let held = state.body
            state.body = ByteBuffer()
            return (
                [.head(head.status, withSummary(head.headers, [requestSummary])), .body(held)],
                "larger than " + (limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit) bytes"), []
            )
        case .end:
            guard let head = state.head else { return ([.end], nil, []) }
            let body = Data(state.body.readableBytesView)
            var headers = StuntDouble.HTTPHeaders()
            for field in head.headers { headers.add(name: .init(rawValue: field.name), value: field.value) }
            let findings = checks.map { $0.response(Int(head.status.code), headers, body) }
            let annotations = findings.flatMap(\.annotations)
            state.notes += annotations.flatMap(\.lines).map { "answer: " + $0 }
            if let replacement = findings.lazy.compactMap(\.replacement).first {
                return (Self.events(of: replacement), nil, annotations)
            }
            let answered = withSummary(head.headers, [requestSummary] + findings.map(\.summary))
            return ([.head(head.status, answered), .body(state.body), .end], nil, annotations)
        case .failed:
            return ([event], nil, [])
        }
    }

    private func withSummary(_ headers: NIOHTTP1.HTTPHeaders, _ summaries: [String?]) -> NIOHTTP1.HTTPHeaders {
        let found = summaries.compactMap { $0 }
        guard !found.isEmpty else { return headers }
        var headers = headers
        headers.replaceOrAdd(name: Self.header, value: found.joined(separator: "; "))
        return headers
    }

    /// A replacement answer as an upstream's events.
    private static func events(of response: HTTPStubResponse) -> [UpstreamEvent] {
        let body = response.body ?? Data()
        var headers = NIOHTTP1.HTTPHeaders()
        for field in response.headers { headers.add(name: field.name.rawValue, value: field.value) }
        if let type = response.contentType { headers.replaceOrAdd(name: "Content-Type", value: type.rawValue) }
        headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        return [
            .head(HTTPResponseStatus(statusCode: response.statusCode.rawValue), headers),
            .body(ByteBuffer(bytes: body)), .end,
        ]
    }
}
