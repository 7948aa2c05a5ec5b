import Foundation
import TestSupport
import Testing

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Suspending, resuming, cancelling and timing out, at every stage, including requests relayed to the network.
@Suite struct LifecycleTests {
    /// On a clock the test moves (`ManualDeliveryClock`), with the session's work queue drained between steps, so
    /// the outcome never depends on how fast a loaded machine is: the task is suspended 2 s into a 6-second
    /// delay, stays suspended for a minute of the clock, and its answer comes 4 s after it resumes, once.
    @Test(
        .enabled(if: sessionWorkQueueIsVisible, "needs FoundationNetworking's work queue to drain"),
        .timeLimit(.minutes(1)))
    func aSuspendedTaskPausesAndResumesItsResponseOnce() async throws {
        let clock = ManualDeliveryClock()
        let stubber = HTTPStubber()
        stubber.deliveryClock = clock.clock
        let calls = SharedValue(0)
        let arrived = Signal()
        stubber.add(
            stub: HTTPStubRequest().stub(
                for: .get,
                responseProvider: { _, _ in
                    calls.increment()
                    arrived.fire()
                    let response = HTTPStubResponse()
                    response.responseTime = .delayedBy(6)
                    response.body = Data("once".utf8)
                    return response
                }))
        let delegate = RecordingDelegate()
        let session = stubber.session(delegate: delegate)
        let task = session.dataTask(with: URL(string: "https://a.test/")!)
        task.resume()
        await arrived.wait()  // startLoading is running (after the session's cache lookup, on another queue)
        task.drainWorkQueue()  // it has ended, having queued the player's first turn
        task.drainWorkQueue()  // which has set the timer for the head, 6 s on
        #expect(calls.value == 1)
        #expect(clock.pendingTimers == 1)
        clock.advance(by: 2)
        task.suspend()
        task.drainWorkQueue()  // stopLoading has run: paused 2 s in
        #expect(clock.pendingTimers == 0, "suspending cancels the timer")
        clock.advance(by: 60)
        task.drainWorkQueue()
        await session.drainDelegateQueue()
        #expect(delegate.responseCount == 0, "nothing arrives while suspended, however long")

        task.resume()
        task.drainWorkQueue()  // startLoading again: the player continues from 2 s
        #expect(clock.pendingTimers == 1)
        clock.advance(by: 3.9)
        task.drainWorkQueue()
        await session.drainDelegateQueue()
        #expect(delegate.responseCount == 0, "4 s were left when it paused: not due 3.9 s after resuming")
        clock.advance(by: 0.2)
        #expect(await delegate.completed() == nil)
        #expect(delegate.responseCount == 1)
        #expect(String(decoding: delegate.body, as: UTF8.self) == "once")
        #expect(calls.value == 1, "the stub answered once: resuming does not ask it again")
    }

