import Foundation

/// An open WebSocket channel a stubber serves: the request that opened it, and how to reach its client.
public final class HTTPMessageChannel: Sendable, CustomStringConvertible {
    /// What reaches a channel's client.
    package enum Event: Sendable {
        case message(HTTPStubMessage)
        case close(code: Int, reason: String)
    }

    /// The channel's identity.
    public let id = UUID()
    /// The request that opened it (the WebSocket upgrade).
    public let request: HTTPIncomingRequest
    let deliver: @Sendable (Event) -> Void

    init(request: HTTPIncomingRequest, deliver: @escaping @Sendable (Event) -> Void) {
        self.request = request
        self.deliver = deliver
    }

    /// `channel GET wss://chat.example.com/rooms/1`.
    public var description: String { "channel \(request.method) \(request.url.absoluteString)" }
}

/// A message in a stubber's message journal: received from a channel's client, or sent to it.
public struct HTTPMessageJournalEntry: Sendable, CustomStringConvertible {
    /// Which way the message went.
    public enum Direction: String, Sendable {
        /// From the client.
        case received
        /// To the client.
        case sent
    }

    /// The entry's identity.
    public let id = UUID()
    /// Which way the message went.
    public let direction: Direction
    /// The channel.
    public let channel: HTTPMessageChannel
    /// The message.
    public let message: HTTPStubMessage
    /// The stub that answered a received message, or sent a sent one; `nil` when none did.
    public let stub: HTTPMessageStub?
    /// When.
    public let date: Date

    /// `received "ping" on channel GET wss://...`.
    public var description: String {
        "\(direction.rawValue) \(message) on \(channel)" + (stub.map { " (\($0))" } ?? "")
    }
}

/// A stubber's WebSocket side: its message stubs, open channels and message journal.
final class MessageHub: Sendable {
    struct State: Sendable {
        var stubs: [HTTPMessageStub] = []
        var channels: [UUID: HTTPMessageChannel] = [:]
        var journal: [HTTPMessageJournalEntry] = []
    }

    let state = Locked(State())
}

extension HTTPStubber {
    /// Adds a message stub: channels (WebSocket connections) are answered by it. The last added is tried first.
    /// - Parameter messageStub: The stub.
    public func add(messageStub: HTTPMessageStub) {
        messaging.state.withLock { $0.stubs.append(messageStub) }
    }

    /// The message stubs, in the order added.
    public var messageStubs: [HTTPMessageStub] {
        messaging.state.withLock { $0.stubs }
    }

    /// The open channels.
    public var channels: [HTTPMessageChannel] {
        messaging.state.withLock { Array($0.channels.values) }
    }

    /// Every message received from or sent to a channel's client, in order.
    public var messageJournal: [HTTPMessageJournalEntry] {
        messaging.state.withLock { $0.journal }
    }

    /// Sends a message to every open channel whose initiating request matches a pattern (WireMock's
    /// `POST /__admin/channels/send`).
    /// - Parameters:
    ///   - message: The message.
    ///   - pattern: Which channels; every one by default.
    /// - Returns: How many channels it was sent to.
    @discardableResult
    public func send(_ message: HTTPStubMessage, toChannelsMatching pattern: HTTPRequestPattern = HTTPRequestPattern())
        -> Int
    {
        send(message, toChannelsWhere: pattern.matches).count
    }

    /// Forgets every message in the message journal.
    public func resetMessageJournal() {
        messaging.state.withLock { $0.journal = [] }
    }

    /// Sends a message to every open channel whose initiating request passes a test; returns those channels.
    package func send(_ message: HTTPStubMessage, toChannelsWhere test: (HTTPIncomingRequest) -> Bool)
        -> [HTTPMessageChannel]
    {
        let targets = messaging.state.withLock { $0.channels.values.filter { test($0.request) } }
        for channel in targets { deliver(message, to: channel, from: nil) }
        return targets
    }

    /// The messages received on channels whose initiating request matches `channel`, that match `message`.
    /// - Parameters:
    ///   - message: What the messages must be.
    ///   - channel: Which channels; every one by default.
    /// - Returns: The journal's entries, in order.
    public func messages(
        received message: HTTPMessagePattern, onChannelsMatching channel: HTTPRequestPattern = HTTPRequestPattern()
    ) -> [HTTPMessageJournalEntry] {
        messageJournal.filter {
            $0.direction == .received && channel.matches($0.channel.request) && message.matches($0.message)
        }
    }

