import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// swift-openapi-urlsession's transport (a client StuntDouble's authors did not write) over stubbed sessions:
/// what generated OpenAPI clients send and receive.
@Suite struct OpenAPITransportTests {
    let stubber = HTTPStubber()
    let baseURL = URL(string: "https://api.example.com/v1")!

    init() {
        stubber.add(
            stub: HTTPStubRequest().match(URI: "https://api.example.com/v1/greetings/{name}{?lang}")
                .stub(
                    for: .get,
                    responseProvider: { request, _ in
                        let greeting = request[templateVariable: "lang"] == "fr" ? "Bonjour" : "Hello"
                        return HTTPStubResponse(
                            statusCode: .ok, contentType: .json,
                            body: Data(
                                #"{"message":"\#(greeting), \#(request[templateVariable: "name"] ?? "")!"}"#.utf8))
                    }))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.example.com/v1/greetings")
                .match(json: #"{"name": "Mark"}"#)
                .stub(for: .post, code: .created, json: #"{"id": 7}"#))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.example.com/v1/down")
                .stub(for: .get, error: URLError(.notConnectedToInternet)))
    }

    func transport() -> URLSessionTransport {
        URLSessionTransport(configuration: .init(session: stubber.session()))
    }

    @Test func getsAStubbedJSONResponse() async throws {
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/greetings/Mark?lang=fr")
        let (response, body) = try await transport().send(request, body: nil, baseURL: baseURL, operationID: "greet")
        #expect(response.status == .ok)
        #expect(response.headerFields[.contentType] == "application/json")
        let text = try await String(collecting: try #require(body), upTo: 1024)
        #expect(text == #"{"message":"Bonjour, Mark!"}"#)
    }

    @Test func postsAJSONBodyThatAStubMatches() async throws {
        var request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/greetings")
        request.headerFields[.contentType] = "application/json"
        let (response, body) = try await transport().send(
            request, body: HTTPBody(#"{ "name" : "Mark" }"#), baseURL: baseURL, operationID: "createGreeting")
        #expect(response.status == .created)
        #expect(try await String(collecting: try #require(body), upTo: 1024) == #"{"id": 7}"#)
    }

    @Test func transportErrorsReachTheClient() async throws {
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/down")
        do {
            _ = try await transport().send(request, body: nil, baseURL: baseURL, operationID: "down")
            Issue.record("expected an error")
        } catch let error as URLError {
            #expect(error.code == .notConnectedToInternet)
        }
    }

    @Test func unmatchedRequestsExplainThemselves() async throws {
        let request = HTTPRequest(method: .delete, scheme: nil, authority: nil, path: "/greetings")
        do {
            _ = try await transport().send(request, body: nil, baseURL: baseURL, operationID: "delete")
            Issue.record("expected an error")
        } catch let error as HTTPStubberError {
            #expect(error.code == .unmatchedRequest)
            #expect(error.message.contains("No stub matched DELETE https://api.example.com/v1/greetings"))
        }
    }
}
