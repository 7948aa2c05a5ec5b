import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The code examples of the HTTPStubber documentation (seed 004), as written, against our package.
// Adapted where the seed cannot compile as written in Swift 6 without warnings:
// - `var stub = ...` is `let stub`: the seed never mutates those variables, and Swift warns about it.
// - The echo and dynamic examples call `match(urlRegex:)` without `try`, while the other three examples
//   use `try`: the matcher throws on an invalid pattern (as the seed's other examples expect), so those
//   two get `try` too. The echo example's pattern "*" is not a valid regular expression; StuntDouble reads
//   "*" alone as "any URL", which is what the example means.

/// These tests use `HTTPStubber.shared`, as the seed does: the shared stubber is process-wide state, so its
/// tests run one at a time (see `ProcessWideTests`), each starting from and leaving a clean stubber.
extension ProcessWideTests {
    @Suite struct SeedExampleTests {
        init() {
            Self.resetShared()
        }

        static func resetShared() {
            HTTPStubber.removeAllStubs()
            HTTPStubber.shared.removeAllIgnoreRules()
            HTTPStubber.shared.unhandledMode = .optout
            HTTPStubber.shared.disable()
        }

        @Test func enableAndDisable() {
            defer { Self.resetShared() }
            HTTPStubber.shared.enable()  // enable the stubber
            #expect(HTTPStubber.shared.isEnabled)
            HTTPStubber.shared.disable()
            #expect(!HTTPStubber.shared.isEnabled)
        }

        @Test func tearDownRemovesAllStubs() {
            HTTPStubber.shared.add(stub: HTTPStubRequest().stub(for: .get, code: .ok))
            #expect(HTTPStubber.shared.stubs.count == 1)
            // func tearDown() {
            //   super.tearDown()
            HTTPStubber.removeAllStubs()
            // }
            #expect(HTTPStubber.shared.stubs.isEmpty)
        }

