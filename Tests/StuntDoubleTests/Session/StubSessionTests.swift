import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What only `HTTPStubSession` does: its data tasks, its queue, its configuration, its stubber.
@Suite struct StubSessionTests {
    /// The values a completion handler received, and the queue it ran on.
    struct Completion: @unchecked Sendable {
        let data: Data?
        let response: URLResponse?
        let error: (any Error)?
        let queue: OperationQueue?
    }

    /// Runs a task and waits for its completion handler.
    func complete(_ make: (@escaping DataTaskCompletionHandler) -> HTTPStubSessionDataTask, resume: Bool = true)
        async -> (HTTPStubSessionDataTask, Completion)
    {
        let box = SharedValue<HTTPStubSessionDataTask?>(nil)
        let completion = await withCheckedContinuation { continuation in
            let task = make { data, response, error in
                continuation.resume(
                    returning: Completion(data: data, response: response, error: error, queue: OperationQueue.current))
            }
            box.update { $0 = task }
            if resume { task.resume() } else { task.cancel() }
        }
        return (box.value!, completion)
    }

    @Test func aDataTaskRunsOnceOnTheDelegateQueue() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/a").stub(for: .get, body: "a"))
        let queue = OperationQueue()
        let session = stubber.stubSession(delegateQueue: queue)
        let (task, completion) = await complete {
            session.dataTask(with: URL(string: "https://api.test/a")!, completionHandler: $0)
        }
        #expect(completion.data == Data("a".utf8))
        #expect((completion.response as? HTTPURLResponse)?.statusCode == 200)
        #expect(completion.error == nil)
        #expect(completion.queue === queue)
        #expect(task.state == .completed)
        #expect((task.response as? HTTPURLResponse)?.statusCode == 200)
        task.resume()  // a second resume does nothing
        #expect(stubber.receivedCount == 1)
    }

    @Test func aTaskIsNotSentUntilResumed() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get, code: .ok))
        let task = stubber.stubSession().dataTask(with: URL(string: "https://api.test/")!) { _, _, _ in }
        #expect(task.state == .suspended)
        #expect(stubber.receivedCount == 0)
    }

    @Test func cancellingBeforeResumeDeliversTheCancellation() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get, code: .ok))
        let session = stubber.stubSession()
        let (task, completion) = await complete(
            { session.dataTask(with: URL(string: "https://api.test/")!, completionHandler: $0) }, resume: false)
        #expect((completion.error as? URLError)?.code == .cancelled)
        #expect(task.state == .completed)
        task.resume()
        #expect(stubber.receivedCount == 0, "a cancelled task is never sent")
    }

    @Test func cancellingADelayedAnswer() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get) { $0.responseDelay = 300 })
        let session = stubber.stubSession()
        let start = ContinuousClock.now
        let completion = await withCheckedContinuation { continuation in
            let task = session.dataTask(with: URL(string: "https://api.test/")!) { data, response, error in
                continuation.resume(returning: Completion(data: data, response: response, error: error, queue: nil))
            }
            task.resume()
            task.cancel()
        }
        #expect((completion.error as? URLError)?.code == .cancelled)
        #expect(completion.data == nil && completion.response == nil)
        #expect(secondsSince(start) < 120, "well before the 300-second delay (generous for ThreadSanitizer)")
    }

    @Test func cancellingAfterResumeWinsOverAnAnswerDueAtOnce() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/error").stub(
                for: .get, error: URLError(.notConnectedToInternet)))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/none").stub(for: .get, response: .noResponse()))
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/ok").stub(for: .get, code: .ok))
        // The delegate queue is held until the task is cancelled, so the answer, however fast, is ready before
        // the cancellation and the handler runs after it.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = stubber.stubSession(delegateQueue: queue)
        for path in ["error", "none", "ok"] {
            queue.isSuspended = true
            let completion = await withCheckedContinuation { continuation in
                let task = session.dataTask(with: URL(string: "https://api.test/\(path)")!) { data, response, error in
                    continuation.resume(returning: Completion(data: data, response: response, error: error, queue: nil))
                }
                task.resume()
                task.cancel()
                queue.isSuspended = false
            }
            #expect((completion.error as? URLError)?.code == .cancelled, "\(path)")
            #expect(completion.data == nil && completion.response == nil, "\(path)")
        }
        let errors = stubber.journal.map { ($0.completion?.error as? URLError)?.code }
        #expect(errors == [.cancelled, .cancelled, .cancelled], "the journal records what the caller received")
    }

    @Test func theJournalRecordsWhatTheCompletionHandlerReceived() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get, response: .noResponse()))
        let session = stubber.stubSession()
        let (_, completion) = await complete {
            session.dataTask(with: URL(string: "https://api.test/")!, completionHandler: $0)
        }
        #expect(completion.error == nil && completion.response == nil, "the mock's (nil, nil, nil)")
        let entry = try #require(stubber.journal.first)
        #expect(entry.completion != nil)
        #expect(entry.completion?.error == nil)

        await #expect { try await session.data(from: URL(string: "https://api.test/")!) } throws: {
            ($0 as? URLError)?.code == .badServerResponse
        }
        #expect((stubber.journal.last?.completion?.error as? URLError)?.code == .badServerResponse)
    }

    @Test func theRequestsOwnTimeoutApplies() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get) { $0.responseDelay = 300 })
        var request = URLRequest(url: URL(string: "https://api.test/slow")!)
        request.timeoutInterval = 0.3
        let start = ContinuousClock.now
        await #expect { try await stubber.stubSession().data(for: request) } throws: {
            ($0 as? URLError)?.code == .timedOut
        }
        #expect(secondsSince(start) < 120, "well before the 300-second delay (generous for ThreadSanitizer)")
    }

    @Test func requestsArriveInTheOrderTheirTasksResume() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/next")
                .stub(
                    for: .get,
                    sequence: [.status(.ok, body: Data("first".utf8)), .status(.ok, body: Data("second".utf8))]))
        let session = stubber.stubSession()
        let bodies = SharedValue<[Int: String]>([:])
        let done = Signal()
        var tasks: [HTTPStubSessionDataTask] = []
        for index in 0..<2 {
            tasks.append(
                session.dataTask(with: URL(string: "https://api.test/next")!) { data, _, _ in
                    let count = bodies.update { bodies -> Int in
                        bodies[index] = String(decoding: data ?? Data(), as: UTF8.self)
                        return bodies.count
                    }
                    if count == 2 { done.fire() }
                })
        }
        tasks[1].resume()
        tasks[0].resume()
        await done.wait()
        #expect(bodies.value == [1: "first", 0: "second"])
    }

    @Test func theConfigurationsAdditionalHeadersApply() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(header: "X-App-Version", value: "7.1").match(
                header: .authorization, value: "mine"
            )
            .stub(for: .get, body: "ok"))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-App-Version": "7.1", "Authorization": "theirs"]
        var request = URLRequest(url: URL(string: "https://api.test/")!)
        request.setValue("mine", forHTTPHeaderField: "Authorization")  // the request's own wins
        let (data, _) = try await stubber.stubSession(configuration: configuration).data(for: request)
        #expect(String(decoding: data, as: UTF8.self) == "ok")
    }

    @Test func aCancelledTaskNeverSendsItsRequest() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get, code: .ok))
        let session = stubber.stubSession()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await session.data(from: URL(string: "https://api.test/")!)
        }
        await #expect { try await task.value } throws: { ($0 as? URLError)?.code == .cancelled }
        #expect(stubber.receivedCount == 0)
    }

    @Test func theSessionKeepsItsStubberAlive() async throws {
        let session = {
            let stubber = HTTPStubber()
            stubber.add(stub: HTTPStubRequest().stub(for: .get, body: "still here"))
            return stubber.stubSession()
        }()
        let (data, _) = try await session.data(from: URL(string: "https://api.test/")!)
        #expect(String(decoding: data, as: UTF8.self) == "still here")
    }

    @Test func theDefaultStubberIsTheCurrentOne() async throws {
        let stubber = HTTPStubber()
        let session = stubber.withCurrent { HTTPStubSession() }
        #expect(session.stubber === stubber)
        #expect(HTTPStubSession().stubber === HTTPStubber.shared, "outside any scope, the shared stubber")
    }

    @Test func aRequestWithoutURLFails() async throws {
        var request = URLRequest(url: URL(string: "https://api.test/")!)
        request.url = nil
        await #expect {
            try await HTTPStubber().stubSession().data(for: request)
        } throws: { error in
            (error as? HTTPStubberError)?.code == .invalidRequest
        }
    }

    @Test func anUnreadableUploadFileFailsLikeURLSession() async throws {
        let missing = URL(fileURLWithPath: "/nonexistent/stuntdouble-\(UUID()).bin")
        await #expect {
            try await HTTPStubber().stubSession().upload(
                for: URLRequest(url: URL(string: "https://api.test/")!), fromFile: missing)
        } throws: { error in
            (error as? URLError)?.code == .fileDoesNotExist
        }
    }

    @Test func bothProtocolsAcceptBothSessions() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get, body: "hi"))
        let sessions: [any AsyncURLSessionProtocol] = [stubber.session(), stubber.stubSession()]
        for session in sessions {
            let (data, _) = try await session.data(from: URL(string: "https://api.test/")!)
            #expect(data == Data("hi".utf8))
        }
        let completionSessions: [any URLSessionProtocol] = [stubber.session(), stubber.stubSession()]
        for session in completionSessions {
            let data = await withCheckedContinuation { continuation in
                session.dataTask(with: URL(string: "https://api.test/")!) { data, _, _ in
                    continuation.resume(returning: data)
                }.resume()
            }
            #expect(data == Data("hi".utf8))
        }
    }
}
