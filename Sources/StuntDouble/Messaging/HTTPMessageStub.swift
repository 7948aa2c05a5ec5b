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

/// What a message must be for a message stub to answer it (WireMock's message body patterns).
public struct HTTPMessagePattern: Sendable, CustomStringConvertible {
    private let test: @Sendable (HTTPStubMessage) -> Bool
    /// What the pattern asks for, for reports.
    public let description: String

    /// A pattern from a test of the message.
    /// - Parameters:
    ///   - description: What it asks for, for reports.
    ///   - test: Whether a message matches.
    public init(_ description: String, _ test: @escaping @Sendable (HTTPStubMessage) -> Bool) {
        self.description = description
        self.test = test
    }

    /// Whether a message matches.
    /// - Parameter message: The message.
    /// - Returns: Whether it matches.
    public func matches(_ message: HTTPStubMessage) -> Bool { test(message) }

    /// Any message.
    public static let any = HTTPMessagePattern("any message") { _ in true }

    /// A message whose text is this.
    /// - Parameter text: The text.
    /// - Returns: The pattern.
    public static func equalTo(_ text: String) -> HTTPMessagePattern {
        HTTPMessagePattern("text equal to \(text.debugDescription)") { $0.text == text }
    }

    /// A message whose text contains this.
    /// - Parameter text: The text.
    /// - Returns: The pattern.
    public static func contains(_ text: String) -> HTTPMessagePattern {
        HTTPMessagePattern("text containing \(text.debugDescription)") { $0.text.contains(text) }
    }

    /// A message whose text is JSON equal to this (members in any order; numbers by value).
    /// - Parameter json: The JSON text.
    /// - Returns: The pattern.
    public static func json(_ json: String) -> HTTPMessagePattern {
        let expected = try? JSONValue.parse(Data(json.utf8))
        return HTTPMessagePattern("JSON equal to \(json)") { message in
            guard let expected, let actual = try? JSONValue.parse(Data(message.text.utf8)) else { return false }
            return actual == expected
        }
    }

    /// A binary message of these bytes.
    /// - Parameter data: The bytes.
    /// - Returns: The pattern.
    public static func binary(_ data: Data) -> HTTPMessagePattern {
        HTTPMessagePattern("\(data.count) bytes") { $0 == .binary(data) }
    }
}

/// A stub for WebSocket channels (WireMock's message stub mapping): when a channel opens, or a message arrives on
/// one, it sends messages (to that channel or to every channel matching a pattern), after delays, or closes the
/// channel.
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
        /// Sends a message, made from the trigger's message (`nil` on connect) and the channel's initiating
        /// request, to a target after a delay in seconds.
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
    private let state = Locked(State())

    /// Creates a stub that answers any message on any channel with nothing, until actions are added.
    /// - Parameter name: A name for reports.
    public init(name: String? = nil) {
        self.name = name
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

    /// Sends a message made from the trigger's message (`nil` on connect) and the channel's initiating request.
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
