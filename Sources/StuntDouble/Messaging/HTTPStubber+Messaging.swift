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
    let openness = Locked(true)

    /// Whether the channel is still open.
    public var isOpen: Bool { openness.withLock { $0 } }

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
    /// Adds a message stub: channels (WebSocket connections) are answered by it. Among stubs of equal priority,
    /// the last added is tried first.
    /// - Parameter messageStub: The stub.
    public func add(messageStub: HTTPMessageStub) {
        messaging.state.withLock { $0.stubs.append(messageStub) }
        state.withLock { $0.hasMessageStubs = true }
    }

    /// Removes a message stub.
    /// - Parameter messageStub: The stub.
    public func remove(messageStub: HTTPMessageStub) {
        let isEmpty = messaging.state.withLock { state in
            state.stubs.removeAll { $0 === messageStub }
            return state.stubs.isEmpty
        }
        if isEmpty { state.withLock { $0.hasMessageStubs = false } }
    }

    /// Removes every message stub.
    public func removeAllMessageStubs() {
        messaging.state.withLock { $0.stubs = [] }
        state.withLock { $0.hasMessageStubs = false }
    }

    /// The message stubs, in the order they are tried: highest priority first, then the last added.
    public var messageStubs: [HTTPMessageStub] {
        Self.precedence(messaging.state.withLock { $0.stubs })
    }

    /// The open channels.
    public var channels: [HTTPMessageChannel] {
        messaging.state.withLock { Array($0.channels.values) }
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

    /// Closes an open channel from the server's side.
    /// - Parameters:
    ///   - channel: The channel.
    ///   - code: The close code (1000, a normal closure, by default).
    ///   - reason: The reason.
    public func close(_ channel: HTTPMessageChannel, code: Int = 1000, reason: String = "") {
        let wasOpen = messaging.state.withLock { $0.channels.removeValue(forKey: channel.id) != nil }
        channel.openness.withLock { $0 = false }
        if wasOpen { channel.deliver(.close(code: code, reason: reason)) }
    }

    /// Sends a message to every open channel whose initiating request passes a test; returns those channels.
    package func send(_ message: HTTPStubMessage, toChannelsWhere test: (HTTPIncomingRequest) -> Bool)
        -> [HTTPMessageChannel]
    {
        let targets = messaging.state.withLock { $0.channels.values.filter { test($0.request) } }
        for channel in targets { deliver(message, to: channel, from: nil) }
        return targets
    }

    /// Stubs highest priority first, then the last added first.
    private static func precedence(_ stubs: [HTTPMessageStub]) -> [HTTPMessageStub] {
        stubs.enumerated().sorted { ($0.element.priority, $0.offset) > ($1.element.priority, $1.offset) }.map(\.element)
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
        for stub in Self.precedence(stubs) {
            let definition = stub.definition
            guard case .connect = definition.trigger, definition.channel?.matches(request) ?? true else { continue }
            act(definition.actions, of: stub, on: channel, message: nil, request: request)
        }
        return channel
    }

    /// A message from a channel's client: journaled, and answered by the stub that matches it first.
    package func receive(_ message: HTTPStubMessage, on channel: HTTPMessageChannel) {
        let stubs = messaging.state.withLock { $0.stubs }
        let stub = Self.precedence(stubs).first { stub in
            let definition = stub.definition
            guard case .message(let pattern) = definition.trigger else { return false }
            return (definition.channel?.matches(channel.request) ?? true) && pattern.matches(message)
        }
        journal(.received, message, on: channel, stub: stub)
        if let stub {
            act(stub.definition.actions, of: stub, on: channel, message: message, request: channel.request)
        }
    }

    /// An HTTP request the stubber decided on (and the stub that answers it): every message stub it sets off
    /// acts, in precedence order.
    func requestArrived(_ request: HTTPIncomingRequest, servedBy stub: HTTPStubRequest?) {
        let stubs = messaging.state.withLock { $0.stubs }
        for messageStub in Self.precedence(stubs) {
            let definition = messageStub.definition
            switch definition.trigger {
            case .request(let pattern) where pattern.matches(request):
                act(definition.actions, of: messageStub, on: nil, message: nil, request: request)
            case .served(let test) where stub.map(test) == true:
                act(definition.actions, of: messageStub, on: nil, message: nil, request: request)
            default:
                continue
            }
        }
    }

    /// The channel's client left, or it was closed.
    package func closeChannel(_ channel: HTTPMessageChannel) {
        _ = messaging.state.withLock { $0.channels.removeValue(forKey: channel.id) }
        channel.openness.withLock { $0 = false }
    }

    /// Runs a stub's actions: each one's delay counts from the trigger; they run in order. Those due at once run
    /// before this returns, so that messages on a channel are answered in the order they came. With no
    /// originating channel (an HTTP trigger), actions aimed at it are skipped, as WireMock skips them.
    private func act(
        _ actions: [HTTPMessageStub.Action], of stub: HTTPMessageStub, on channel: HTTPMessageChannel?,
        message: HTTPStubMessage?, request: HTTPIncomingRequest
    ) {
        let start = ContinuousClock.now
        var remaining = actions[...]
        while let action = remaining.first, action.delay <= 0 {
            perform(action, of: stub, on: channel, message: message, request: request)
            remaining = remaining.dropFirst()
        }
        guard !remaining.isEmpty else { return }
        Task { [remaining] in
            for action in remaining {
                if action.delay > 0 { try? await Task.sleep(until: start + .seconds(action.delay), clock: .continuous) }
                perform(action, of: stub, on: channel, message: message, request: request)
            }
        }
    }

    private func perform(
        _ action: HTTPMessageStub.Action, of stub: HTTPMessageStub, on channel: HTTPMessageChannel?,
        message: HTTPStubMessage?, request: HTTPIncomingRequest
    ) {
        switch action {
        case .send(let make, let target, _):
            switch target {
            case .originating:
                guard let channel else { return }
                deliver(make(message, request), to: channel, from: stub)
            case .channels(let pattern):
                let targets = messaging.state.withLock { $0.channels.values.filter { pattern.matches($0.request) } }
                guard !targets.isEmpty else { return }
                let sent = make(message, request)
                for target in targets { deliver(sent, to: target, from: stub) }
            }
        case .close(let code, let reason, _):
            guard let channel else { return }
            close(channel, code: code, reason: reason)
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
