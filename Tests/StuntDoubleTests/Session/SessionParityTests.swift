import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The two delivery paths of a stubber: a `URLSession` through StuntDouble's URLProtocol, and an
/// `HTTPStubSession` without URLSession. Each behaviour below is asserted through both.
enum DeliveryPath: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    case stubSession

    var testDescription: String { rawValue }

    func session(_ stubber: HTTPStubber, configuration: URLSessionConfiguration = .ephemeral)
        -> any AsyncURLSessionProtocol
    {
        switch self {
        case .urlSession: stubber.session(configuration: configuration)
        case .stubSession: stubber.stubSession(configuration: configuration)
        }
    }

    var journalPath: HTTPDeliveryPath {
        switch self {
        case .urlSession: .urlSession
        case .stubSession: .stubSession
        }
    }
}

/// A custom error type, to check that errors reach the caller as they were stubbed.
struct TeapotError: Error, Equatable {
    let reason: String
}

@Suite struct SessionParityTests {
    @Test(arguments: DeliveryPath.allCases)
    func statusHeadersAndBody(_ path: DeliveryPath) async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "https://api.test/users/{id}").match(header: .accept)
                .stub(
                    for: .get,
                    responseProvider: { request, _ in
                        HTTPStubResponse(
                            statusCode: .created, contentType: .json,
                            body: Data(#"{"id": "\#(request[templateVariable: "id"] ?? "")"}"#.utf8),
                            headers: ["X-Trace": "abc"])
                    }))
        var request = URLRequest(url: URL(string: "https://api.test/users/42")!)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await path.session(stubber).data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 201)
        #expect(http.url?.absoluteString == "https://api.test/users/42")
        #expect(http.value(forHTTPHeaderField: "x-trace") == "abc")
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(http.value(forHTTPHeaderField: "Content-Length") == "12")
        #expect(String(decoding: data, as: UTF8.self) == #"{"id": "42"}"#)
        #expect(stubber.journal.map(\.path) == [path.journalPath])
    }

    @Test(arguments: DeliveryPath.allCases)
    func errorsReachTheCallerUnchanged(_ path: DeliveryPath) async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/teapot").stub(
                for: .get, error: TeapotError(reason: "short and stout")))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/offline").stub(
                for: .get, error: URLError(.notConnectedToInternet)))
        let session = path.session(stubber)
        await #expect(throws: TeapotError(reason: "short and stout")) {
            try await session.data(from: URL(string: "https://api.test/teapot")!)
        }
        await #expect(throws: URLError(.notConnectedToInternet)) {
            try await session.data(from: URL(string: "https://api.test/offline")!)
        }
    }

    @Test(arguments: DeliveryPath.allCases)
    func anUnmatchedRequestFailsWithTheReport(_ path: DeliveryPath) async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest(name: "user").match(URL: "https://api.test/users/1").stub(for: .get, code: .ok))
        do {
            _ = try await path.session(stubber).data(from: URL(string: "https://api.test/users/2")!)
            Issue.record("expected the unmatched-request error")
        } catch let error as HTTPStubberError {
            #expect(error.code == .unmatchedRequest)
            #expect(error.report?.candidates.first?.stub.name == "user")
            #expect(error.message.contains("No stub matched GET https://api.test/users/2"))
        }
        #expect(stubber.unmatchedCount == 1)
    }

    @Test(arguments: DeliveryPath.allCases)
    func uploadsReachMatchersAsTheBody(_ path: DeliveryPath) async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/upload").match(body: "from data").stub(
                for: .post, body: "data ok"))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/upload").match(body: "from a file").stub(
                for: .post, body: "file ok"))
        let session = path.session(stubber)
        var request = URLRequest(url: URL(string: "https://api.test/upload")!)
        request.httpMethod = "POST"
        let (fromData, _) = try await session.upload(for: request, from: Data("from data".utf8))
        #expect(String(decoding: fromData, as: UTF8.self) == "data ok")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stuntdouble-\(UUID()).txt")
        try Data("from a file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (fromFile, _) = try await session.upload(for: request, fromFile: file)
        #expect(String(decoding: fromFile, as: UTF8.self) == "file ok")
    }

    /// Timing assertions are lower bounds (a timer never fires early) and a generous hang guard; accuracy is
    /// the benchmark's business.
    @Test(arguments: DeliveryPath.allCases)
    func delaysAndThrottling(_ path: DeliveryPath) async throws {
        let body = Data((0..<3000).map { UInt8($0 % 251) })
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/slow").stub(for: .get) {
                $0.responseTime = .delayedBy(0.2)
            })
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/file")
                .stub(for: .get) {
                    $0.responseDelay = 0.1
                    $0.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 10_000))  // 0.3 s more
                    $0.body = body
                })
        let session = path.session(stubber)
        var start = ContinuousClock.now
        _ = try await session.data(from: URL(string: "https://api.test/slow")!)
        #expect(secondsSince(start) >= 0.2)
        start = .now
        let (data, _) = try await session.data(from: URL(string: "https://api.test/file")!)
        #expect(data == body)
        #expect(secondsSince(start) >= 0.4)
        #expect(secondsSince(start) < 120, "a hang guard, not a timing claim")
    }

    @Test(arguments: DeliveryPath.allCases)
    func theSessionTimeoutApplies(_ path: DeliveryPath) async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().stub(for: .get) { $0.responseDelay = 300 })
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 0.3
        let start = ContinuousClock.now
        await #expect {
            try await path.session(stubber, configuration: configuration).data(from: URL(string: "https://a.test/")!)
        } throws: { error in
            (error as? URLError)?.code == .timedOut
        }
        #expect(secondsSince(start) >= 0.3)
        #expect(secondsSince(start) < 120, "well before the 300-second delay (generous for ThreadSanitizer)")
        let completion = try #require(stubber.journal.first?.completion)
        #expect((completion.error as? URLError)?.code == .timedOut)
    }

    @Test(arguments: DeliveryPath.allCases)
    func cancellingTheTaskCancelsTheRequest(_ path: DeliveryPath) async throws {
        let stubber = HTTPStubber()
        let received = Signal()
        stubber.add(
            stub: HTTPStubRequest().stub(
                for: .get,
                responseProvider: { _, _ in
                    received.fire()
                    let response = HTTPStubResponse(statusCode: .ok)
                    response.responseDelay = 30
                    return response
                }))
        let session = path.session(stubber)
        let request = Task { try await session.data(from: URL(string: "https://a.test/slow")!) }
        await received.wait()
        request.cancel()
        await #expect {
            try await request.value
        } throws: { error in
            (error as? URLError)?.code == .cancelled
        }
        // The journal learns of the cancellation when the path does; wait for it without a fixed sleep.
        var completion = stubber.journal.first?.completion
        for _ in 0..<500 where completion == nil {
            try await Task.sleep(for: .milliseconds(10))
            completion = stubber.journal.first?.completion
        }
        #expect((completion?.error as? URLError)?.code == .cancelled)
    }

    @Test(arguments: DeliveryPath.allCases)
    func redirectsAreFollowed(_ path: DeliveryPath) async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/login")
                .stub(for: .post) {
                    $0.statusCode = .seeOther
                    $0.headers = [.location: "/home"]
                })
        stubber.add(stub: HTTPStubRequest().match(URL: "https://api.test/home").stub(for: .get, body: "welcome"))
        var request = URLRequest(url: URL(string: "https://api.test/login")!)
        request.httpMethod = "POST"
        request.httpBody = Data("user=mark".utf8)
        let (data, response) = try await path.session(stubber).data(for: request)
        #expect(String(decoding: data, as: UTF8.self) == "welcome")
        #expect(response.url?.absoluteString == "https://api.test/home")
        let journal = stubber.journal
        #expect(journal.map { "\($0.request.method) \($0.request.url.path)" } == ["POST /login", "GET /home"])
        #expect(journal.last?.request.body == nil, "a 303 turns the POST into a GET without body")
    }

    @Test(arguments: DeliveryPath.allCases)
    func cookiesAreStoredAndSentBack(_ path: DeliveryPath) async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/login")
                .stub(for: .post) { $0.headers = [.setCookie: "session=s3cr3t; Path=/"] })
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/me").match(header: .cookie, value: "session=s3cr3t")
                .stub(for: .get, body: "mark"))
        let session = path.session(stubber)
        var login = URLRequest(url: URL(string: "https://api.test/login")!)
        login.httpMethod = "POST"
        _ = try await session.data(for: login)
        let (data, _) = try await session.data(from: URL(string: "https://api.test/me")!)
        #expect(String(decoding: data, as: UTF8.self) == "mark")
    }

    @Test(arguments: DeliveryPath.allCases)
    func ignoredRequestsGoToTheNetwork(_ path: DeliveryPath) async throws {
        let stubber = HTTPStubber()
        stubber.add(ignoreURL: "http://127.0.0.1:9/", options: [.ignorePath])
        // Port 9 (discard) is closed here: the request reaches the network stack and fails there.
        await #expect {
            try await path.session(stubber).data(from: URL(string: "http://127.0.0.1:9/nothing")!)
        } throws: { error in
            let code = (error as? URLError)?.code
            return code == .cannotConnectToHost || code == .networkConnectionLost || code == .timedOut
        }
        let entry = try #require(stubber.journal.first)
        guard case .passThrough(.ignored) = entry.decision else {
            Issue.record("expected a pass-through, got \(entry)")
            return
        }
    }

    @Test(arguments: DeliveryPath.allCases)
    func anIgnoredUpstreamIsReachedEvenUnderACatchAllStub(_ path: DeliveryPath) async throws {
        let upstream = try TestHTTPServer { _ in .init(body: Data("from the upstream".utf8)) }
        defer { upstream.stop() }
        let stubber = HTTPStubber()
        stubber.add(stub: try HTTPStubRequest().match(urlRegex: "(?s).*").stub(for: .get, body: "stubbed"))
        stubber.add(ignoreURL: upstream.baseURL.absoluteString, options: [.ignorePath, .ignoreQueryParameters])
        let session = path.session(stubber)

        let (real, _) = try await session.data(from: upstream.baseURL.appendingPathComponent("v1/items"))
        let (stubbed, _) = try await session.data(from: URL(string: "https://api.test/anything")!)
        #expect(String(decoding: real, as: UTF8.self) == "from the upstream")
        #expect(String(decoding: stubbed, as: UTF8.self) == "stubbed")
        #expect(upstream.requests.map(\.target) == ["/v1/items"])
        let entry = try #require(stubber.journal.first)
        #expect(entry.description.contains("passed through to the network (ignore rule: URL is \(upstream.baseURL)"))
    }

    @Test(arguments: DeliveryPath.allCases)
    func noResponseAndNoDataForCallersThatMustReturnBoth(_ path: DeliveryPath) async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/nothing").stub(for: .get, response: .noResponse()))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/empty").stub(
                for: .get, response: .noData(statusCode: .ok)))
        let session = path.session(stubber)
        await #expect {
            try await session.data(from: URL(string: "https://api.test/nothing")!)
        } throws: { error in
            (error as? URLError)?.code == .badServerResponse
        }
        let (data, response) = try await session.data(from: URL(string: "https://api.test/empty")!)
        #expect(data.isEmpty)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test(arguments: DeliveryPath.allCases)
    func responseSequencesAdvancePerRequest(_ path: DeliveryPath) async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/flaky")
                .stub(for: .get, sequence: [.status(500), .status(503), .json(#"{"ok": true}"#)]))
        let session = path.session(stubber)
        var codes: [Int] = []
        for _ in 0..<4 {
            let (_, response) = try await session.data(from: URL(string: "https://api.test/flaky")!)
            codes.append((response as? HTTPURLResponse)?.statusCode ?? 0)
        }
        #expect(codes == [500, 503, 200, 200])
    }
}
