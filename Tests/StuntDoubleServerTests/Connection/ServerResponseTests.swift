import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble
import StuntDoubleServer
import StuntDoubleWireMock
import Testing

/// Every kind of response, through AsyncHTTPClient (a client no one here wrote) against a real server.
@Suite struct ServerResponseTests {
    let client = HTTPClient.shared

    func get(
        _ url: URL, method: NIOHTTP1.HTTPMethod = .GET, headers: [(String, String)] = [], body: String? = nil
    ) async throws -> (HTTPClientResponse, String) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        for (name, value) in headers {
            request.headers.add(name: name, value: value)
        }
        if let body {
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return (response, String(buffer: bytes))
    }

    @Test func servesStatusHeadersAndBody() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest(name: "user").match(URI: "/users/{id}").stub(
                for: .get,
                responseProvider: { request, _ in
                    let response = HTTPStubResponse(
                        statusCode: .ok, contentType: .json,
                        body: Data(#"{"id": "\#(request[templateVariable: "id"] ?? "")"}"#.utf8))
                    response.headers.add(name: "Set-Cookie", value: "a=1")
                    response.headers.add(name: "Set-Cookie", value: "b=2")
                    return response
                }))
        try await withStubServer(stubber: stubber) { baseURL in
            let (response, body) = try await get(baseURL.appendingPathComponent("users/42"))
            #expect(response.status == .ok)
            #expect(body == #"{"id": "42"}"#)
            #expect(response.headers["Content-Type"] == ["application/json"])
            #expect(response.headers["Set-Cookie"] == ["a=1", "b=2"])
            #expect(response.headers["Content-Length"] == ["12"])
        }
        let entry = try #require(stubber.journal.first)
        #expect(entry.path == .server)
        #expect(entry.request.url.path == "/users/42")
        #expect(entry.completion?.statusCode == .ok)
        #expect(entry.completion?.bodyByteCount == 12)
    }

