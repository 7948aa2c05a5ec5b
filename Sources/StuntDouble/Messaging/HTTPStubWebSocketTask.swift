import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an app needs of a WebSocket task, so that it can be given either `URLSessionWebSocketTask` or
/// ``HTTPStubWebSocketTask`` (in the style of ``URLSessionProtocol`` for data tasks).
///
/// ```swift
/// final class ChatClient {
///     let task: any WebSocketTaskProtocol
///     init(task: any WebSocketTaskProtocol) { self.task = task }   // URLSession's in the app, a stub in tests
/// }
/// ```
public protocol WebSocketTaskProtocol: AnyObject, Sendable {
    /// Opens the connection.
    func resume()
    /// Closes it with a close code and an optional reason.
    /// - Parameters:
    ///   - closeCode: The close code.
    ///   - reason: The reason, or `nil`.
    func cancel(with closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?)
    /// Sends a message.
    /// - Parameter message: The message.
    /// - Throws: When the connection is closed or failed.
    func send(_ message: URLSessionWebSocketTask.Message) async throws
    /// Receives the next message.
    /// - Returns: The message.
    /// - Throws: When the connection is closed or failed.
    func receive() async throws -> URLSessionWebSocketTask.Message
    /// Sends a ping; the handler is called when the pong comes, or with the error that stopped it.
    /// - Parameter pongReceiveHandler: Called with `nil` on the pong.
    func sendPing(pongReceiveHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// The close code the connection ended with (`.invalid` while open).
    var closeCode: URLSessionWebSocketTask.CloseCode { get }
    /// The reason the connection ended with, if any.
    var closeReason: Data? { get }
}

extension URLSessionWebSocketTask: WebSocketTaskProtocol {}

/// A WebSocket task answered by a stubber's message stubs (``HTTPMessageStub``), without a server or URLSession:
/// what it sends is matched against them, and what they send it receives, when due.
///
/// On Linux, URLSession's own `webSocketTask(with:)` cannot be stubbed (nor used, where libcurl lacks WebSockets:
/// see the Linux notes); inject ``WebSocketTaskProtocol`` and give tests this task.
///
/// ```swift
/// let task = HTTPStubWebSocketTask(stubber: stubber, request: URLRequest(url: chatURL))
/// task.resume()
/// try await task.send(.string("ping"))
/// let answer = try await task.receive()   // what the stub sends back
/// ```
public final class HTTPStubWebSocketTask: WebSocketTaskProtocol, @unchecked Sendable {
    private struct State {
        var channel: HTTPMessageChannel?
        var inbox: [HTTPStubMessage] = []
        var waiters: [CheckedContinuation<HTTPStubMessage?, Never>] = []
        var closed: (code: Int, reason: String)?
    }

    private let stubber: HTTPStubber
    private let request: URLRequest
    private let state = Locked(State())

    /// Creates a task for a request (a `ws://` or `wss://` URL), answered by a stubber.
    /// - Parameters:
    ///   - stubber: The stubber; the current test's by default.
    ///   - request: The request that opens the channel.
    public init(stubber: HTTPStubber = .current, request: URLRequest) {
        self.stubber = stubber
        self.request = request
    }

    /// Opens the channel: message stubs that act on connect act.
    public func resume() {
        guard state.withLock({ $0.channel == nil && $0.closed == nil }) else { return }
        guard let incoming = try? HTTPIncomingRequest(request) else {
            close(code: 1002, reason: "the request has no URL")
            return
        }
        let channel = stubber.openChannel(incoming) { [weak self] event in
            switch event {
            case .message(let message): self?.arrive(message)
            case .close(let code, let reason): self?.close(code: code, reason: reason)
            }
        }
        state.withLock { $0.channel = channel }
    }

    /// Closes the channel.
    /// - Parameters:
    ///   - closeCode: The close code.
    ///   - reason: The reason, or `nil`.
    public func cancel(with closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        if let channel = state.withLock({ $0.channel }) { stubber.closeChannel(channel) }
        close(code: closeCode.rawValue, reason: reason.map { String(decoding: $0, as: UTF8.self) } ?? "")
    }

