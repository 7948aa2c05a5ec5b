import Foundation
import NIOCore
import NIOPosix
import StuntDouble
import StuntDoubleServer
import Testing

/// Clients slower than the server's timeouts, on real sockets: what the kernel holds for a client is neither idle
/// time nor a stalled reader while the client takes it. (The response matrix failed under load with "I/O on closed
/// channel": a keep-alive client, starved of CPU, was still reading a 5 MB body out of the kernel's buffers when the
/// idle timeout, counted from the moment the last byte entered them, closed its connection.)
///
/// Each client reads on an event loop of its own: on the shared ones, other tests' work (the response matrix hashes
/// its bodies there) held a client's reads back for seconds at a time, which the server rightly took for a client
/// that had stopped reading.
@Suite struct SlowClientTests {
    /// Runs `body` with an event loop for the test's client alone.
    static func withClientLoop(_ body: (any EventLoopGroup) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await body(group)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }

    /// A body the kernel takes whole (megabytes on loopback), read at 500 kB/s for several idle timeouts: the
    /// connection stays open, and the next request on it is answered. (The idle timeout of 3 s is the time the
    /// client has, once the server's kernel has delivered everything, to read the rest of its small receive buffer
    /// and ask again. Both requests go from the client's event loop, the first as the connection opens and the
    /// second the moment the first answer is whole: sent from the test's task, they waited on a busy machine for
    /// longer than that before it ran, which is idle time by any server's count.)
    @Test(.timeLimit(.minutes(2))) func aClientStillReadingItsResponseIsNotIdle() async throws {
        let body = patternBytes(4 << 20, seed: 41)
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/big").stub(for: .get) { $0.body = body })
        var configuration = HTTPStubServer.Configuration()
        configuration.idleTimeout = .seconds(3)
        try await Self.withClientLoop { group in
            try await withStubServer(stubber: stubber, configuration: configuration) { baseURL in
                let request = "GET /big HTTP/1.1\r\nHost: x\r\n\r\n"
                let start = ContinuousClock.now
                let connection = try await PacedConnection.connect(
                    port: baseURL.port!, tls: nil, pace: .slow(bytesPerSecond: 500_000), keepsBodies: false,
                    sending: (request, ["GET"]), group: group)
                defer { Task { await connection.close() } }
                try await connection.send(request, methods: ["GET"], afterResponses: 1)
                let both = try await connection.responses(atLeast: 2, timeout: .seconds(90))
                #expect(both.count == 2)
                #expect(both.allSatisfy { $0.digest == body.sha256 })
                let firstWhole = try #require(await connection.completionTimes.first)
                #expect(firstWhole - start > .seconds(6), "the first answer took several idle timeouts to read")
                // Then idle for real: the server closes the connection.
                #expect(await connection.closedByServer(timeout: .seconds(120)))
            }
        }
    }

    /// A client that takes a large body slowly, out of a kernel buffer that holds it, for longer than the send
    /// timeout without the channel's writability changing: it is reading, and gets the whole body.
    @Test(.timeLimit(.minutes(2))) func aClientReadingSlowerThanTheSendTimeoutGetsItAll() async throws {
        let body = patternBytes(12 << 20, seed: 42)
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/big").stub(for: .get) { $0.body = body })
        var configuration = HTTPStubServer.Configuration()
        configuration.sendTimeout = .seconds(3)
        try await Self.withClientLoop { group in
            try await withStubServer(stubber: stubber, configuration: configuration) { baseURL in
                let connection = try await PacedConnection.connect(
                    port: baseURL.port!, tls: nil, pace: .slow(bytesPerSecond: 1_500_000), keepsBodies: false,
                    group: group)
                defer { Task { await connection.close() } }
                try await connection.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n", methods: ["GET"])
                let responses = try await connection.responses(atLeast: 1, timeout: .seconds(60))
                #expect(responses.first?.bodyLength == body.count)
                #expect(responses.first?.digest == body.sha256)
                let entry = try #require(stubber.journal.last)
                #expect(entry.completion?.error == nil, "the journal says the response went out whole")
                #expect(entry.completion?.bodyByteCount == body.count)
            }
        }
    }
}
