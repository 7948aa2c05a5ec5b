import Foundation
import InMemoryLogging
import Logging
import StuntDouble
import StuntDoubleTargets
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct RealRequestTests {
    @Test func realRequestsReachAServer() async throws {
        let server = try TestHTTPServer { request in
            TestHTTPServer.Reply(
                status: 201, headers: ["Content-Type": "application/json"],
                body: Data(#"{"method": "\#(request.method)", "target": "\#(request.target)"}"#.utf8))
        }
        defer { server.stop() }
        let provider = APIProvider<Configurable>(
            session: URLSession.unintercepted, plugins: [AccessTokenPlugin { _ in "t0k" }])
        let target = Configurable(
            baseURL: server.baseURL, path: "/items", method: .post,
            task: .requestCompositeParameters(
                bodyParameters: ["name": "pen"], bodyEncoding: .json, urlParameters: ["v": 1]),
            validationType: .successCodes)
        let response = try await provider.request(target)
        #expect(response.statusCode == 201)
        #expect(response.response?.value(forHTTPHeaderField: "Content-Type") == "application/json")
        struct Echo: Decodable {
            let method: String
            let target: String
        }
        let echo = try response.map(Echo.self)
        #expect(echo.method == "POST")
        #expect(echo.target == "/items?v=1")
        let received = try #require(server.requests.first)
        #expect(received.body == Data(#"{"name":"pen"}"#.utf8))
        #expect(received.header("Authorization") == "Bearer t0k")
        #expect(received.header("Content-Type") == "application/json")
    }

    @Test func cancellingARealRequest() async throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(body: Data("late".utf8), delay: 5) }
        defer { server.stop() }
        let provider = APIProvider<Configurable>(session: URLSession.unintercepted)
        let target = Configurable(baseURL: server.baseURL, path: "/slow")
        let result = await withCheckedContinuation { done in
            let token = provider.request(target) { done.resume(returning: $0) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { token.cancel() }
        }
        guard case .failure(let error) = result else {
            Issue.record("a cancelled request must not succeed")
            return
        }
        #expect(error.isCancellation, "\(error)")
    }

    /// Through a real URLSession the stubber answers, and through its stub session (no URLSession).
    @Test(arguments: [false, true])
    func transportLevelStubsUnderTheTypedLayer(throughStubSession: Bool) async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "https://api.github.com/users/{name}/repos")
                .stub(
                    for: .get,
                    responseProvider: { request, _ in
                        HTTPStubResponse(
                            statusCode: .ok, contentType: .json,
                            body: Data(#"[{"name": "\#(request[templateVariable: "name"] ?? "")-repo"}]"#.utf8))
                    }))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.github.com/zen").stub(for: .get, error: URLError(.timedOut))
        )
        // A real provider (no target-level stubs) over a session the stubber answers.
        let session: any AsyncURLSessionProtocol = throughStubSession ? stubber.stubSession() : stubber.session()
        let provider = APIProvider<GitHub>(session: session)
        let repos = try await provider.request(.userRepositories("mark")).map([Repository].self)
        #expect(repos == [Repository(name: "mark-repo")])
        do {
            _ = try await provider.request(.zen)
            Issue.record("expected the transport error")
        } catch {
            #expect(error.code == .underlying)
            #expect((error.underlyingError as? URLError)?.code == .timedOut)
        }
        #expect(
            stubber.journal.map(\.path) == Array(repeating: throughStubSession ? .stubSession : .urlSession, count: 2))
    }
}
