import Foundation
import Testing

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The exchange timeline alone, without a clock or a delivery path: which steps a decision leads to, at which
/// times, and where the timeout cuts in. Both URLSession paths perform exactly these steps.
@Suite struct ExchangeTimelineTests {
    /// A step's kind, for comparing timelines.
    private enum Kind: Equatable {
        case relay, forward, redirect, head, chunk(Int), finish, fail, timeOut
    }

    private func kinds(_ timeline: ExchangeTimeline) -> [Kind] {
        timeline.pending.map { entry in
            switch entry.step {
            case .relay: .relay
            case .forward: .forward
            case .redirect: .redirect
            case .head: .head
            case .chunk(let index): .chunk(index)
            case .finish: .finish
            case .fail: .fail
            case .timeOut: .timeOut
            }
        }
    }

    private func times(_ timeline: ExchangeTimeline) -> [Double] {
        timeline.pending.map(\.time)
    }

    /// The timeline of one request to `https://api.test/x` against a stubber set up by `configure`.
    private func timeline(
        timeout: Double = 60, at offset: Double = 0, _ configure: (HTTPStubber) throws -> Void
    ) throws -> ExchangeTimeline {
        let stubber = HTTPStubber()
        try configure(stubber)
        let request = try HTTPIncomingRequest(URLRequest(url: URL(string: "https://api.test/x")!))
        var timeline = ExchangeTimeline(timeout: timeout)
        timeline.schedule(stubber.decision(for: request), for: request, hop: 0, at: offset)
        return timeline
    }

    @Test func anImmediateResponseIsItsHeadItsBodyAndItsEndAtOnce() throws {
        let timeline = try timeline {
            $0.add(stub: HTTPStubRequest().match(URL: "https://api.test/x").stub(for: .get, body: "a body"))
        }
        #expect(kinds(timeline) == [.head, .chunk(0), .finish])
        #expect(times(timeline) == [0, 0, 0])
        #expect(!timeline.hasTimedOut)
    }

    @Test func aDelayMovesEveryStepByItFromTheRequestsOffset() throws {
        let timeline = try timeline(at: 2) {
            $0.add(
                stub: HTTPStubRequest().match(URL: "https://api.test/x").stub(for: .get) {
                    $0.body = Data("a body".utf8)
                    $0.responseTime = .delayedBy(0.5)
                })
        }
        #expect(kinds(timeline) == [.head, .chunk(0), .finish])
        #expect(times(timeline) == [2.5, 2.5, 2.5])
    }

