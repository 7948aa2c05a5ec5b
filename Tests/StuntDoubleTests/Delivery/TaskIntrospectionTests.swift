import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The facts about FoundationNetworking that delivery relies on and reads by reflection. If a Foundation
/// release changes them, these tests fail first, and name what changed.
@Suite struct TaskIntrospectionTests {
    @Test func completionAndDelegateTasksAreToldApart() async throws {
        let stubber = HTTPStubber()
        let body = Data(repeating: 9, count: 2_000)
        stubber.add(
            stub: HTTPStubRequest().stub(for: .get) {
                $0.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 20_000))
                $0.body = body
            })
        let delegate = RecordingDelegate()
        let session = stubber.session(delegate: delegate)
        session.dataTask(with: URL(string: "https://a.test/")!).resume()
        _ = await delegate.completed()
        #expect(delegate.chunks.count > 1, "a session-delegate task receives chunks")
        #expect(delegate.body == body)
        // A completion-handler task of the same session receives the whole body, not its last chunk.
        let (data, _) = try await session.data(from: URL(string: "https://a.test/")!)
        #expect(data == body)
    }
}
