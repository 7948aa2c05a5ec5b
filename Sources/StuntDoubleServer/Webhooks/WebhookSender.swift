import AsyncHTTPClient
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleWireMock

/// Sends stubs' webhooks (and OpenAPI documents' callbacks) after their responses have been sent, and keeps what became of the latest ones for the
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
        /// The journal entry of the request whose response the webhook followed; `nil` for a webhook fired
        /// through the admin API.
        let entry: Int?
        /// Where the webhook is written (`mappings/orders.json:12:9`).
        let origin: String
        let method: String
        let url: String
        let scheduledAt: Date
        let delay: Duration
        var outcome: Outcome
        /// What the call, or the target's answer, breaks (an OpenAPI document's callback schema).
        var notes: [String] = []
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
    /// The targets calls may reach (WireMock 3 checks webhooks' as it checks proxying's), or `nil` for any.
    private let targetRules: HTTPStubServer.Configuration.ProxyTargetRules?

    init(logger: Logger, targetRules: HTTPStubServer.Configuration.ProxyTargetRules? = nil) {
        self.logger = logger
        self.targetRules = targetRules
    }

    /// The calls kept, newest first.
    var events: [Event] {
        state.withLockedValue { $0.events.suffix(Self.capacity).reversed() }
    }

    /// Forgets the calls kept, pending ones too (those are still sent, and logged).
    func clear() {
        state.withLockedValue { $0.events.removeAll() }
    }

    /// Sends the calls a stub makes after answering a request (journal entry `entry`): its mapping's webhooks,
    /// its document's callbacks, each after its delay.
    func send(
        _ followUps: [any StubFollowUp], after request: HTTPIncomingRequest,
        answered response: HTTPResponsePlan.Response?, entry: Int, client: HTTPClient?
    ) {
        for call in followUps.flatMap({ $0.calls(after: request, answered: response) }) {
            _ = schedule(call, entry: entry, client: client)
        }
    }

    /// Sends one call now (a webhook fired through the admin API) and waits for what becomes of it.
    func sendNow(_ call: WebhookCall, client: HTTPClient?) async -> Event? {
        guard let number = schedule(call, entry: nil, client: client) else { return nil }
        let task = state.withLockedValue { $0.tasks[number] }
        await task?.value
        return state.withLockedValue { state in state.events.last { $0.number == number } }
    }

    /// Starts a call's task, numbered; `nil` (and logged) when it cannot wait any more.
    private func schedule(_ call: WebhookCall, entry: Int?, client: HTTPClient?) -> Int? {
        let scheduled: Result<Int, WebhookRefusal> = state.withLockedValue { state in
            guard !state.isStopped else { return .failure(WebhookRefusal("the server is stopping")) }
            guard state.tasks.count < Self.pendingLimit else {
                return .failure(WebhookRefusal("\(Self.pendingLimit) webhook calls are waiting already"))
            }
            let number = state.nextNumber
            state.nextNumber += 1
            // Made under the lock, so that the task is known before it can end (it waits for the lock).
            state.tasks[number] = Task {
                await self.fire(call, number: number, entry: entry, client: client)
                self.state.withLockedValue { _ = $0.tasks.removeValue(forKey: number) }
            }
            return .success(number)
        }
        switch scheduled {
        case .success(let number): return number
        case .failure(let refusal):
            logger.error("A webhook of \(call.origin)\(Self.after(entry)) was not sent: \(refusal).")
            return nil
        }
    }

    /// `, after request #12`, or nothing for a call the admin API fired.
    private static func after(_ entry: Int?) -> String {
        entry.map { ", after request #\($0)" } ?? ", fired through the admin API"
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

    private func fire(_ call: WebhookCall, number: Int, entry: Int?, client: HTTPClient?) async {
        record(
            Event(
                number: number, entry: entry, origin: call.origin, method: call.method, url: call.urlText,
                scheduledAt: Date(), delay: call.delay, outcome: .pending, notes: call.warnings))
        let name = "webhook \(call.method) \(call.urlText) (\(call.origin)\(Self.after(entry)))"
        if let problem = call.problem {
            return fail(number, "The \(name) cannot be sent: \(problem).")
        }
        for warning in call.warnings {
            logger.warning("The \(name) breaks its document: \(warning)")
        }
        guard let client else {
            return fail(number, "The \(name) was not sent: the server is not running.")
        }
        do {
            if call.delay > .zero { try await Task.sleep(for: call.delay) }
            if let targetRules, let host = URL(string: call.urlText)?.host, !(await targetRules.permits(host: host)) {
                return fail(
                    number,
                    "The target address of the \(name) is denied in the server's configuration "
                        + "(--allow-proxy-targets, --deny-proxy-targets): it was not sent.")
            }
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
            var isCut = false
            for try await part in response.body {
                var part = part
                guard answer.readableBytes < Self.answerLimit else {
                    isCut = isCut || part.readableBytes > 0
                    continue
                }
                let length = min(part.readableBytes, Self.answerLimit - answer.readableBytes)
                isCut = isCut || length < part.readableBytes
                if let slice = part.readSlice(length: length) {
                    answer.writeImmutableBuffer(slice)
                }
            }
            let took = ContinuousClock.now - started
            let status = Int(response.status.code)
            var broken: [String] = []
            if isCut, call.answerCheck != nil {
                broken.append("the answer is over \(Self.answerLimit / 1024) KiB: only its status was checked")
            }
            if let check = call.answerCheck {
                var headers = StuntDouble.HTTPHeaders()
                for field in response.headers {
                    headers.add(name: StuntDouble.HTTPHeaders.Name(rawValue: field.name), value: field.value)
                }
                broken += check(status, headers, isCut ? Data() : Data(answer.readableBytesView)).filter {
                    !isCut || !$0.hasPrefix("body")
                }
            }
            update(number, .answered(status: status, took: took), adding: broken)
            logger.info(
                "The \(name) returned status \(status)\(answer.readableBytes > 0 ? ": " + String(buffer: answer) : "")")
            for violation in broken {
                logger.warning("The answer to the \(name) breaks its document: \(violation)")
            }
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

    private func update(_ number: Int, _ outcome: Event.Outcome, adding notes: [String] = []) {
        state.withLockedValue { state in
            // Recent events are at the end.
            if let index = state.events.lastIndex(where: { $0.number == number }) {
                state.events[index].outcome = outcome
                state.events[index].notes += notes
            }
        }
    }
}