    @Test func anUnmatchedRequestGets404WithTheNearMissReport() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest(name: "users").match(URI: "/users/{id}").stub(for: .get, body: "u"))
        try await withStubServer(stubber: stubber) { baseURL in
            let (response, body) = try await get(baseURL.appendingPathComponent("user/42"))
            #expect(response.status == .notFound)
            #expect(response.headers["Content-Type"] == ["text/plain; charset=utf-8"])
            #expect(body.hasPrefix("Request was not matched\n"))
            #expect(body.contains(#"stub "users""#), "\(body)")
            #expect(body.contains("✗ URL matches template /users/{id}"), "\(body)")
        }
        #expect(stubber.unmatchedRequests.count == 1)
    }

    @Test func aRequestLetThroughGets502NamingTheMissingUpstream() async throws {
        let stubber = HTTPStubber()
        stubber.unhandledMode = .optin
        try await withStubServer(stubber: stubber) { baseURL in
            let (response, body) = try await get(baseURL.appendingPathComponent("anything"))
            #expect(response.status == .badGateway)
            #expect(body.contains("opt-in mode"))
            #expect(body.contains("no upstream"))
        }
    }

    @Test func aStubsErrorClosesTheConnectionWithoutAResponse() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/down").stub(for: .get, error: URLError(.notConnectedToInternet)))
        stubber.add(stub: HTTPStubRequest().match(URI: "/up").stub(for: .get, body: "fine"))
        try await withStubServer(stubber: stubber) { baseURL in
            await #expect(throws: (any Error).self) {
                _ = try await get(baseURL.appendingPathComponent("down"))
            }
            let (_, body) = try await get(baseURL.appendingPathComponent("up"))
            #expect(body == "fine", "the server keeps serving")
        }
        let failed = try #require(stubber.journal.first { $0.request.url.path == "/down" })
        #expect((failed.completion?.error as? URLError)?.code == .notConnectedToInternet)
    }

    @Test func headGetsTheHeadersWithoutTheBody() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/file").stubEcho())
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/doc").stub(
                for: .head, response: HTTPStubResponse(statusCode: .ok, body: Data("0123456789".utf8))))
        try await withStubServer(stubber: stubber) { baseURL in
            let (response, body) = try await get(baseURL.appendingPathComponent("doc"), method: .HEAD)
            #expect(response.status == .ok)
            #expect(response.headers["Content-Length"] == ["10"])
            #expect(body.isEmpty)
        }
    }

    @Test func sequencesAndScenariosAdvanceAcrossRequests() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/flaky").stub(
                for: .get,
                sequence: [.status(500), .status(503), HTTPStubResponse(statusCode: .ok, body: Data("ok".utf8))]))
        try await withStubServer(stubber: stubber) { baseURL in
            var statuses: [UInt] = []
            for _ in 0..<4 {
                statuses.append(try await get(baseURL.appendingPathComponent("flaky")).0.status.code)
            }
            #expect(statuses == [500, 503, 200, 200])
        }
    }

    @Test func aReasonPhraseAndMatchedStubHeadersFromStubFiles() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try Data(
            #"{"id": "8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7", "name": "teapot", "request": {"urlPath": "/tea"}, "response": {"status": 418, "statusMessage": "Short and stout", "jsonBody": {"b": 1, "a": 2}}}"#
                .utf8
        ).write(to: root.appendingPathComponent("mappings/tea.json"))
        let stubber = HTTPStubber()
        try stubber.load(stubFilesAt: root)
        try await withStubServer(stubber: stubber) { baseURL in
            let connection = try await RawConnection.connect(to: baseURL)
            try await connection.send("GET /tea HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let response = try #require(try await connection.readResponse())
            #expect(response.status == 418)
            #expect(response.reason == "Short and stout")
            #expect(response.header("Matched-Stub-Id") == "8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7")
            #expect(response.header("Matched-Stub-Name") == "teapot")
            #expect(response.text == #"{"b":1,"a":2}"#)
            await connection.close()
        }
    }

    @Test func theDelayComesBeforeTheHead() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/slow").stub(for: .get, delay: 0.5, body: "late"))
        stubber.add(stub: HTTPStubRequest().match(URI: "/fast").stub(for: .get, body: "early"))
        try await withStubServer(stubber: stubber) { baseURL in
            let clock = ContinuousClock()
            let start = clock.now
            async let slow = get(baseURL.appendingPathComponent("slow"))
            let (_, fast) = try await get(baseURL.appendingPathComponent("fast"))
            let fastDone = clock.now - start
            let (_, late) = try await slow
            let slowDone = clock.now - start
            #expect(fast == "early" && late == "late")
            #expect(slowDone >= .milliseconds(500), "not before its delay")
            #expect(fastDone < slowDone, "a delayed response does not hold up another connection")
        }
    }

    @Test func throttledBodiesTakeTheirTimeOverLoopback() async throws {
        let stubber = HTTPStubber()
        let body = Data(repeating: 0x61, count: 3000)
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/throttled").stub(for: .get) {
                $0.body = body
                $0.responseTime = .withSpeed(HTTPConnectionSpeed(bytesPerSecond: 3000))  // 1 s for the body
            })
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/dribbled").stub(for: .get) {
                $0.body = Data("0123456789".utf8)
                $0.responseTime = .dribbled(chunks: 5, over: 1)  // a part every 200 ms
            })
        try await withStubServer(stubber: stubber) { baseURL in
            for (path, length) in [("throttled", 3000), ("dribbled", 10)] {
                // On the socket: the reads are timed on the event loop's thread as they arrive.
                let connection = try await RawConnection.connect(to: baseURL)
                let start = ContinuousClock.now
                try await connection.send("GET /\(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try await connection.readResponse()
                await connection.close()
                #expect(response?.body.count == length)
                // Not all of it before its time. (How many reads it takes is the client's pace, not the server's:
                // a client held up beside a busy machine read the whole body at once. Each piece at its own time
                // is tested on a clock the test moves: ConnectionStateMachineTests.)
                if let last = connection.reads.last {
                    #expect(last.at - start >= .milliseconds(900), "\(path): all of it by \(last.at - start)")
                }

                // Through AsyncHTTPClient (which may hand several reads over as one part): all of it, in time.
                let clientStart = ContinuousClock.now
                let clientResponse = try await client.execute(
                    HTTPClientRequest(url: baseURL.appendingPathComponent(path).absoluteString), timeout: .seconds(60))
                let received = try await clientResponse.body.collect(upTo: 1 << 20)
                #expect(received.readableBytes == length)
                #expect(ContinuousClock.now - clientStart >= .milliseconds(900), "\(path) through AsyncHTTPClient")
            }
        }
    }

    @Test func chunkedRequestBodiesReachMatchers() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/upload").match(body: Data("part one, part two".utf8)).stub(
                for: .post, code: .created))
        try await withStubServer(stubber: stubber) { baseURL in
            var request = HTTPClientRequest(url: baseURL.appendingPathComponent("upload").absoluteString)
            request.method = .POST
            let parts = ["part one, ", "part two"].map { ByteBuffer(string: $0) }
            request.body = .stream(parts.async, length: .unknown)
            let response = try await client.execute(request, timeout: .seconds(120))
            #expect(response.status == .created)
            #expect(response.headers["Transfer-Encoding"].isEmpty)
        }
        #expect(stubber.journal.first?.request.headers["Transfer-Encoding"] == "chunked")
    }
}

extension Array where Element: Sendable {
    /// The elements as an async sequence.
    var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
