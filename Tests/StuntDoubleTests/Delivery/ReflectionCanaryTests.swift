import Foundation
import TestSupport
import Testing

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct ReflectionCanaryTests {
    /// FoundationNetworking's private facts that delivery reads, found on this Foundation.
    @Test(
        .enabled(if: isFoundationNetworking, "Apple's Foundation has none of these private facts; delivery reads none"))
    func theTaskStateDeliveryReadsIsFound() async throws {
        #if canImport(FoundationNetworking)
        let stubber = HTTPStubber()
        let delegateSession = stubber.session(delegate: RecordingDelegate())
        let delegateTask = delegateSession.dataTask(with: URL(string: "https://a.test/")!)
        let completionTask = delegateSession.dataTask(with: URL(string: "https://a.test/")!) { _, _, _ in }
        // The session records its tasks on its work queue; delivery reads them there, in startLoading. Wait
        // until that queue has recorded these two.
        await withCheckedContinuation { done in delegateSession.getAllTasks { _ in done.resume() } }
        let delegateContext = TaskIntrospection(delegateTask)
        #expect(delegateContext.session === delegateSession)
        #expect(delegateContext.workQueue != nil)
        #expect(delegateContext.receivesChunks)

        #expect(!TaskIntrospection(completionTask).receivesChunks)

        var upload = URLRequest(url: URL(string: "https://a.test/")!)
        upload.httpMethod = "POST"
        let uploadTask = delegateSession.uploadTask(with: upload, from: Data("body".utf8))
        guard case .body(let body) = TaskIntrospection(uploadTask).uploadBody() else {
            Issue.record("the upload body was not found")
            return
        }
        #expect(body == Data("body".utf8))
        #endif
    }
}