        @Test func stubARequest() throws {
            defer { Self.resetShared() }
            let jsonData = Data(#"{"results": []}"#.utf8)
            let internalError = URLError(.badServerResponse)

            let stub = try HTTPStubRequest()
                .match(urlRegex: "http://www.google.com/+")  // stub any url for google domain
                .stub(for: .post, delay: 5, json: jsonData)  // stub the post with json data and delay
                .stub(for: .put, error: internalError)  // stub error for put

            // Add to the stubber
            HTTPStubber.shared.add(stub: stub)

            let post = try #require(HTTPStubber.shared.plan("POST", "http://www.google.com/search?q=swift"))
            #expect(post.body == jsonData)
            #expect(post.response?.statusCode == .ok)
            #expect(post.response?.headers[.contentType] == "application/json")
            #expect(post.responseDeadline == .seconds(5))

            let put = try #require(HTTPStubber.shared.plan("PUT", "http://www.google.com/doc"))
            #expect((put.error as? URLError)?.code == .badServerResponse)

            let get = try HTTPStubber.shared.decision(for: makeRequest("GET", "http://www.google.com/"))
            #expect(get.report != nil, "GET has no response on this stub, so it is unmatched in opt-out mode")
            let elsewhere = try HTTPStubber.shared.decision(for: makeRequest("POST", "http://www.apple.com/"))
            #expect(elsewhere.report != nil)
        }

        @Test func stubWithResponseBuilder() throws {
            defer { Self.resetShared() }
            let fileContent = Data([0x42, 0x4D, 0x1E, 0x00, 0x00, 0x00])
            let fileSize = fileContent.count

            let stub = HTTPStubRequest()
                .stub(
                    for: .post,
                    { response in
                        // Builder function allows you to specifiy any property of the
                        // HTTPStubResponse object for this http method.
                        response.responseDelay = 5
                        response.headers = HTTPHeaders([
                            .contentType: HTTPContentType.bmp.rawValue,
                            .contentLength: String(fileSize),
                        ])
                        response.body = fileContent
                    })
            HTTPStubber.shared.add(stub: stub)

            let plan = try #require(HTTPStubber.shared.plan("POST", "https://uploads.example.com/image"))
            #expect(plan.body == fileContent)
            #expect(plan.response?.headers[.contentType] == "image/bmp")
            #expect(plan.response?.headers[.contentLength] == "6")
            #expect(plan.responseDeadline == .seconds(5))
        }

        @Test func echoMatcher() throws {
            defer { Self.resetShared() }
            let echoStub = try HTTPStubRequest().match(urlRegex: "*").stubEcho()
            HTTPStubber.shared.add(stub: echoStub)
            HTTPStubber.shared.enable()

            let body = Data(#"{"ping": 1}"#.utf8)
            let plan = try #require(
                HTTPStubber.shared.plan(
                    "PATCH", "https://any.example.org/a/b?c=d", headers: ["Content-Type": "application/json"],
                    body: body
                )
            )
            #expect(plan.response?.statusCode == .ok)
            #expect(plan.body == body)
            #expect(plan.response?.headers[.contentType] == "application/json")
            #expect(plan.response?.headers["X-Echo-Method"] == "PATCH")
            #expect(plan.response?.headers["X-Echo-URL"] == "https://any.example.org/a/b?c=d")
            #expect(HTTPStubber.shared.plan("GET", "http://other.test/")?.response?.statusCode == .ok)
        }

        @Test func dynamicMatcher() throws {
            defer { Self.resetShared() }
            let stubLogin = try HTTPStubRequest().match(urlRegex: "/login").stub(
                for: .post,
                responseProvider: { urlRequest, matchedStubRequest in
                    let response = HTTPStubResponse()

                    guard let dict = try! JSONSerialization.jsonObject(with: urlRequest.body!) as? NSDictionary,
                        let username = dict["user"] as? String
                    else {
                        response.statusCode = .unauthorized
                        return response
                    }

                    if username == "mark" {
                        // configure the response for mark, our special admin!
                        response.body = Data("welcome, admin".utf8)
                    } else {
                        // ... return another response for anyone else!
                        response.body = Data("welcome, \(username)".utf8)
                    }

                    return response
                })
            HTTPStubber.shared.add(stub: stubLogin)

            let url = "https://api.example.com/v1/login"
            #expect(HTTPStubber.shared.bodyText("POST", url, body: Data(#"{"user": "mark"}"#.utf8)) == "welcome, admin")
            #expect(HTTPStubber.shared.bodyText("POST", url, body: Data(#"{"user": "anna"}"#.utf8)) == "welcome, anna")
            let anonymous = HTTPStubber.shared.plan("POST", url, body: Data(#"{"token": 1}"#.utf8))
            #expect(anonymous?.response?.statusCode == .unauthorized)
        }

        @Test func uriMatcher() throws {
            defer { Self.resetShared() }
            let stub = HTTPStubRequest()
                .match(URI: "https://github.com/kylef/{repository}")
                .stub(
                    for: .get,
                    responseProvider: { request, _ in
                        HTTPStubResponse(
                            statusCode: .ok, body: Data((request[templateVariable: "repository"] ?? "").utf8))
                    })
            HTTPStubber.shared.add(stub: stub)

            #expect(
                HTTPStubber.shared.bodyText("GET", "https://github.com/kylef/WebLinking.swift") == "WebLinking.swift")
            #expect(
                HTTPStubber.shared.bodyText("GET", "https://GitHub.com/kylef/URITemplate.swift") == "URITemplate.swift")
            #expect(HTTPStubber.shared.plan("GET", "https://github.com/kylef/a/b") == nil)
            #expect(HTTPStubber.shared.plan("GET", "https://github.com/other/URITemplate.swift") == nil)

            // The uri function takes a URL or path which can have a URI Template.
            for template in [
                "https://github.com/kylef/WebLinking.swift", "https://github.com/kylef/{repository}",
                "/kylef/{repository}", "/kylef/URITemplate.swift",
            ] {
                let stubber = HTTPStubber()
                stubber.add(stub: HTTPStubRequest().match(URI: template).stub(for: .get, code: .noContent))
                let fullURL = template.hasPrefix("/") ? "https://mirror.example.com" : ""
                let matching = template.replacingOccurrences(of: "{repository}", with: "Repo")
                #expect(stubber.plan("GET", fullURL + matching)?.response?.statusCode == .noContent, "\(template)")
                #expect(stubber.plan("GET", "https://github.com/someone-else/Repo") == nil, "\(template)")
            }
        }

        @Test func jsonMatcher() throws {
            defer { Self.resetShared() }
            struct User: Codable {
                let userID: Int
                let fullName: String
            }
            let stub = HTTPStubRequest()
                .match(object: User(userID: 34, fullName: "Mark"))
                .stub(for: .post, code: .created)
            HTTPStubber.shared.add(stub: stub)

            let url = "https://api.example.com/users"
            let reordered = Data("{ \"fullName\" : \"Mark\",\n  \"userID\": 34.0 }".utf8)
            #expect(HTTPStubber.shared.plan("POST", url, body: reordered)?.response?.statusCode == .created)
            let other = Data(#"{"fullName": "Mark", "userID": 35}"#.utf8)
            #expect(HTTPStubber.shared.plan("POST", url, body: other) == nil)
            let extra = Data(#"{"fullName": "Mark", "userID": 34, "admin": true}"#.utf8)
            #expect(HTTPStubber.shared.plan("POST", url, body: extra) == nil)
        }

        @Test func bodyMatcher() throws {
            defer { Self.resetShared() }
            let bodyToCheck = Data("name=mark&age=40".utf8)
            let stub = HTTPStubRequest()
                .match(body: bodyToCheck)
                .stub(for: .post, body: "accepted")
            HTTPStubber.shared.add(stub: stub)

            #expect(HTTPStubber.shared.bodyText("POST", "https://forms.example.com/", body: bodyToCheck) == "accepted")
            #expect(HTTPStubber.shared.plan("POST", "https://forms.example.com/", body: Data("name=mark".utf8)) == nil)
        }

        @Test func urlMatcher() throws {
            defer { Self.resetShared() }
            let stub = HTTPStubRequest()
                .match(URL: "http://myws.com/login", options: .ignoreQueryParameters)
            stub.stub(for: .get, body: "login page")
            HTTPStubber.shared.add(stub: stub)

            #expect(HTTPStubber.shared.bodyText("GET", "http://myws.com/login?username=xxxx") == "login page")
            #expect(HTTPStubber.shared.bodyText("GET", "http://myws.com/login?username=yyyy&lock=1") == "login page")
            #expect(HTTPStubber.shared.plan("GET", "http://myws.com/logout?username=xxxx") == nil)
        }

        struct MyCustomMatcher: HTTPStubMatcherProtocol {
            func matches(request: URLRequest, for source: HTTPMatcherSource) -> Bool {
                request.value(forHTTPHeaderField: "X-Tenant") == "acme" && source is HTTPStubRequest
            }
        }

        @Test func customMatcher() throws {
            defer { Self.resetShared() }
            let stub = HTTPStubRequest().stub(for: .get, body: "acme data")
            stub.match(MyCustomMatcher())  // add to the matcher of a request
            HTTPStubber.shared.add(stub: stub)

            #expect(HTTPStubber.shared.bodyText("GET", "https://x.test/", headers: ["x-tenant": "acme"]) == "acme data")
            #expect(HTTPStubber.shared.plan("GET", "https://x.test/", headers: ["X-Tenant": "other"]) == nil)
        }

        @Test func customClosureMatcher() throws {
            defer { Self.resetShared() }
            let stub = HTTPStubRequest()
                .match({ req, source in
                    req.headers[.userAgent] == "customAgent"
                })
                .stub(for: .get, body: "hello agent")
            HTTPStubber.shared.add(stub: stub)

            #expect(
                HTTPStubber.shared.bodyText("GET", "https://x.test/", headers: ["user-agent": "customAgent"])
                    == "hello agent")
            #expect(HTTPStubber.shared.plan("GET", "https://x.test/", headers: ["User-Agent": "curl"]) == nil)
        }

        @Test func ignoreRule() throws {
            defer { Self.resetShared() }
            HTTPStubber.shared.add(ignoreURL: "http://www.apple.com", options: [.ignorePath, .ignoreQueryParameters])

            let ignored = try HTTPStubber.shared.decision(
                for: makeRequest("GET", "http://www.apple.com/mac/?color=red"))
            guard case .passThrough(.ignored) = ignored else {
                Issue.record("expected the ignore rule to let the request through, got \(ignored)")
                return
            }
            let other = try HTTPStubber.shared.decision(for: makeRequest("GET", "http://www.apple.org/"))
            #expect(other.report != nil)
        }

        @Test func unhandledRules() throws {
            defer { Self.resetShared() }
            let request = makeRequest("GET", "https://unknown.example.com/")
            #expect(try HTTPStubber.shared.decision(for: request).report != nil)  // optout: raises an error

            HTTPStubber.shared.unhandledMode = .optin  // enable optin mode
            guard case .passThrough(.optIn) = try HTTPStubber.shared.decision(for: request) else {
                Issue.record("opt-in mode must let unmatched requests through")
                return
            }
        }

        @Test func simulateNetworkConditions() throws {
            defer { Self.resetShared() }
            let randomData = Data((0..<250).map { _ in UInt8.random(in: 0...255) })
            let mock = try HTTPStubRequest()
                .match(urlRegex: "(?s).*")
                .stub(
                    for: .get,
                    {
                        $0.statusCode = .ok
                        $0.responseTime = .withSpeed(.speed1kbps)  // <--- VERY SLOW CONNECTION
                        $0.contentType = .text
                        $0.body = randomData
                        $0.headers = [
                            "Content-Length": String(randomData.count)
                        ]
                    })
            HTTPStubber.shared.add(stub: mock)

            let plan = try #require(HTTPStubber.shared.plan("GET", "https://slow.example.com/file"))
            #expect(plan.body == randomData)
            #expect(plan.response?.headers[.contentType] == "text/plain")
            #expect(plan.response?.headers[.contentLength] == "250")
            #expect(plan.responseDeadline == .zero)
            // 250 bytes at 1 kbps (125 bytes per second) take 2 seconds, delivered in order.
            #expect(abs((plan.completionDeadline ?? .zero).seconds - 2) < 1e-9)
            #expect(plan.chunks.count > 1)
            #expect(plan.chunks.first?.range.lowerBound == 0 && plan.chunks.last?.range.upperBound == 250)
            for (previous, next) in zip(plan.chunks, plan.chunks.dropFirst()) {
                #expect(previous.range.upperBound == next.range.lowerBound)
                #expect(previous.deadline < next.deadline)
            }
        }

        @Test func simulateADownNetwork() throws {
            defer { Self.resetShared() }
            let notConnectedError = NSError(domain: NSURLErrorDomain, code: URLError.notConnectedToInternet.rawValue)
            let mock = try HTTPStubRequest().match(urlRegex: "(?s).*").stub(for: .get, error: notConnectedError)
            HTTPStubber.shared.add(stub: mock)

            let plan = try #require(HTTPStubber.shared.plan("GET", "https://api.example.com/feed"))
            let error = try #require(plan.error as? NSError)
            #expect(error.domain == NSURLErrorDomain)
            #expect(error.code == URLError.notConnectedToInternet.rawValue)
        }
    }
}
