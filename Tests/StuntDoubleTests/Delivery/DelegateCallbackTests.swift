import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a client's session delegate hears about stubbed requests: redirects to decide, upload progress.
@Suite struct DelegateCallbackTests {
    let stubber: HTTPStubber

    init() {
        stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "https://a.test/{path}").stubEcho())
        let redirect = HTTPStubRequest().match(URL: "https://a.test/from").stub(for: .get) {
            $0.statusCode = .found
            $0.headers[.location] = "/to"
            $0.body = Data("moved".utf8)
        }
        redirect.priority = 1
        stubber.add(stub: redirect)
    }

    @Test func aDelegateThatRefusesARedirectReceivesThe3xx() async throws {
        let delegate = RecordingDelegate(redirect: { _ in nil })
        let session = stubber.session(delegate: delegate)
        session.dataTask(with: URL(string: "https://a.test/from")!).resume()
        #expect(await delegate.completed() == nil)
        let response = try #require(delegate.response as? HTTPURLResponse)
        #expect(response.statusCode == 302)
        #expect(response.value(forHTTPHeaderField: "Location") == "/to")
        #expect(String(decoding: delegate.body, as: UTF8.self) == "moved")
        #expect(delegate.redirectsAsked.map(\.status) == [302])
        #expect(delegate.redirectsAsked.map(\.target) == [URL(string: "https://a.test/to")])
        #expect(stubber.journal.count == 1, "the target was never requested")
        #expect(stubber.journal.first?.completion?.statusCode == .found)
    }

    @Test func aDelegateCanChangeWhereARedirectGoes() async throws {
        let delegate = RecordingDelegate(redirect: { request in
            var changed = request
            changed.url = URL(string: "https://a.test/elsewhere")
            changed.setValue("yes", forHTTPHeaderField: "X-Changed")
            return changed
        })
        let session = stubber.session(delegate: delegate)
        session.dataTask(with: URL(string: "https://a.test/from")!).resume()
        #expect(await delegate.completed() == nil)
        let response = try #require(delegate.response as? HTTPURLResponse)
        #expect(response.statusCode == 200)
        #expect(response.url == URL(string: "https://a.test/elsewhere"))
        #expect(response.value(forHTTPHeaderField: "X-Echo-URL") == "https://a.test/elsewhere")
        #expect(stubber.journal.map { $0.request.headers["X-Changed"] } == [nil, "yes"])
    }

    @Test func aSessionWithoutADelegateFollowsRedirects() async throws {
        let (_, response) = try await stubber.session().data(from: URL(string: "https://a.test/from")!)
        #expect(response.url == URL(string: "https://a.test/to"))
    }

    @Test func anUploadTellsItsDelegateTheBodyWasSent() async throws {
        #if canImport(FoundationNetworking)
        let delegate = RecordingDelegate()
        var request = URLRequest(url: URL(string: "https://a.test/upload")!)
        request.httpMethod = "POST"
        stubber.session(delegate: delegate).uploadTask(with: request, from: Data(repeating: 1, count: 5_000))
            .resume()
        #expect(await delegate.completed() == nil)
        #expect(delegate.bytesSent == [5_000], "once, with the whole body, before the response")
        #endif
    }
}
