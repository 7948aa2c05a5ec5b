import Foundation
import InMemoryLogging
import Logging
import StuntDouble
import StuntDoubleTargets
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records every plugin call, in order.
final class RecordingPlugin: PluginType, @unchecked Sendable {
    private let lock = NSLock()
    private var log: [String] = []
    let name: String

    init(_ name: String) {
        self.name = name
    }

    var calls: [String] { lock.withLock { log } }

    private func record(_ call: String) {
        lock.withLock { log.append("\(name).\(call)") }
    }

    func prepare(_ request: URLRequest, target: any TargetType) -> URLRequest {
        record("prepare")
        var request = request
        request.setValue((request.value(forHTTPHeaderField: "X-Plugins") ?? "") + name, forHTTPHeaderField: "X-Plugins")
        return request
    }

    func willSend(_ request: URLRequest, target: any TargetType) {
        record("willSend(\(request.value(forHTTPHeaderField: "X-Plugins") ?? ""))")
    }

    func didReceive(_ result: Result<Response, APIError>, target: any TargetType) {
        switch result {
        case .success(let response): record("didReceive(\(response.statusCode))")
        case .failure(let error): record("didReceive(\(error.code))")
        }
    }

    func process(_ result: Result<Response, APIError>, target: any TargetType) -> Result<Response, APIError> {
        record("process")
        return result
    }
}

@Suite struct ProviderTests {
    @Test func pluginsSeeStubbedRequestsInOrder() async throws {
        let first = RecordingPlugin("a")
        let second = RecordingPlugin("b")
        let provider = APIProvider<GitHub>(stubClosure: APIProvider.immediatelyStub, plugins: [first, second])
        let response = try await provider.request(.zen)
        #expect(response.request?.value(forHTTPHeaderField: "X-Plugins") == "ab", "prepared by both, in order")
        #expect(first.calls == ["a.prepare", "a.willSend(ab)", "a.didReceive(200)", "a.process"])
        #expect(second.calls == ["b.prepare", "b.willSend(ab)", "b.didReceive(200)", "b.process"])
    }

    @Test func stubbedAndRealResponsesAreValidatedAlike() async throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(status: 404, body: Data("missing".utf8)) }
        defer { server.stop() }
        let target = Configurable(baseURL: server.baseURL, path: "/gone", validationType: .successCodes)
        let plugin = RecordingPlugin("p")
        let real = APIProvider<Configurable>(plugins: [plugin])
        let stubbed = APIProvider<Configurable>(
            endpointClosure: { target in
                Endpoint(
                    url: URL(target: target).absoluteString, sampleResponseClosure: { .networkResponse(404, Data()) },
                    method: target.method, task: target.task, httpHeaderFields: target.headers)
            }, stubClosure: APIProvider.immediatelyStub, plugins: [plugin])
        for provider in [real, stubbed] {
            do {
                _ = try await provider.request(target)
                Issue.record("expected a status code error")
            } catch {
                #expect(error.code == .statusCode)
                #expect(error.response?.statusCode == 404)
            }
        }
        #expect(
            plugin.calls.filter { $0.hasPrefix("p.didReceive") } == [
                "p.didReceive(statusCode)", "p.didReceive(statusCode)",
            ])
        #expect(server.requests.count == 1, "only the real provider reached the server")
    }

    @Test func theAccessTokenPluginSignsRequests() async throws {
        let provider = APIProvider<GitHub>(
            stubClosure: APIProvider.immediatelyStub,
            plugins: [AccessTokenPlugin { target in (target as? GitHub).map { _ in "secret-token" } }])
        let response = try await provider.request(.zen)
        #expect(response.request?.value(forHTTPHeaderField: "Authorization") == "Bearer secret-token")
        let anonymous = APIProvider<Configurable>(
            stubClosure: APIProvider.immediatelyStub, plugins: [AccessTokenPlugin { _ in nil }])
        #expect(try await anonymous.request(Configurable()).request?.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test func theLoggingPluginLogsWithSwiftLog() async throws {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .trace
        let provider = APIProvider<GitHub>(
            stubClosure: APIProvider.immediatelyStub, plugins: [LoggingPlugin(logger: logger, logsBodies: true)])
        _ = try await provider.request(.zen)
        let messages = handler.entries.map { "\($0.level): \($0.message)" }
        #expect(messages.contains("debug: sending GET https://api.github.com/zen"))
        #expect(messages.contains("info: received 200 from https://api.github.com/zen"))
        #expect(messages.contains("trace: response body: Half measures are as bad as nothing at all."))
        let received = try #require(handler.entries.first { $0.level == .info })
        #expect(received.metadata["http.status_code"] == "200")

        let failing = APIProvider<GitHub>(
            endpointClosure: { target in
                Endpoint(
                    url: URL(target: target).absoluteString,
                    sampleResponseClosure: { .networkError(URLError(.notConnectedToInternet)) }, method: target.method,
                    task: target.task, httpHeaderFields: target.headers)
            }, stubClosure: APIProvider.immediatelyStub, plugins: [LoggingPlugin(logger: logger)])
        _ = try? await failing.request(.zen)
        #expect(handler.entries.contains { $0.level == .error && $0.metadata["error"] == "underlying" })
    }

    @Test func cancellingADelayedStubReportsCancellation() async throws {
        let provider = APIProvider<GitHub>(stubClosure: APIProvider.delayedStub(30))
        let request = Task { try await provider.request(.zen) }
        try await Task.sleep(for: .milliseconds(50))
        request.cancel()
        do {
            _ = try await request.value
            Issue.record("expected a cancellation")
        } catch let error as APIError {
            #expect(error.isCancellation)
        }
    }

    @Test func theCompletionAPIReportsResultsAndCancellation() async throws {
        let provider = APIProvider<GitHub>(stubClosure: APIProvider.immediatelyStub)
        let result = await withCheckedContinuation { done in
            provider.request(.zen) { done.resume(returning: $0) }
        }
        #expect(try result.get().statusCode == 200)

        let delayed = APIProvider<GitHub>(stubClosure: APIProvider.delayedStub(0.3))
        let cancelled = await withCheckedContinuation { done in
            let token = delayed.request(.zen, callbackQueue: .global()) { done.resume(returning: $0) }
            token.cancel()
            #expect(token.isCancelled)
        }
        guard case .failure(let error) = cancelled else {
            Issue.record("a cancelled request must not succeed late")
            return
        }
        #expect(error.isCancellation)
    }
}

@Suite struct RealRequestTests {
    @Test func realRequestsReachAServer() async throws {
        let server = try TestHTTPServer { request in
            TestHTTPServer.Reply(
                status: 201, headers: ["Content-Type": "application/json"],
                body: Data(#"{"method": "\#(request.method)", "target": "\#(request.target)"}"#.utf8))
        }
        defer { server.stop() }
        let provider = APIProvider<Configurable>(plugins: [AccessTokenPlugin { _ in "t0k" }])
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
        let provider = APIProvider<Configurable>()
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

    @Test func transportLevelStubsUnderTheTypedLayer() async throws {
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
        let provider = APIProvider<GitHub>(session: stubber.session())
        let repos = try await provider.request(.userRepositories("mark")).map([Repository].self)
        #expect(repos == [Repository(name: "mark-repo")])
        do {
            _ = try await provider.request(.zen)
            Issue.record("expected the transport error")
        } catch {
            #expect(error.code == .underlying)
            #expect((error.underlyingError as? URLError)?.code == .timedOut)
        }
    }
}