    /// Sends a message: the stubs see it.
    /// - Parameter message: The message.
    /// - Throws: `URLError(.networkConnectionLost)` when the channel is closed, `URLError(.badURL)` before
    ///   ``resume()``.
    public func send(_ message: URLSessionWebSocketTask.Message) async throws {
        let (channel, closed) = state.withLock { ($0.channel, $0.closed) }
        if closed != nil { throw URLError(.networkConnectionLost) }
        guard let channel else { throw URLError(.badURL) }
        switch message {
        case .string(let text): stubber.receive(.text(text), on: channel)
        case .data(let data): stubber.receive(.binary(data), on: channel)
        @unknown default: throw URLError(.unsupportedURL)
        }
    }

    /// Receives the next message the stubs send, waiting for it.
    /// - Returns: The message.
    /// - Throws: `URLError(.networkConnectionLost)` once the channel is closed (``closeCode`` says how).
    public func receive() async throws -> URLSessionWebSocketTask.Message {
        let message = await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> HTTPStubMessage?? in
                if !state.inbox.isEmpty { return .some(state.inbox.removeFirst()) }
                if state.closed != nil { return .some(nil) }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        switch message {
        case .text(let text): return .string(text)
        case .binary(let data): return .data(data)
        case nil: throw URLError(.networkConnectionLost)
        }
    }

    /// Answers a ping as a server does: the pong comes at once while the channel is open.
    /// - Parameter pongReceiveHandler: Called with `nil`, or with `URLError(.networkConnectionLost)` once closed.
    public func sendPing(pongReceiveHandler: @escaping @Sendable ((any Error)?) -> Void) {
        let isClosed = state.withLock { $0.closed != nil }
        pongReceiveHandler(isClosed ? URLError(.networkConnectionLost) : nil)
    }

    /// The close code the channel ended with (`.invalid` while open).
    public var closeCode: URLSessionWebSocketTask.CloseCode {
        state.withLock { $0.closed.flatMap { URLSessionWebSocketTask.CloseCode(rawValue: $0.code) } ?? .invalid }
    }

    /// The close code the channel ended with as a number (0 while open): also the application's own codes (4000
    /// to 4999), which URLSession's `CloseCode` cannot hold (``closeCode`` is `.invalid` for them).
    public var closeCodeRawValue: Int {
        state.withLock { $0.closed?.code ?? 0 }
    }

    /// The reason the channel ended with, if any.
    public var closeReason: Data? {
        state.withLock { $0.closed.flatMap { $0.reason.isEmpty ? nil : Data($0.reason.utf8) } }
    }

    private func arrive(_ message: HTTPStubMessage) {
        let waiter = state.withLock { state -> CheckedContinuation<HTTPStubMessage?, Never>? in
            guard state.closed == nil else { return nil }
            if state.waiters.isEmpty {
                state.inbox.append(message)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: message)
    }

    private func close(code: Int, reason: String) {
        let waiters = state.withLock { state -> [CheckedContinuation<HTTPStubMessage?, Never>] in
            guard state.closed == nil else { return [] }
            state.closed = (code, reason)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }
}

extension HTTPStubSession {
    /// A WebSocket task answered by the session's stubber's message stubs (``HTTPMessageStub``), as
    /// `URLSession.webSocketTask(with:)` makes one.
    /// - Parameter request: The request that opens the channel.
    /// - Returns: The task; ``HTTPStubWebSocketTask/resume()`` opens it.
    public func webSocketTask(with request: URLRequest) -> HTTPStubWebSocketTask {
        HTTPStubWebSocketTask(stubber: stubber, request: request)
    }

    /// A WebSocket task for a URL.
    /// - Parameter url: The `ws://` or `wss://` URL.
    /// - Returns: The task.
    public func webSocketTask(with url: URL) -> HTTPStubWebSocketTask {
        webSocketTask(with: URLRequest(url: url))
    }
}
