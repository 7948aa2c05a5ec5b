import Foundation
import TestSupport
import Testing

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Delays, throttling, cancellation and timeouts through URLSession. Timing assertions are lower bounds (a
/// timer never fires early) and generous upper bounds; exact accuracy is measured by the benchmark.
@Suite struct NetworkConditionTests {
    @Test func aDelayedResponseArrivesAfterItsDelay() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://a.test/slow")
                .stub(for: .get) {
                    $0.responseTime = .delayedBy(0.3)
                    $0.body = Data("late".utf8)
                })
        let start = ContinuousClock.now
        let (data, _) = try await stubber.session().data(from: URL(string: "https://a.test/slow")!)
        #expect(String(decoding: data, as: UTF8.self) == "late")
        let elapsed = secondsSince(start)
        #expect(elapsed >= 0.3)
        #expect(elapsed < 120, "a hang guard, not a timing claim (the benchmark measures accuracy)")
    }

    @Test func aThrottledBodyArrivesWholeForAsyncCallers() async throws {
        let body = Data((0..<3000).map { UInt8($0 % 251) })
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://a.test/file")
                .stub(for: .get) {
                    $0.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 10_000))  // 0.3 s
                    $0.body = body
                })
        let start = ContinuousClock.now
        let (data, _) = try await stubber.session().data(from: URL(string: "https://a.test/file")!)
        #expect(data == body, "every byte, in order, not only the last chunk")
        let elapsed = secondsSince(start)
        #expect(elapsed >= 0.3)
        #expect(elapsed < 120, "a hang guard, not a timing claim (the benchmark measures accuracy)")
    }

    @Test func sessionDelegatesReceiveAThrottledBodyProgressively() async throws {
        let body = Data((0..<4000).map { UInt8($0 % 256) })
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://a.test/stream")
                .stub(for: .get) {
                    $0.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 10_000))  // 500 B per 50 ms
                    $0.body = body
                })
        let delegate = RecordingDelegate()
        let start = ContinuousClock.now
        stubber.session(delegate: delegate).dataTask(with: URL(string: "https://a.test/stream")!).resume()
        #expect(await delegate.completed() == nil)
        let chunks = delegate.chunks
        #expect(delegate.body == body)
        #expect(chunks.count == 8)
        #expect(chunks.allSatisfy { $0.data.count == 500 })
        // The first chunk is due at 0.05 s and the last at 0.4 s: they cannot arrive together.
        let first = try #require(chunks.first).time - start
        let last = try #require(chunks.last).time - start
        #expect(first.seconds >= 0.05)
        #expect(last.seconds >= 0.4)
        #expect(last > first)
    }

    @Test func aDelayedStubDoesNotDelayOtherSessions() async throws {
        // Ordering, not timing: the fast request must complete while every slow one is still waiting for its
        // 300-second stub. A stub that blocked FoundationNetworking's shared work queue would hold it back.
        let slowStubber = HTTPStubber()
        let arrived = SharedValue(0)
        let allArrived = Signal()
        slowStubber.add(
            stub: HTTPStubRequest().stub(
                for: .get,
                responseProvider: { _, _ in
                    if arrived.increment() == 5 { allArrived.fire() }
                    let response = HTTPStubResponse()
                    response.responseTime = .delayedBy(300)
                    return response
                }))
        let fastStubber = HTTPStubber()
        fastStubber.add(stub: HTTPStubRequest().stub(for: .get, body: "fast"))
        let slowSessions = (0..<5).map { _ in slowStubber.session() }
        let slowFinished = SharedValue(0)
        let slow = slowSessions.map { session in
            Task {
                defer { _ = slowFinished.increment() }
                _ = try? await session.data(from: URL(string: "https://slow.test/")!)
            }
        }
        await allArrived.wait()
        let (data, _) = try await fastStubber.session().data(from: URL(string: "https://fast.test/")!)
        #expect(String(decoding: data, as: UTF8.self) == "fast")
        #expect(slowFinished.value == 0, "the fast request completed while the slow ones still wait")
        slow.forEach { $0.cancel() }
        for task in slow { await task.value }
    }

    @Test func cancellingDuringADelayEndsPromptly() async throws {
        let stubber = HTTPStubber()
        let arrived = Signal()
        stubber.add(
            stub: HTTPStubRequest().stub(
                for: .get,
                responseProvider: { _, _ in
                    arrived.fire()
                    let response = HTTPStubResponse()
                    response.responseTime = .delayedBy(300)
                    return response
                }))
        let session = stubber.session()
        let start = ContinuousClock.now
        let request = Task { try await session.data(from: URL(string: "https://a.test/")!) }
        await arrived.wait()
        request.cancel()
        do {
            _ = try await request.value
            Issue.record("expected a cancellation")
        } catch {
            #expect((error as? URLError)?.code == .cancelled)
        }
        #expect(secondsSince(start) < 120, "well before the 300-second delay: the cancellation did not wait for it")
    }

    /// The delegate cancels when the second chunk arrives, on a clock the test moves 50 ms at a time with the
    /// session's queues drained in between: exactly two chunks arrive, whatever the machine's load.
    @Test(
        .enabled(if: sessionWorkQueueIsVisible, "needs FoundationNetworking's work queue to drain"),
        .timeLimit(.minutes(1)))
    func cancellingMidThrottleStopsDelivery() async throws {
        let clock = ManualDeliveryClock()
        let stubber = HTTPStubber()
        stubber.deliveryClock = clock.clock
        let arrived = Signal()
        stubber.add(
            stub: HTTPStubRequest().stub(
                for: .get,
                responseProvider: { _, _ in
                    arrived.fire()
                    let response = HTTPStubResponse()
                    response.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 2_000))  // 100 B/50 ms
                    response.body = Data(repeating: 1, count: 40_000)  // 400 chunks, 20 s
                    return response
                }))
        let delegate = RecordingDelegate(onChunk: { count, task in
            if count == 2 { task.cancel() }
        })
        let session = stubber.session(delegate: delegate)
        let task = session.dataTask(with: URL(string: "https://a.test/big")!)
        task.resume()
        await arrived.wait()  // startLoading is running
        task.drainWorkQueue()
        task.drainWorkQueue()  // the player's first turn has run: the head is out, the first chunk's timer set
        #expect(clock.pendingTimers == 1)
        var ticks = 0
        while !delegate.isComplete, ticks < 400 {
            clock.advance(by: 0.05)
            task.drainWorkQueue()
            await session.drainDelegateQueue()
            task.drainWorkQueue()  // the cancellation's stopLoading, when the delegate has just cancelled
            ticks += 1
        }
        let error = await delegate.completed()
        #expect((error as? URLError)?.code == .cancelled)
        #expect(delegate.chunks.count == 2, "the chunk that cancelled was the last")
        #expect(clock.pendingTimers == 0, "cancelling stops the timer")
        clock.advance(by: 30)
        task.drainWorkQueue()
        await session.drainDelegateQueue()
        #expect(delegate.chunks.count == 2, "nothing after the cancellation, in the 20 s the body would have taken")
    }

    @Test func cancellingBeforeTheResponse() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get) { $0.responseDelay = 5 })
        let (_, _, error): (Data?, URLResponse?, (any Error)?) = await withCheckedContinuation { done in
            let task = stubber.session().dataTask(with: URL(string: "https://a.test/")!) { data, response, error in
                done.resume(returning: (data, response, error))
            }
            task.resume()
            task.cancel()
        }
        #expect((error as? URLError)?.code == .cancelled)
    }

    @Test func aStubSlowerThanTheTimeoutTimesOut() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get) { $0.responseDelay = 300 })
        var request = URLRequest(url: URL(string: "https://a.test/hanging")!)
        request.timeoutInterval = 0.3
        let start = ContinuousClock.now
        do {
            _ = try await stubber.session().data(for: request)
            Issue.record("expected a timeout")
        } catch let error as URLError {
            #expect(error.code == .timedOut)
            #expect(error.failingURL == request.url)
        }
        let elapsed = secondsSince(start)
        #expect(elapsed >= 0.3)
        #expect(elapsed < 120, "well before the 300-second delay (generous for ThreadSanitizer)")
    }

    @Test func aSteadyThrottledBodyDoesNotTimeOut() async throws {
        let stubber = HTTPStubber()
        let body = Data(repeating: 7, count: 8_000)
        stubber.add(
            stub: HTTPStubRequest().stub(for: .get) {
                $0.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 10_000))  // 0.8 s in all
                $0.body = body
            })
        var request = URLRequest(url: URL(string: "https://a.test/steady")!)
        request.timeoutInterval = 0.5  // longer than any gap between chunks, shorter than the whole
        let (data, _) = try await stubber.session().data(for: request)
        #expect(data == body)
    }
}
