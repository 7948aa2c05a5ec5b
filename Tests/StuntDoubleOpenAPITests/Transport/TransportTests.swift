import Foundation
import HTTPTypes
import OpenAPIRuntime
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

@Suite("HTTPStubTransport: a ClientTransport answered in process")
struct TransportTests {
    private let base = URL(string: "https://api.shop.test/v2")!

    private func send(
        _ transport: HTTPStubTransport, _ method: HTTPRequest.Method, _ path: String, body: String? = nil,
        headers: HTTPFields = [.authorization: "Bearer t"]
    ) async throws -> (HTTPResponse, String) {
        var request = HTTPRequest(method: method, scheme: nil, authority: nil, path: path)
        request.headerFields = headers
        if body != nil { request.headerFields[.contentType] = "application/json" }
        let (response, responseBody) = try await transport.send(
            request, body: body.map { HTTPBody($0) }, baseURL: base, operationID: "op")
        let text = if let responseBody { try await String(collecting: responseBody, upTo: 1 << 20) } else { "" }
        return (response, text)
    }

    @Test("A document's answers reach the client, journaled as the transport's")
    func answersFromTheDocument() async throws {
        let stubber = HTTPStubber()
        stubber.load(Documents.shop)
        let transport = HTTPStubTransport(stubber: stubber)
        let (response, text) = try await send(transport, .get, "/products/7")
        #expect(response.status == .ok)
        #expect(response.headerFields[.contentType] == "application/json")
        #expect(text.contains("Widget"))
        let (refused, problem) = try await send(transport, .get, "/products/x")
        #expect(refused.status.code == 400)
        #expect(problem.contains("path.productId"))
        let journal = stubber.journal
        #expect(journal.count == 2)
        #expect(journal.allSatisfy { $0.path == .clientTransport })
        #expect(journal.first?.completion?.statusCode?.rawValue == 200)
    }

    @Test("Request bodies reach matchers; a delayed stub's answer comes after its delay")
    func bodiesAndDelays() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.shop.test/v2/echo").match(json: #"{"a": 1}"#)
                .stub(for: .post, delay: 0.2, json: #"{"ok": true}"#))
        let transport = HTTPStubTransport(stubber: stubber)
        let start = ContinuousClock.now
        let (response, text) = try await send(transport, .post, "/echo", body: #"{"a":1}"#)
        #expect(ContinuousClock.now - start >= .milliseconds(200))
        #expect(response.status == .ok && text == #"{"ok": true}"#)
    }

    @Test("An unmatched request throws the report; a passed-through one goes upstream, or throws without one")
    func unmatchedAndUpstream() async throws {
        let stubber = HTTPStubber()
        let transport = HTTPStubTransport(stubber: stubber)
        let error = await #expect(throws: HTTPStubberError.self) { try await send(transport, .get, "/nothing") }
        #expect(error?.code == .unmatchedRequest)
        stubber.unhandledMode = .optin
        let notStubbed = await #expect(throws: HTTPStubberError.self) { try await send(transport, .get, "/nothing") }
        #expect(notStubbed?.code == .notStubbed)
        let upstreamStubber = HTTPStubber()
        upstreamStubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.shop.test/v2/nothing").stub(for: .get, body: "upstream"))
        let chained = HTTPStubTransport(stubber: stubber, upstream: HTTPStubTransport(stubber: upstreamStubber))
        let (_, text) = try await send(chained, .get, "/nothing")
        #expect(text == "upstream")
    }

    @Test("A throttled body arrives in chunks, whole")
    func throttled() async throws {
        let stubber = HTTPStubber()
        let payload = String(repeating: "x", count: 4_000)
        let response = HTTPStubResponse(statusCode: .ok, contentType: .text, body: Data(payload.utf8))
        response.responseTime = .withSpeed(.kilobitsPerSecond(320))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.shop.test/v2/slow").stub(for: .get, response: response))
        let (_, body) = try await HTTPStubTransport(stubber: stubber).send(
            HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/slow"), body: nil, baseURL: base,
            operationID: "slow")
        var chunks: [ArraySlice<UInt8>] = []
        for try await chunk in try #require(body) { chunks.append(chunk) }
        #expect(chunks.count > 1)
        #expect(String(decoding: chunks.joined(), as: UTF8.self) == payload)
    }

    @Test("A stub's error is thrown to the client")
    func errors() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.shop.test/v2/down").stub(
                for: .get, error: URLError(.notConnectedToInternet)))
        let error = await #expect(throws: URLError.self) {
            try await send(HTTPStubTransport(stubber: stubber), .get, "/down")
        }
        #expect(error?.code == .notConnectedToInternet)
    }
}