    /// A delayed answer, resumed twice: answered once. (An answer due at once is checked by `DoubleResumeTests`,
    /// holding the work queue: resumed twice here, FoundationNetworking's own window, a second `resume()` that
    /// arrives between a response's end and its completion, trapped the whole process once in a ThreadSanitizer
    /// run beside a busy machine. With the delay, the response ends a second after the two calls.)
    @Test func aSecondResumeDoesNotAnswerTwice() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().stub(for: .get) {
                $0.responseTime = .delayedBy(1); $0.body = Data("one".utf8)
            })
        let delegate = RecordingDelegate()
        let task = stubber.session(delegate: delegate).dataTask(with: URL(string: "https://a.test/later")!)
        task.resume()
        task.resume()
        #expect(await delegate.completed() == nil)
        #expect(delegate.responseCount == 1)
        try await Task.sleep(for: .milliseconds(300))
        #expect(delegate.responseCount == 1, "no late second answer")
    }

    @Test func cancellingAfterASecondResume() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get) { $0.responseTime = .delayedBy(0.3) })
        let delegate = RecordingDelegate()
        let task = stubber.session(delegate: delegate).dataTask(with: URL(string: "https://a.test/")!)
        task.resume()
        task.resume()
        task.cancel()
        let error = await delegate.completed()
        #expect((error as? URLError)?.code == .cancelled)
        try await Task.sleep(for: .milliseconds(500))  // past the delay: no client call after stopLoading
        #expect(delegate.responseCount == 0)
    }

    @Test func cancellingARelayedRequest() async throws {
        let server = try SilentServer()
        let stubber = HTTPStubber()
        stubber.unhandledMode = .optin
        let session = stubber.session()
        let request = Task { try await session.data(from: URL(string: "http://127.0.0.1:\(server.port)/hang")!) }
        try await Task.sleep(for: .milliseconds(200))
        request.cancel()
        do {
            _ = try await request.value
            Issue.record("expected a cancellation")
        } catch {
            #expect((error as? URLError)?.code == .cancelled, "\(error)")
        }
    }

    @Test func aRelayedRequestThatHangsTimesOut() async throws {
        let server = try SilentServer()
        let stubber = HTTPStubber()
        stubber.add(ignoreURL: "http://127.0.0.1:\(server.port)/", options: [.ignorePath])
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/hang")!)
        // Whole seconds: FoundationNetworking's HTTP stack truncates a timeout to seconds (0.5 becomes 0).
        request.timeoutInterval = 1
        let start = ContinuousClock.now
        do {
            _ = try await stubber.session().data(for: request)
            Issue.record("expected a timeout")
        } catch {
            #expect((error as? URLError)?.code == .timedOut, "\(error)")
        }
        #expect(secondsSince(start) >= 0.9)
    }

    @Test func theSessionTimeoutApplies() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get) { $0.responseDelay = 300 })
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 0.3
        let start = ContinuousClock.now
        do {
            _ = try await stubber.session(configuration: configuration).data(from: URL(string: "https://a.test/")!)
            Issue.record("expected a timeout")
        } catch let error as URLError {
            #expect(error.code == .timedOut)
        }
        #expect(secondsSince(start) < 120, "well before the 300-second delay (generous for ThreadSanitizer)")
    }

    @Test func aTimeoutAfterARedirectNamesTheURLThatTimedOut() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://a.test/start").stub(for: .get) {
                $0.statusCode = .found
                $0.headers[.location] = "/slow"
            })
        stubber.add(stub: HTTPStubRequest().match(URL: "https://a.test/slow").stub(for: .get) { $0.responseDelay = 10 })
        var request = URLRequest(url: URL(string: "https://a.test/start")!)
        request.timeoutInterval = 0.3
        do {
            _ = try await stubber.session().data(for: request)
            Issue.record("expected a timeout")
        } catch let error as URLError {
            #expect(error.code == .timedOut)
            #expect(error.failingURL == URL(string: "https://a.test/slow"))
        }
    }

    @Test func anUploadIsMatchedOnItsOwnBodyNotAStaleOne() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: try HTTPStubRequest().match(urlRegex: "*").stubEcho())
        var request = URLRequest(url: URL(string: "https://a.test/upload")!)
        request.httpMethod = "POST"
        request.httpBody = Data("stale".utf8)
        let (data, _) = try await stubber.session().upload(for: request, from: Data("uploaded".utf8))
        #expect(String(decoding: data, as: UTF8.self) == "uploaded")
    }

    @Test(
        .enabled(if: isFoundationNetworking, "Apple's URLSession hands download tasks to URLProtocol: they work there"))
    func everyKindOfDownloadFailsWithTheExplanation() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get, body: "file"))
        do {
            _ = try await stubber.session().download(from: URL(string: "https://a.test/file")!)
            Issue.record("expected an error")
        } catch let error as HTTPStubberError {
            #expect(error.code == .unsupportedTask)
        }
        let delegate = RecordingDelegate()
        stubber.session(delegate: delegate).downloadTask(with: URL(string: "https://a.test/file")!).resume()
        #expect((await delegate.completed() as? HTTPStubberError)?.code == .unsupportedTask)
        // Every request that reaches a stubber is journaled, refused downloads too, so verification sees them.
        let journal = stubber.journal
        #expect(journal.count == 2)
        #expect(journal.allSatisfy { ($0.completion?.error as? HTTPStubberError)?.code == .unsupportedTask })
        #expect(journal.allSatisfy { $0.stub != nil })
    }

    @Test(
        .enabled(if: isFoundationNetworking, "Apple's URLSession hands download tasks to URLProtocol: they work there"))
    func anUnmatchedDownloadIsAnUnmatchedRequest() async throws {
        let stubber = HTTPStubber()
        await #expect(throws: HTTPStubberError.self) {
            try await stubber.session().download(from: URL(string: "https://a.test/unstubbed")!)
        }
        #expect(stubber.unmatchedRequests.map(\.request.url.path) == ["/unstubbed"])
    }

    /// `uploadTask(withStreamedRequest:)`: the body comes from the delegate's `needNewBodyStream` (Alamofire's
    /// `upload(InputStream, to:)`), which FoundationNetworking asks only for its own HTTP protocol.
    @Test func aStreamedUploadsBodyIsReadFromItsDelegate() async throws {
        let stubber = HTTPStubber()
        let upload = HTTPStubRequest().match(URL: "https://a.test/upload").match(body: Data("streamed body".utf8))
            .stub(for: .post, body: "received")
        stubber.add(stub: upload)
        stubber.add(stub: try HTTPStubRequest().match(urlRegex: "^https://a\\.test/echo").stubEcho())
        let delegate = RecordingDelegate(streamedBody: Data("streamed body".utf8))
        let session = stubber.session(delegate: delegate)
        var request = URLRequest(url: URL(string: "https://a.test/upload")!)
        request.httpMethod = "POST"
        session.uploadTask(withStreamedRequest: request).resume()
        #expect(await delegate.completed() == nil)
        #expect(String(decoding: delegate.body, as: UTF8.self) == "received")
        #expect(stubber.hitCount(of: upload) == 1)

        var echo = URLRequest(url: URL(string: "https://a.test/echo")!)
        echo.httpMethod = "PUT"
        let second = RecordingDelegate(streamedBody: Data(repeating: 7, count: 200_000))
        stubber.session(delegate: second).uploadTask(withStreamedRequest: echo).resume()
        #expect(await second.completed() == nil)
        #expect(second.body == Data(repeating: 7, count: 200_000), "large streams are read to the end")
    }

    @Test(
        .enabled(
            if: isFoundationNetworking,
            "What Apple's URLSession does with a streamed upload whose delegate gives no stream is its own"))
    func aStreamedUploadWithoutAStreamFailsClearly() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: try HTTPStubRequest().match(urlRegex: "(?s).*").stubEcho())
        let delegate = RecordingDelegate()  // does not implement needNewBodyStream
        var request = URLRequest(url: URL(string: "https://a.test/upload")!)
        request.httpMethod = "POST"
        stubber.session(delegate: delegate).uploadTask(withStreamedRequest: request).resume()
        let error = await delegate.completed()
        let stubError = try #require(error as? HTTPStubberError)
        #expect(stubError.code == .unreadableRequestBody)
        #expect(stubError.message.contains("needNewBodyStream"))
        #expect(stubber.receivedCount == 0, "nothing was matched against a body that was never read")
    }
}
