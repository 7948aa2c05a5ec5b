import NIOCore
import NIOPosix
import TestSupport
import Testing

/// The "upstream that is down" of the proxy and recording tests: a port that refuses connections and that no
/// server started meanwhile (another test's, in parallel) can be given.
@Suite struct RefusingPortTests {
    @Test func itRefusesConnectionsAndCannotBeTakenWhileHeld() async throws {
        let down = try RefusingPort()
        let group = MultiThreadedEventLoopGroup.singleton
        await #expect(throws: (any Error).self, "nothing answers on it") {
            try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: down.port).get().close()
        }
        // A server asking for that very port, with SO_REUSEADDR as servers set it, is refused it.
        await #expect(throws: (any Error).self, "no listener can take it") {
            try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .bind(host: "127.0.0.1", port: down.port).get().close()
        }
        withExtendedLifetime(down) {}
    }
}
