import Foundation

/// A WebSocket message: text or bytes.
public enum HTTPStubMessage: Hashable, Sendable, CustomStringConvertible {
    /// A text frame.
    case text(String)
    /// A binary frame.
    case binary(Data)

    /// The message's text: a binary message's bytes read as UTF-8.
    public var text: String {
        switch self {
        case .text(let text): text
        case .binary(let data): String(decoding: data, as: UTF8.self)
        }
    }

    /// `"hello"`, or `12 bytes`.
    public var description: String {
        switch self {
        case .text(let text): text.debugDescription
        case .binary(let data): "\(data.count) bytes"
        }
    }
}

/// A stub for WebSocket channels (WireMock's message stub mapping): when a channel opens, a message arrives on
/// one, or an HTTP request comes, it sends messages (to that channel or to every channel matching a pattern),
/// after delays, or closes the channel.
///
/// Of the stubs whose trigger matches a message, one acts: the highest ``priority``, then the last added. An HTTP
/// request or a channel opening sets off every stub whose trigger matches it, in that order.
///
/// ```swift
/// stubber.add(
///     messageStub: HTTPMessageStub(name: "echo")
///         .on(channel: HTTPRequestPattern().match(URL: "wss://chat.example.com/rooms/1"))
///         .onMessage(.any)
///         .send { message, _ in .text("echo: \(message?.text ?? "")") })
/// ```
public final class HTTPMessageStub: Sendable, CustomStringConvertible {
    /// When the stub acts.
    public enum Trigger: Sendable {
        /// When a channel opens.
        case connect
        /// When a message matching the pattern arrives.
        case message(HTTPMessagePattern)
        /// When the stubber receives an HTTP request matching the pattern (answered by a stub or not), on any
        /// delivery path (WireMock's `http-request` trigger). There is no originating channel: send to channels.
        case request(HTTPRequestPattern)
        /// When a stub that passes the test answers an HTTP request (WireMock's `http-stub` trigger). There is no
        /// originating channel: send to channels.
        case served(@Sendable (HTTPStubRequest) -> Bool)
    }

    /// Where a stub sends.
    public enum Target: Sendable {
        /// The channel the trigger happened on.
        case originating
        /// Every open channel whose initiating request matches the pattern.
        case channels(HTTPRequestPattern)
    }

    /// What a stub does.
    public enum Action: Sendable {
        /// Sends a message, made from the trigger's message (`nil` on connect and for HTTP triggers) and the
        /// channel's initiating request (or the HTTP request that set it off), to a target after a delay in seconds.
        case send(
            @Sendable (HTTPStubMessage?, HTTPIncomingRequest) -> HTTPStubMessage, to: Target, delay: TimeInterval)
        /// Closes the originating channel with a close code and reason, after a delay in seconds.
        case close(code: Int, reason: String, delay: TimeInterval)
    }

    private struct State: Sendable {
        var channel: HTTPRequestPattern?
        var trigger = Trigger.message(.any)
        var actions: [Action] = []
    }

    /// The stub's name, for reports.
    public let name: String?
    /// Among stubs matching a message, the highest priority acts (then the last added).
    public let priority: Int
    private let state = Locked(State())

    /// Creates a stub that answers any message on any channel with nothing, until actions are added.
    /// - Parameters:
    ///   - name: A name for reports.
    ///   - priority: Among stubs matching a message, the highest priority acts (then the last added).
    public init(name: String? = nil, priority: Int = 0) {
        self.name = name
        self.priority = priority
    }

    /// `message stub "echo"`.
    public var description: String { name.map { "message stub \"\($0)\"" } ?? "message stub" }

    /// Acts only on channels whose initiating request (the upgrade) matches the pattern.
    /// - Parameter pattern: The pattern.
    /// - Returns: The stub.
    @discardableResult
    public func on(channel pattern: HTTPRequestPattern) -> Self {
        state.withLock { $0.channel = pattern }
        return self
    }

    /// Acts when a message matching the pattern arrives.
    /// - Parameter pattern: The pattern.
    /// - Returns: The stub.
    @discardableResult
    public func onMessage(_ pattern: HTTPMessagePattern) -> Self {
        state.withLock { $0.trigger = .message(pattern) }
        return self
    }

    /// Acts when a channel opens.
    /// - Returns: The stub.
    @discardableResult
    public func onConnect() -> Self {
        state.withLock { $0.trigger = .connect }
        return self
    }

    /// Acts when the stubber receives an HTTP request matching the pattern, whether a stub answers it or not.
    /// - Parameter pattern: The pattern.
    /// - Returns: The stub.
    @discardableResult
    public func onRequest(_ pattern: HTTPRequestPattern) -> Self {
        state.withLock { $0.trigger = .request(pattern) }
        return self
    }

    /// Acts when a stub answers an HTTP request.
    /// - Parameter stub: The stub.
    /// - Returns: The stub.
    @discardableResult
    public func onServed(by stub: HTTPStubRequest) -> Self {
        onServed { [weak stub] in $0 === stub }
    }

    /// Acts when a stub that passes a test answers an HTTP request.
    /// - Parameter test: Which stubs.
    /// - Returns: The stub.
    @discardableResult
    public func onServed(where test: @escaping @Sendable (HTTPStubRequest) -> Bool) -> Self {
        state.withLock { $0.trigger = .served(test) }
        return self
    }

    /// Sends a message.
    /// - Parameters:
    ///   - message: The message.
    ///   - target: Where; the originating channel by default.
    ///   - delay: Seconds to wait first.
    /// - Returns: The stub.
    @discardableResult
    public func send(_ message: HTTPStubMessage, to target: Target = .originating, after delay: TimeInterval = 0)
        -> Self
    {
        send(to: target, after: delay) { _, _ in message }
    }

    /// Sends a message made from the trigger's message (`nil` on connect and for HTTP triggers) and the channel's
    /// initiating request (or the HTTP request that set the stub off).
    /// - Parameters:
    ///   - target: Where; the originating channel by default.
    ///   - delay: Seconds to wait first.
    ///   - make: Makes the message.
    /// - Returns: The stub.
    @discardableResult
    public func send(
        to target: Target = .originating, after delay: TimeInterval = 0,
        _ make: @escaping @Sendable (HTTPStubMessage?, HTTPIncomingRequest) -> HTTPStubMessage
    ) -> Self {
        state.withLock { $0.actions.append(.send(make, to: target, delay: delay)) }
        return self
    }

    /// Closes the originating channel.
    /// - Parameters:
    ///   - code: The close code (1000 is a normal closure).
    ///   - reason: The reason.
    ///   - delay: Seconds to wait first.
    /// - Returns: The stub.
    @discardableResult
    public func close(code: Int = 1000, reason: String = "", after delay: TimeInterval = 0) -> Self {
        state.withLock { $0.actions.append(.close(code: code, reason: reason, delay: delay)) }
        return self
    }

    /// The stub's trigger and actions.
    var definition: (channel: HTTPRequestPattern?, trigger: Trigger, actions: [Action]) {
        state.withLock { ($0.channel, $0.trigger, $0.actions) }
    }
}

extension HTTPMessageStub.Action {
    /// The seconds the action waits after its trigger.
    var delay: TimeInterval {
        switch self {
        case .send(_, _, let delay), .close(_, _, let delay): delay
        }
    }
}
