import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct BodyMatcherTests {
    @Test func everyMatcherSeesABodySentAsAStream() throws {
        let stubber = HTTPStubber()
        let payload = Data(#"{"user":"mark","tags":["a","b"]}"#.utf8)
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var bodies: [Data?] = []
        }
        let seen = Seen()
        let stub = HTTPStubRequest()
            .match(body: payload)
            .match(json: #"{"tags": ["a", "b"], "user": "mark"}"#)
            .match({ request, _ in
                seen.lock.withLock { seen.bodies.append(request.body) }
                return true
            })
            .match(StreamlessBodyMatcher(expected: payload))
            .stub(
                for: .post,
                responseProvider: { request, _ in
                    HTTPStubResponse(statusCode: .ok, body: request.body)
                })
        stubber.add(stub: stub)

        var request = makeRequest("POST", "https://a.test/upload")
        request.httpBodyStream = InputStream(data: payload)
        let plan = try #require(try stubber.decision(for: request).plan)
        #expect(plan.body == payload)
        #expect(seen.bodies == [payload])
    }

    struct StreamlessBodyMatcher: HTTPStubMatcherProtocol {
        let expected: Data
        func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
            request.httpBodyStream == nil && request.httpBody == expected
        }
    }

    @Test func comparesBytesExactly() {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(body: "a=1").stub(for: .post, code: .ok))
        #expect(stubber.plan("POST", "https://a.test/", body: Data("a=1".utf8)) != nil)
        #expect(stubber.plan("POST", "https://a.test/", body: Data("a=1 ".utf8)) == nil)
        #expect(stubber.plan("POST", "https://a.test/") == nil)
    }
}
