import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import StuntDouble
import Testing

@testable import StuntDoubleServer

/// The flow that paces a proxied body: the forwarding task reads on only while the client's connection wants
/// more and what it handed to the event loop has arrived there (the response matrix's 64 MiB proxied body to a
/// slow reader failed now and then: a busy event loop let the task read tens of MiB ahead of the hold).
@Suite struct UpstreamFlowTests {
    @Test func partsOnTheirWayBeyondTheLimitHoldTheTask() {
        let flow = UpstreamFlow(limit: 100)
        flow.handOver(100)
        #expect(flow.mayProceed)
        flow.handOver(1)
        #expect(!flow.mayProceed)
        flow.arrived(1)
        #expect(flow.mayProceed)
    }

    @Test func aClosedFlowHoldsTheTaskUntilItOpens() {
        let flow = UpstreamFlow(limit: 100)
        flow.close()
        #expect(!flow.mayProceed)
        flow.open()
        #expect(flow.mayProceed)
        flow.handOver(500)
        #expect(!flow.mayProceed)
    }

    /// Nobody reads the rest: whatever is on its way, the task drains the upstream.
    @Test func aFinishedFlowNeverHoldsTheTask() {
        let flow = UpstreamFlow(limit: 100)
        flow.handOver(1_000)
        flow.finish()
        flow.close()
        #expect(flow.mayProceed)
    }

    /// A waiting task goes on once what it handed over arrives, and not while the flow is also closed.
    @Test(.timeLimit(.minutes(1))) func aWaitingTaskGoesOnWhenItsPartsArrive() async {
        let flow = UpstreamFlow(limit: 10)
        flow.handOver(50)
        flow.close()
        let waiting = Task { await flow.waitUntilOpen() }
        flow.arrived(50)
        #expect(!flow.mayProceed)
        flow.open()
        await waiting.value
        #expect(flow.mayProceed)
    }

    /// The forwarding task itself, from a real upstream (8 MiB over loopback, faster than anything reads it), to an
    /// event loop that takes each part only 2 ms after it is handed over: what is on its way never grows beyond
    /// the limit and one part, and every byte arrives, in order.
    @Test(.timeLimit(.minutes(2))) func aSlowEventLoopBoundsWhatTheTaskReadsAhead() async throws {
        let size = 8 << 20
        let body = patternBytes(size, seed: 7)
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/big").stub(for: .get, body: body))
        let server = HTTPStubServer(stubber: stubber)
        try await server.start()
        let proxy = UpstreamProxy(upstream: nil, group: MultiThreadedEventLoopGroup.singleton)
        let limit = 64 << 10
        let flow = UpstreamFlow(limit: limit)
        let seen = NIOLockedValueBox((received: Data(), mostOnTheirWay: 0, largestPart: 0))
        let port = try #require(server.port)
        let ended: Bool = await withCheckedContinuation { continuation in
            proxy.forward(
                HTTPRequestHead(version: .http1_1, method: .GET, uri: "/big"), body: ByteBuffer(),
                to: "http://127.0.0.1:\(port)/big", flow: flow
            ) { event in
                switch event {
                case .head: break
                case .body(let part):
                    seen.withLockedValue {
                        $0.received.append(contentsOf: part.readableBytesView)
                        $0.mostOnTheirWay = max($0.mostOnTheirWay, flow.bytesOnTheirWay)
                        $0.largestPart = max($0.largestPart, part.readableBytes)
                    }
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(2)) {
                        flow.arrived(part.readableBytes)
                    }
                case .end: continuation.resume(returning: true)
                case .failed: continuation.resume(returning: false)
                }
            }
        }
        await proxy.shutdown()
        await server.stop()
        let result = seen.withLockedValue { $0 }
        #expect(ended)
        #expect(result.received == body)
        #expect(
            result.mostOnTheirWay <= limit + result.largestPart,
            "\(result.mostOnTheirWay) bytes were on their way at once (limit \(limit), parts up to \(result.largestPart))"
        )
    }
}
