import Foundation
import Testing

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An answer due at once is delivered one turn of the task's work queue after `startLoading`, never inside it.
///
/// Why it matters: FoundationNetworking traps ("Trying to access a behaviour for a task that in not in the
/// registry") when a second `resume()` reaches a task whose protocol has finished but whose completion the
/// session has not yet handed over. A protocol that answers inside `startLoading` has finished before a second
/// `resume()` made right after the first reaches the work queue (a trivial protocol crashed every run of 3,000
/// such pairs here, and StuntDouble's did in CI's ThreadSanitizer pass). Answering a turn later lets that second
/// `resume()` find the task still loading.
///
/// These tests hold the work queue and check the order, so they are deterministic; they do not resume tasks
/// twice under load, which would test FoundationNetworking's remaining window (a `resume()` arriving in the
/// instant between a response's end and its completion traps whatever the protocol does) rather than ours.
@Suite struct DoubleResumeTests {
    /// A URLProtocol client that records what it is told.
    final class RecordingClient: NSObject, URLProtocolClient, @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [String] = []
        var events: [String] { lock.withLock { recorded } }
        private func record(_ event: String) { lock.withLock { recorded.append(event) } }

        func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
            record("redirect")
        }
        func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {}
        func urlProtocol(
            _ protocol: URLProtocol, didReceive response: URLResponse, cacheStoragePolicy policy: URLCache.StoragePolicy
        ) {
            record("response \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        }
        func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) {
            record("data \(String(decoding: data, as: UTF8.self))")
        }
        func urlProtocolDidFinishLoading(_ protocol: URLProtocol) { record("finish") }
        func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) { record("fail") }
        func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {}
        func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {}
    }

    /// Starts the stubber's answer to `url` the way `startLoading` does, on the work queue of a real task (never
    /// resumed), and returns what the client had received when `startLoading` returned, and after one more turn.
    func play(_ url: String, on stubber: HTTPStubber, between: (ResponsePlayer.Answer) -> Void = { _ in }) throws
        -> (inside: [String], after: [String])
    {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: URL(string: url)!)
        let queue = try #require(TaskIntrospection.workQueue(of: task))
        let client = RecordingClient()
        let request = URLRequest(url: URL(string: url)!)
        let urlProtocol = URLProtocol(request: request, cachedResponse: nil, client: client)
        let inside = queue.sync { () -> [String] in
            let answer = ResponsePlayer.start(
                urlProtocol: urlProtocol, stubber: .success(stubber), client: client, request: request, task: task)
            between(answer)
            return client.events
        }
        queue.sync {}
        return (inside, client.events)
    }

    @Test func anAnswerDueAtOnceArrivesOneTurnAfterStartLoading() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: "https://a.test/now").stub(for: .get, body: "now"))
        let (inside, after) = try play("https://a.test/now", on: stubber)
        #expect(inside.isEmpty, "nothing is delivered inside startLoading")
        #expect(after == ["response 200", "data now", "finish"])
        #expect(stubber.journal.count == 1)
    }

    @Test func anImmediateFailureArrivesOneTurnAfterStartLoading() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: "https://a.test/now").stub(for: .post, body: "no"))
        let (inside, after) = try play("https://a.test/now", on: stubber)
        #expect(inside.isEmpty, "an unmatched request fails one turn later too")
        #expect(after == ["fail"])
    }

    @Test func aSecondStartLoadingBeforeTheAnswerIsIgnored() throws {
        // What a second resume() does once it reaches the work queue: calls startLoading again.
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: "https://a.test/now").stub(for: .get, body: "now"))
        let (inside, after) = try play("https://a.test/now", on: stubber) { $0.resume() }
        #expect(inside.isEmpty)
        #expect(after == ["response 200", "data now", "finish"], "answered once")
    }

    @Test func aStoppedAnswerIsNeverDelivered() throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: "https://a.test/now").stub(for: .get, body: "now"))
        let (inside, after) = try play("https://a.test/now", on: stubber) { $0.stop() }
        #expect(inside.isEmpty)
        #expect(after.isEmpty, "a task cancelled before its answer's turn receives nothing from the stub")
        #expect((stubber.journal.first?.completion?.error as? URLError)?.code == .cancelled)
    }
}
