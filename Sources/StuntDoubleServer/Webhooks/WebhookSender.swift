import AsyncHTTPClient
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleWireMock

/// Sends stubs' webhooks after their responses have been sent, and keeps what became of the latest ones for the
/// admin API (`GET /__admin/stuntdouble/webhooks`) and the traffic page. A webhook never changes the response
/// it follows: a failure is logged and kept, nothing more.
///
/// As WireMock's webhooks: each call waits for its delay, follows no redirect, gets 30 seconds to answer, and
/// sends a body only with `POST`, `PUT` and `PATCH`.
final class WebhookSender: Sendable {
    /// One webhook call: what was asked, and what became of it.
    struct Event: Sendable {
        enum Outcome: Sendable {
            /// Waiting for its delay, or for its answer.
            case pending
            /// The target answered (any status).
            case answered(status: Int, took: Duration)
            /// The call could not be made, or got no answer.
            case failed(String)
        }

        let number: Int
        /// The journal entry of the request whose response the webhook followed.
        let entry: Int
        /// Where the webhook is written (`mappings/orders.json:12:9`).
        let origin: String
        let method: String
        let url: String
        let scheduledAt: Date
        let delay: Duration
        var outcome: Outcome
    }

    /// How many calls are kept for the admin API.
    static let capacity = 500
    /// How long a target may take to answer, as in WireMock.
    static let timeout = TimeAmount.seconds(30)
    /// How much of a target's answer is read (the rest is discarded).
    static let answerLimit = 64 * 1024
    /// How many calls may wait at once (for their delay or their answer); more are not sent, and say so.
    static let pendingLimit = 10_000

    private struct State {
        var events: [Event] = []
        var nextNumber = 1
        var tasks: [Int: Task<Void, Never>] = [:]
        var isStopped = false
    }

    private let state = NIOLockedValueBox(State())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// The calls kept, newest first.
    var events: [Event] {
        state.withLockedValue { $0.events.suffix(Self.capacity).reversed() }
    }

    /// Forgets the calls kept, pending ones too (those are still sent, and logged).
    func clear() {
        state.withLockedValue { $0.events.removeAll() }
    }

    /// Sends a stub's webhooks for a request it answered (journal entry `entry`), each after its delay.
    func send(_ webhooks: [WebhookSpec], for request: HTTPIncomingRequest, entry: Int, client: HTTPClient?) {
        for webhook in webhooks {
            let refusal: String? = state.withLockedValue { state in
                guard !state.isStopped else { return "the server is stopping" }
                guard state.tasks.count < Self.pendingLimit else {
                    return "\(Self.pendingLimit) webhook calls are waiting already"
                }
                let number = state.nextNumber
                state.nextNumber += 1
                // Made under the lock, so that the task is known before it can end (it waits for the lock).
                state.tasks[number] = Task {
                    await self.fire(webhook, number: number, request: request, entry: entry, client: client)
                    self.state.withLockedValue { _ = $0.tasks.removeValue(forKey: number) }
                }
                return nil
            }
            if let refusal {
                logger.error("A webhook of \(webhook.origin), after request #\(entry), was not sent: \(refusal).")
            }
        }
    }

    /// Stops sending: calls still waiting for their delay or their answer are cancelled (and kept as failed).
    func stop() async {
        let tasks = state.withLockedValue { state in
            state.isStopped = true
            return Array(state.tasks.values)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    private func fire(
        _ webhook: WebhookSpec, number: Int, request: HTTPIncomingRequest, entry: Int, client: HTTPClient?
    ) async {
        let call = webhook.render(for: request)
        record(
            Event(
                number: number, entry: entry, origin: call.origin, method: call.method, url: call.urlText,
                scheduledAt: Date(), delay: call.delay, outcome: .pending))
        let name = "webhook \(call.method) \(call.urlText) (\(call.origin), after request #\(entry))"
        if let problem = call.problem {
            return fail(number, "The \(name) cannot be sent: \(problem).")
        }
        guard let client else {
            return fail(number, "The \(name) was not sent: the server is not running.")
        }
        do {
            if call.delay > .zero { try await Task.sleep(for: call.delay) }
            var outgoing = HTTPClientRequest(url: call.urlText)
            outgoing.method = HTTPMethod(rawValue: call.method)
            for (name, value) in call.headers {
                outgoing.headers.add(name: name, value: value)
            }
            if let body = call.body {
                outgoing.body = .bytes(ByteBuffer(bytes: body))
            }
            let started = ContinuousClock.now
            let response = try await client.execute(outgoing, timeout: Self.timeout)
            var answer = ByteBuffer()
            for try await part in response.body where answer.readableBytes < Self.answerLimit {
                var part = part
                if let slice = part.readSlice(length: min(part.readableBytes, Self.answerLimit - answer.readableBytes))
                {
                    answer.writeImmutableBuffer(slice)
                }
            }
            let took = ContinuousClock.now - started
            let status = Int(response.status.code)
            update(number, .answered(status: status, took: took))
            logger.info(
                "The \(name) returned status \(status)\(answer.readableBytes > 0 ? ": " + String(buffer: answer) : "")")
        } catch {
            if error is CancellationError || Task.isCancelled {
                fail(number, "The \(name) was not sent: the server stopped first.")
            } else {
                fail(number, "Failed to fire the \(name): \(error).")
            }
        }
    }

    private func fail(_ number: Int, _ message: String) {
        update(number, .failed(message))
        logger.error("\(message)")
    }

    private func record(_ event: Event) {
        state.withLockedValue { state in
            state.events.append(event)
            if state.events.count > Self.capacity * 2 {
                state.events.removeFirst(state.events.count - Self.capacity)
            }
        }
    }

    private func update(_ number: Int, _ outcome: Event.Outcome) {
        state.withLockedValue { state in
            // Recent events are at the end.
            if let index = state.events.lastIndex(where: { $0.number == number }) {
                state.events[index].outcome = outcome
            }
        }
    }
}
