import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A task resumed twice in a row, answered at once.
///
/// FoundationNetworking traps ("Trying to access a behaviour for a task that in not in the registry") when a
/// second `resume()` reaches a task whose protocol has finished but whose completion the session has not yet
/// handed over: it then fails the task once more, after removing it. A protocol that answers inside
/// `startLoading` finishes before a second `resume()` made right after the first reaches the work queue, so
/// that every such pair risks the trap (a trivial protocol did it in every run of 3,000 pairs here; StuntDouble's
/// URLSession path in about one run of three, which crashed CI's ThreadSanitizer pass). StuntDouble answers on
/// the next turn of the work queue, after the second `resume()`.
@Suite struct DoubleResumeTests {
    final class Completion: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var responses = 0
        var responseCount: Int { lock.withLock { responses } }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            lock.withLock { responses += 1 }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            done.signal()
        }
    }

    @Test func resumingTwiceInARowNeverTraps() {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URL: "https://a.test/now").stub(for: .get, body: "now"))
        stubber.add(stub: HTTPStubRequest().match(URL: "https://a.test/missing").stub(for: .post, body: "no"))
        for index in 0..<2_000 {
            let completion = Completion()
            let session = stubber.session(delegate: completion)
            // An answer, and (every other time) an immediate failure: both used to be delivered in startLoading.
            let task = session.dataTask(
                with: URL(string: index % 2 == 0 ? "https://a.test/now" : "https://a.test/missing")!)
            task.resume()
            task.resume()
            completion.done.wait()
            #expect(completion.responseCount == (index % 2 == 0 ? 1 : 0))
            session.finishTasksAndInvalidate()
        }
        #expect(stubber.journal.count == 2_000)
    }
}
