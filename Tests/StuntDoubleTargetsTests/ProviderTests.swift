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

extension URLSession {
    /// A session that no stubber intercepts, for tests that reach a loopback server. Not `URLSession.shared`:
    /// tests that run at the same time may enable `HTTPStubber.shared`, which answers `URLSession.shared`'s
    /// requests for the whole process (seen in CI: a real request failed as "disabled while starting").
    static var unintercepted: URLSession { URLSession(configuration: .ephemeral) }
}

/// A log that several plugins write to, in order.
final class CallLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [String] = []

    var calls: [String] { lock.withLock { log } }

    func record(_ call: String) {
        lock.withLock { log.append(call) }
    }
}

/// Records every plugin call, in order, in its own log and a shared one.
final class RecordingPlugin: PluginType, @unchecked Sendable {
    private let own = CallLog()
    private let shared: CallLog?
    let name: String

    init(_ name: String, shared: CallLog? = nil) {
        self.name = name
        self.shared = shared
    }

    var calls: [String] { own.calls }

    private func record(_ call: String) {
        own.record("\(name).\(call)")
        shared?.record("\(name).\(call)")
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
        let log = CallLog()
        let provider = APIProvider<GitHub>(
            stubClosure: APIProvider.immediatelyStub,
            plugins: [RecordingPlugin("a", shared: log), RecordingPlugin("b", shared: log)])
        let response = try await provider.request(.zen)
        #expect(response.request?.value(forHTTPHeaderField: "X-Plugins") == "ab", "prepared by both, in order")
        #expect(
            log.calls == [
                "a.prepare", "b.prepare", "a.willSend(ab)", "b.willSend(ab)", "a.didReceive(200)", "b.didReceive(200)",
                "a.process", "b.process",
            ])
    }

    @Test func pluginsCanTurnAResultIntoAFailureInTurn() async throws {
        /// Turns a 200 whose body says "error" into a failure.
        struct ErrorPayload: PluginType {
            func process(_ result: Result<Response, APIError>, target: any TargetType) -> Result<Response, APIError> {
                guard case .success(let response) = result, response.data.starts(with: Data("Half".utf8)) else {
                    return result
                }
                return .failure(APIError(.statusCode, "the payload reports an error", response: response))
            }
        }
        let after = RecordingPlugin("after")
        let provider = APIProvider<GitHub>(stubClosure: APIProvider.immediatelyStub, plugins: [ErrorPayload(), after])
        do {
            _ = try await provider.request(.zen)
            Issue.record("expected the plugin's failure")
        } catch {
            #expect(error.message == "the payload reports an error")
            #expect(error.response?.statusCode == 200)
        }
        #expect(after.calls.last == "after.process", "the next plugin processes the changed result")
    }

    @Test func aRequestThatCannotBeBuiltReachesPluginsAsAFailure() async throws {
        let plugin = RecordingPlugin("p")
        let provider = APIProvider<Configurable>(stubClosure: APIProvider.immediatelyStub, plugins: [plugin])
        let missing = URL(fileURLWithPath: "/nonexistent/stuntdouble")
        do {
            _ = try await provider.request(
                Configurable(task: .uploadMultipart([MultipartFormBodyPart(provider: .file(missing), name: "f")])))
            Issue.record("expected a mapping error")
        } catch {
            #expect(error.code == .requestMapping)
        }
        #expect(plugin.calls == ["p.didReceive(requestMapping)", "p.process"], "never prepared nor sent")
    }

    @Test(arguments: [
        (ValidationType.successCodes, 302, false), (.successAndRedirectCodes, 302, true),
        (.customCodes([418]), 418, true),
        (.customCodes([418]), 200, false), (ValidationType.none, 500, true),
    ])
    func validationAppliesToStubs(validation: ValidationType, status: Int, accepted: Bool) async throws {
        let provider = APIProvider<Configurable>(
            endpointClosure: { target in
                Endpoint(
                    url: URL(target: target).absoluteString,
                    sampleResponseClosure: { .networkResponse(status, Data()) },
                    method: target.method, task: target.task, httpHeaderFields: target.headers)
            }, stubClosure: APIProvider.immediatelyStub)
        let result = await withCheckedContinuation { done in
            provider.request(Configurable(validationType: validation)) { done.resume(returning: $0) }
        }
        switch result {
        case .success(let response): #expect(accepted && response.statusCode == status)
        case .failure(let error): #expect(!accepted && error.code == .statusCode)
        }
    }

    @Test func stubbedAndRealResponsesAreValidatedAlike() async throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(status: 404, body: Data("missing".utf8)) }
        defer { server.stop() }
        let target = Configurable(baseURL: server.baseURL, path: "/gone", validationType: .successCodes)
        let plugin = RecordingPlugin("p")
        let real = APIProvider<Configurable>(session: URLSession.unintercepted, plugins: [plugin])
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
        let provider = APIProvider<GitHub>(stubClosure: APIProvider.delayedStub(.infinity))
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

    @Test func anImmediateStubCompletesBeforeRequestReturns() throws {
        let provider = APIProvider<GitHub>(stubClosure: APIProvider.immediatelyStub)
        let received = CallLog()
        provider.request(.zen) { result in received.record("\((try? result.get())?.statusCode ?? 0)") }
        #expect(received.calls == ["200"], "as tests written for synchronous stubs expect")
    }

    @Test func completionsRunOnTheCallbackQueue() async throws {
        let queue = DispatchQueue(label: "callbacks")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        for provider in [
            APIProvider<GitHub>(stubClosure: APIProvider.immediatelyStub, callbackQueue: queue),
            APIProvider<GitHub>(stubClosure: APIProvider.delayedStub(0.05), callbackQueue: queue),
        ] {
            let onQueue = await withCheckedContinuation { done in
                provider.request(.zen) { _ in done.resume(returning: DispatchQueue.getSpecific(key: key) == true) }
            }
            #expect(onQueue)
        }
    }

    @Test func theCompletionAPIReportsResultsAndCancellation() async throws {
        let delayed = APIProvider<GitHub>(stubClosure: APIProvider.delayedStub(0.3))
        let cancelled = await withCheckedContinuation { done in
            let token = delayed.request(.zen, callbackQueue: .global()) { done.resume(returning: $0) }
            token.cancel()
        }
        guard case .failure(let error) = cancelled else {
            Issue.record("a cancelled request must not succeed late")
            return
        }
        #expect(error.isCancellation)
    }
}
