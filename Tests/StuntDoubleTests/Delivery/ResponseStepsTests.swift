import Foundation
import Testing

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response's steps alone, as the stub server takes them: worked out one at a time from the plan, the same
/// steps at the same times as an exchange timeline's final response.
@Suite struct ResponseStepsTests {
    /// The plan a stubber set up by `configure` makes for a GET of `https://api.test/x`.
    private func plan(_ configure: (HTTPStubResponse) -> Void) throws -> HTTPResponsePlan {
        try plan(HTTPStubRequest().match(URL: "https://api.test/x").stub(for: .get, configure))
    }

    /// The plan a stubber with `stub` alone makes for a GET of `https://api.test/x`.
    private func plan(_ stub: HTTPStubRequest) throws -> HTTPResponsePlan {
        let stubber = HTTPStubber()
        stubber.add(stub: stub)
        let request = try HTTPIncomingRequest(URLRequest(url: URL(string: "https://api.test/x")!))
        return try #require(stubber.decision(for: request).plan)
    }

    /// Takes every step, in order.
    private func taken(_ steps: ResponseSteps) -> [ResponseSteps.Entry] {
        var steps = steps
        var taken: [ResponseSteps.Entry] = []
        while let step = steps.removeNext() { taken.append(step) }
        return taken
    }

    @Test func aThrottledBodyIsTheHeadEachChunkAndTheEndAtTheTimelinesTimes() throws {
        let plan = try plan {
            $0.body = Data(count: 20_000)
            $0.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 100_000))
        }
        let half = Duration.milliseconds(500)
        let steps = taken(ResponseSteps(plan, at: half))
        #expect(steps.map(\.step) == [.head] + plan.chunks.indices.map { .chunk($0) } + [.finish])
        #expect(steps.first?.time == half)
        #expect(steps.dropFirst().dropLast().map(\.time) == plan.chunks.map { half + $0.deadline })
        #expect(steps.last?.time == plan.completionDeadline.map { half + $0 })

        var timeline = ExchangeTimeline(timeout: 60)
        timeline.scheduleResponse(plan, at: 0.5)
        #expect(
            timeline.pending.map(\.time) == steps.map(\.time.seconds), "the timeline's final response is these steps")
    }

    @Test func withoutItsBodyAResponseEndsWithItsHead() throws {
        let plan = try plan {
            $0.body = Data(count: 20_000)
            $0.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 100_000))
        }
        let steps = taken(ResponseSteps(plan, at: .zero, body: false))
        #expect(steps.map(\.step) == [.head, .finish])
        #expect(steps.map(\.time) == [.zero, .zero], "a HEAD request's answer does not wait for the body's pace")
    }

    @Test func aFailingPlanIsItsHeadAloneAtItsDeadline() throws {
        let plan = try plan(
            HTTPStubRequest().match(URL: "https://api.test/x").stub(
                for: .get, delay: 0.25, error: URLError(.notConnectedToInternet)))
        let steps = taken(ResponseSteps(plan, at: .seconds(1)))
        #expect(steps.map(\.step) == [.head])
        #expect(steps.map(\.time) == [.milliseconds(1_250)])
    }

    @Test func theServersOwnAnswerIsDueAtOnce() {
        let chunk = HTTPResponsePlan.Chunk(range: 0..<10, deadline: .seconds(5))
        let steps = taken(ResponseSteps(atOnce: [chunk]))
        #expect(steps.map(\.step) == [.head, .chunk(0), .finish])
        #expect(steps.map(\.time) == [.zero, .zero, .zero])
    }

    @Test func aResponseDueAtOnceIsImmediateUnlessDelayedMovedOrTimed() throws {
        let plain = try plan { $0.body = Data("a body".utf8) }
        #expect(ResponseSteps(plain, at: .zero).isImmediate)
        #expect(!ResponseSteps(plain, at: .milliseconds(1)).isImmediate, "a global delay moves it")
        #expect(!ResponseSteps(plain, at: .zero, timeout: .seconds(60)).isImmediate)
        let delayed = try plan {
            $0.body = Data("a body".utf8)
            $0.responseTime = .delayedBy(0.25)
        }
        #expect(!ResponseSteps(delayed, at: .zero).isImmediate)
        #expect(taken(ResponseSteps(plain, at: .zero)).map(\.time) == [.zero, .zero, .zero])
    }

    @Test func lookingAtTheNextStepDoesNotTakeIt() throws {
        var steps = ResponseSteps(try plan { $0.body = Data("a body".utf8) }, at: .zero)
        #expect(steps.next?.step == .head)
        #expect(steps.next?.step == .head)
        #expect(steps.removeNext()?.step == .head)
        #expect(steps.next?.step == .chunk(0))
    }

    @Test func aGapLongerThanTheTimeoutAfterTheLastEventIsATimeOutAndTheEnd() throws {
        let plan = try plan {
            $0.body = Data("a body".utf8)
            $0.responseTime = .delayedBy(3)
        }
        // The last event before the response was at 1; the head at 3 is 2 s later, past a 1.5 s timeout.
        let steps = taken(
            ResponseSteps(plan, at: .zero, timeout: .milliseconds(1_500), lastEvent: .seconds(1)))
        #expect(steps.map(\.step) == [.timeOut])
        #expect(steps.map(\.time) == [.milliseconds(2_500)])
        let longer = ResponseSteps(plan, at: .zero, timeout: .milliseconds(2_500), lastEvent: .seconds(1))
        #expect(!taken(longer).contains { $0.step == .timeOut })
    }
}