    @Test func aThrottledBodyIsChunksAtRisingTimesEndingWithTheLast() throws {
        let timeline = try timeline {
            $0.add(
                stub: HTTPStubRequest().match(URL: "https://api.test/x").stub(for: .get) {
                    $0.body = Data(count: 20_000)
                    $0.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 100_000))
                })
        }
        let kinds = kinds(timeline)
        #expect(kinds.first == .head && kinds.last == .finish)
        #expect(kinds.count { if case .chunk = $0 { true } else { false } } > 1)
        let times = times(timeline)
        #expect(times == times.sorted())
        #expect(times.last == times[times.count - 2], "the end comes with the last chunk")
        #expect(abs(times.last! - 0.2) < 0.06, "20 KB at 100 KB/s take about 0.2 s")
    }

    @Test func aResponseLaterThanTheTimeoutBecomesATimeOutAtTheTimeout() throws {
        let timeline = try timeline(timeout: 1) {
            $0.add(
                stub: HTTPStubRequest().match(URL: "https://api.test/x").stub(for: .get) {
                    $0.responseTime = .delayedBy(2)
                })
        }
        #expect(kinds(timeline) == [.timeOut])
        #expect(times(timeline) == [1])
        #expect(timeline.hasTimedOut)
    }

    @Test func aGapBetweenChunksLongerThanTheTimeoutTimesOutAfterTheLastEvent() throws {
        // Chunks come about 0.05 s apart: a timeout of 0.01 s allows the head, not the next chunk.
        let timeline = try timeline(timeout: 0.01) {
            $0.add(
                stub: HTTPStubRequest().match(URL: "https://api.test/x").stub(for: .get) {
                    $0.body = Data(count: 10_000)
                    $0.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 20_000))
                })
        }
        let kinds = kinds(timeline)
        #expect(kinds.last == .timeOut)
        #expect(!kinds.contains(.finish))
        let last = try #require(timeline.pending.last)
        let before = try #require(timeline.pending.dropLast().last)
        #expect(abs(last.time - (before.time + 0.01)) < 1e-9, "the time-out comes 0.01 s after the last event")
    }

    @Test func anUnmatchedRequestFailsAtOnceWithItsReport() throws {
        let timeline = try timeline { $0.add(stub: HTTPStubRequest().match(URL: "https://api.test/y").stub(for: .get)) }
        #expect(kinds(timeline) == [.fail])
        guard case .fail(let error) = timeline.pending.first?.step else { return }
        #expect((error as? HTTPStubberError)?.code == .unmatchedRequest)
    }

    @Test func aRelayIsFollowedByATimeOutAtTheTimeout() throws {
        let timeline = try timeline(timeout: 7, at: 1) { $0.add(ignoreURL: "https://api.test/x") }
        #expect(kinds(timeline) == [.relay, .timeOut])
        #expect(times(timeline) == [1, 8])
    }

    @Test func aRedirectIsOneStepAtItsResponseTime() throws {
        let timeline = try timeline {
            $0.add(
                stub: HTTPStubRequest().match(URL: "https://api.test/x").stub(for: .get) {
                    $0.statusCode = 302
                    $0.headers[.location] = "/y"
                    $0.responseTime = .delayedBy(0.25)
                })
        }
        #expect(kinds(timeline) == [.redirect])
        #expect(times(timeline) == [0.25])
        guard case .redirect(_, let target, _, let hop) = timeline.pending.first?.step else { return }
        #expect(target.absoluteString == "https://api.test/y")
        #expect(hop == 0)
    }

    @Test func anEmptyBodyHasNoChunks() throws {
        let timeline = try timeline { $0.add(stub: HTTPStubRequest().match(URL: "https://api.test/x").stub(for: .get)) }
        #expect(kinds(timeline) == [.head, .finish])
    }

    @Test func aFailurePlanIsItsHeadAlone() throws {
        let timeline = try timeline {
            $0.add(
                stub: HTTPStubRequest().match(URL: "https://api.test/x").stub(
                    for: .get, error: URLError(.notConnectedToInternet)))
        }
        #expect(kinds(timeline) == [.head])
    }

    @Test func aWaitTimesOutUnlessResumedAndResumingClearsItsTimeOut() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/x").stub(for: .get) {
                $0.body = Data("a body".utf8)
                $0.responseTime = .delayedBy(1)
            })
        let request = try HTTPIncomingRequest(URLRequest(url: URL(string: "https://api.test/x")!))
        var timeline = ExchangeTimeline(timeout: 5)
        timeline.wait(from: 2)
        #expect(kinds(timeline) == [.timeOut])
        #expect(times(timeline) == [7])
        timeline.resume(at: 6)
        #expect(timeline.pending.isEmpty)
        #expect(timeline.lastEvent == 6)
        timeline.schedule(stubber.decision(for: request), for: request, hop: 1, at: 6)
        #expect(kinds(timeline) == [.head, .chunk(0), .finish])
        #expect(times(timeline) == [7, 7, 7])
    }

    @Test func nothingIsScheduledAfterATimeOutAndStepsAreTakenInOrder() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/x").stub(for: .get))
        let request = try HTTPIncomingRequest(URLRequest(url: URL(string: "https://api.test/x")!))
        let plan = try #require(stubber.decision(for: request).plan)
        var timeline = ExchangeTimeline(timeout: 1)
        timeline.scheduleResponse(plan, at: 3)
        #expect(kinds(timeline) == [.timeOut])
        timeline.scheduleResponse(plan, at: 0.5)
        #expect(kinds(timeline) == [.timeOut], "after a time-out, nothing more")
        #expect(timeline.removeNext()?.time == 1)
        #expect(timeline.removeNext() == nil)
        #expect(timeline.next == nil)
    }
}
