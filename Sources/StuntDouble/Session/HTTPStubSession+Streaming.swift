import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPStubSession {
    /// Sends a request and returns its response as soon as the head is due, with the body as it arrives: each
    /// part when the stub delivers it (an ``HTTPStubEventStream``'s events, a throttled or dribbled body's
    /// chunks), as `URLSession.bytes(for:)` does where Foundation has it.
    ///
    /// ```swift
    /// let (body, response) = try await session.stream(for: request)
    /// for try await part in body {
    ///     parser.feed(part)  // an event of the stream, when it is due
    /// }
    /// ```
    ///
    /// The body ends when the response does; it fails as the request would (`URLError(.timedOut)` after the
    /// request's timeout with nothing received). To leave a stream that stays open, stop iterating (`break`),
    /// cancel the iterating task, or call ``Body/cancel()``: the stub's timers end with it, and the journal
    /// records the exchange as cancelled.
    /// - Parameter request: The request.
    /// - Returns: The parts of the body, in order, and the response.
    /// - Throws: As ``data(for:delegate:)`` does, when the request fails before its head.
    public func stream(for request: URLRequest) async throws -> (body: Body, response: URLResponse) {
        try await stream(for: request, planned: nil, relay: nil, failure: nil)
    }

    /// ``stream(for:)``, with a stubbed response handed to `planned` before its head, what goes to the
    /// network fetched by `relay` (by URLSession when `nil`), and a stubbed failure delivered as `failure`'s
    /// error (the plan's own when `nil`).
    package func stream(
        for request: URLRequest, planned: (@Sendable (HTTPResponsePlan.Response) -> Void)? = nil,
        relay: Relay? = nil, failure: (@Sendable (HTTPResponsePlan) -> any Error)? = nil
    ) async throws -> (body: Body, response: URLResponse) {
        guard !Task.isCancelled else { throw Self.cancelled(request.url) }
        let exchange = receive(request)
        let (body, parts) = AsyncThrowingStream<Data, any Error>.makeStream()
        let (heads, headReceiver) = AsyncThrowingStream<URLResponse, any Error>.makeStream()
        let headSent = Locked(false)
        let delivered = Locked(0)
        let receiver = Receiver(
            head: { head in
                headSent.withLock { $0 = true }
                headReceiver.yield(head)
                headReceiver.finish()
            },
            chunk: { part in
                delivered.withLock { $0 += part.count }
                parts.yield(part)
            },
            planned: planned, relay: relay, failure: failure)
        let player = Task {
            let played = await play(exchange, receiver: receiver)
            let headWasSent = headSent.withLock { $0 }
            switch played.outcome {
            case .success(let data, let response, _):
                if !headWasSent {
                    // Answered at once, relayed or forwarded: the head and the whole body now.
                    headReceiver.yield(response)
                    headReceiver.finish()
                    if !data.isEmpty { parts.yield(data) }
                    delivered.withLock { $0 = data.count }
                }
                // The journal first: a caller that reads it once the body ends finds the exchange complete.
                complete(played, response: response, error: nil, bodyByteCount: delivered.withLock { $0 })
                parts.finish()
            case .failure(let error, _):
                complete(played, received: (nil, nil, error))
                headReceiver.finish(throwing: error)
                parts.finish(throwing: error)
            }
        }
        parts.onTermination = { _ in player.cancel() }
        return try await withTaskCancellationHandler {
            for try await head in heads {
                return (Body(parts: body, player: player), head)
            }
            throw Self.cancelled(request.url)
        } onCancel: {
            player.cancel()
        }
    }
}

extension HTTPStubSession {
    /// The body of a ``HTTPStubSession/stream(for:)`` response: its parts, each when it is due. Iterate it once.
    public struct Body: AsyncSequence, Sendable {
        /// A part of the body.
        public typealias Element = Data
        /// What iterating can throw: the request's error.
        public typealias Failure = any Error

        let parts: AsyncThrowingStream<Data, any Error>
        let player: Task<Void, Never>

        /// Ends the response now: nothing more is delivered, and the iteration ends.
        public func cancel() {
            player.cancel()
        }

        /// Starts iterating.
        /// - Returns: The iterator.
        public func makeAsyncIterator() -> Iterator {
            Iterator(base: parts.makeAsyncIterator(), ending: Ending(player: player))
        }

        /// Iterates the body; when it is dropped before the end (a `break`), the response ends.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<Data, any Error>.Iterator
            let ending: Ending

            /// The next part, or `nil` at the end.
            /// - Returns: The part.
            /// - Throws: The request's error.
            public mutating func next() async throws -> Data? {
                try await base.next()
            }
        }

        /// Cancels the player when the last iterator of the body goes.
        final class Ending: Sendable {
            let player: Task<Void, Never>
            init(player: Task<Void, Never>) { self.player = player }
            deinit { player.cancel() }
        }
    }
}
