import NIOConcurrencyHelpers
import NIOCore

/// The open connections of a server, so that stopping it closes every one.
final class ConnectionTracker: Sendable {
    private let channels = NIOLockedValueBox([ObjectIdentifier: any Channel]())

    var count: Int {
        channels.withLockedValue { $0.count }
    }

    /// Tracks a connection until it closes.
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLockedValue { $0[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            channels.withLockedValue { _ = $0.removeValue(forKey: id) }
        }
    }

    /// Asks every connection to close once its response in progress (if any) is done.
    func quiesce() {
        for channel in channels.withLockedValue({ Array($0.values) }) {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
    }

    /// Closes every connection now.
    func closeAll() async {
        for channel in channels.withLockedValue({ Array($0.values) }) {
            try? await channel.close()
        }
    }
}