    /// Checks that channels matching `channel` received a message matching `message`.
    /// - Parameters:
    ///   - message: What a message must be.
    ///   - channel: Which channels; every one by default.
    /// - Throws: ``HTTPStubberError`` with code `verificationFailed`, quoting the messages received, when none
    ///   matched.
    public func verify(
        received message: HTTPMessagePattern, onChannelsMatching channel: HTTPRequestPattern = HTTPRequestPattern()
    ) throws(HTTPStubberError) {
        guard messages(received: message, onChannelsMatching: channel).isEmpty else { return }
        let received = messageJournal.filter { $0.direction == .received }
        throw HTTPStubberError(
            code: .verificationFailed,
            message: "No message matching \(message) was received on \(channel). "
                + (received.isEmpty
                    ? "No message was received at all."
                    : "Received:\n" + received.map { "- \($0)" }.joined(separator: "\n")))
    }

    // MARK: - For delivery paths

    /// Opens a channel for an initiating request; `deliver` reaches its client. Stubs that act on connect act.
    package func openChannel(
        _ request: HTTPIncomingRequest, deliver: @escaping @Sendable (HTTPMessageChannel.Event) -> Void
    ) -> HTTPMessageChannel {
        let channel = HTTPMessageChannel(request: request, deliver: deliver)
        let stubs = messaging.state.withLock { state in
            state.channels[channel.id] = channel
            return state.stubs
        }
        for stub in stubs.reversed() {
            let definition = stub.definition
            guard case .connect = definition.trigger, definition.channel?.matches(request) ?? true else { continue }
            act(definition.actions, of: stub, on: channel, message: nil)
        }
        return channel
    }

    /// A message from a channel's client: journaled, and answered by the last added stub that matches it.
    package func receive(_ message: HTTPStubMessage, on channel: HTTPMessageChannel) {
        let stubs = messaging.state.withLock { $0.stubs }
        let stub = stubs.reversed().first { stub in
            let definition = stub.definition
            guard case .message(let pattern) = definition.trigger else { return false }
            return (definition.channel?.matches(channel.request) ?? true) && pattern.matches(message)
        }
        journal(.received, message, on: channel, stub: stub)
        if let stub { act(stub.definition.actions, of: stub, on: channel, message: message) }
    }

    /// The channel's client left, or it was closed.
    package func closeChannel(_ channel: HTTPMessageChannel) {
        _ = messaging.state.withLock { $0.channels.removeValue(forKey: channel.id) }
    }

    private func act(
        _ actions: [HTTPMessageStub.Action], of stub: HTTPMessageStub, on channel: HTTPMessageChannel,
        message: HTTPStubMessage?
    ) {
        guard !actions.isEmpty else { return }
        let start = ContinuousClock.now
        Task {
            // Each action's delay counts from the trigger; they run in order.
            for action in actions {
                switch action {
                case .send(let make, let target, let delay):
                    try? await Task.sleep(until: start + .seconds(delay), clock: .continuous)
                    let sent = make(message, channel.request)
                    switch target {
                    case .originating:
                        deliver(sent, to: channel, from: stub)
                    case .channels(let pattern):
                        let targets = messaging.state.withLock {
                            $0.channels.values.filter { pattern.matches($0.request) }
                        }
                        for target in targets { deliver(sent, to: target, from: stub) }
                    }
                case .close(let code, let reason, let delay):
                    try? await Task.sleep(until: start + .seconds(delay), clock: .continuous)
                    closeChannel(channel)
                    channel.deliver(.close(code: code, reason: reason))
                }
            }
        }
    }

    private func deliver(_ message: HTTPStubMessage, to channel: HTTPMessageChannel, from stub: HTTPMessageStub?) {
        let isOpen = messaging.state.withLock { $0.channels[channel.id] != nil }
        guard isOpen else { return }
        journal(.sent, message, on: channel, stub: stub)
        channel.deliver(.message(message))
    }

    private func journal(
        _ direction: HTTPMessageJournalEntry.Direction, _ message: HTTPStubMessage, on channel: HTTPMessageChannel,
        stub: HTTPMessageStub?
    ) {
        let entry = HTTPMessageJournalEntry(
            direction: direction, channel: channel, message: message, stub: stub, date: Date())
        messaging.state.withLock { $0.journal.append(entry) }
    }
}
