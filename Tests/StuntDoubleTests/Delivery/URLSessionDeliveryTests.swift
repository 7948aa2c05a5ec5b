import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every URLSession API, through a session made from a stubber.
@Suite struct URLSessionDeliveryTests {
    let stubber = HTTPStubber()
    let url = URL(string: "https://api.example.com/echo")!

    init() throws {
        stubber.add(stub: try HTTPStubRequest().match(urlRegex: "/echo$").stubEcho())
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.example.com/user")
                .stub(for: .get, code: .ok, contentType: .json, body: #"{"name":"Mark"}"#))
    }

    @Test func completionHandlerTasks() async throws {
        let session = stubber.session()
        let (data, response, error): (Data?, URLResponse?, (any Error)?) = await withCheckedContinuation { done in
            session.dataTask(with: URL(string: "https://api.example.com/user")!) { data, response, error in
                done.resume(returning: (data, response, error))
            }.resume()
        }
        #expect(error == nil)
        #expect(String(decoding: data ?? Data(), as: UTF8.self) == #"{"name":"Mark"}"#)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.url == URL(string: "https://api.example.com/user"))
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(http.expectedContentLength == 15)
    }

    @Test func asyncDataForAndFrom() async throws {
        let session = stubber.session()
        let (fromData, fromResponse) = try await session.data(from: URL(string: "https://api.example.com/user")!)
        #expect(String(decoding: fromData, as: UTF8.self) == #"{"name":"Mark"}"#)
        #expect((fromResponse as? HTTPURLResponse)?.statusCode == 200)

        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        post.httpBody = Data("hello".utf8)
        post.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let (echoed, response) = try await session.data(for: post)
        #expect(String(decoding: echoed, as: UTF8.self) == "hello")
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Echo-Method") == "POST")
    }

    @Test func bodyStreamsAreRead() async throws {
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        request.httpBodyStream = InputStream(data: Data("streamed".utf8))
        #expect(await stubber.session().text(for: request) == "streamed")
    }

    @Test func uploadsFromDataAndFileReachMatchersAndResponses() async throws {
        let session = stubber.session()
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        let (data, _) = try await session.upload(for: request, from: Data("uploaded bytes".utf8))
        #expect(String(decoding: data, as: UTF8.self) == "uploaded bytes")

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stuntdouble-\(UUID().uuidString)")
        try Data("from a file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (fromFile, _) = try await session.upload(for: request, fromFile: file)
        #expect(String(decoding: fromFile, as: UTF8.self) == "from a file")

        let bodyStubber = HTTPStubber()
        bodyStubber.add(stub: HTTPStubRequest().match(body: "secret=1").stub(for: .post, body: "matched the upload"))
        let (matched, _) = try await bodyStubber.session().upload(for: request, from: Data("secret=1".utf8))
        #expect(String(decoding: matched, as: UTF8.self) == "matched the upload")
    }

    @Test func sessionDelegateTasks() async throws {
        let delegate = RecordingDelegate()
        let session = stubber.session(delegate: delegate)
        session.dataTask(with: URL(string: "https://api.example.com/user")!).resume()
        #expect(await delegate.completed() == nil)
        #expect(String(decoding: delegate.body, as: UTF8.self) == #"{"name":"Mark"}"#)
        #expect((delegate.response as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test func errorsReachTheCallerUnchanged() async throws {
        struct PaymentDeclined: Error, Equatable {
            let reason: String
        }
        let stubber = HTTPStubber()
        let notConnectedError = NSError(domain: NSURLErrorDomain, code: URLError.notConnectedToInternet.rawValue)
        stubber.add(stub: try HTTPStubRequest().match(urlRegex: "(?s).*").stub(for: .get, error: notConnectedError))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://pay.test/").stub(
                for: .get, error: PaymentDeclined(reason: "card")))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://slow.test/").stub(for: .get, error: URLError(.timedOut)))
        let session = stubber.session()

        do {
            _ = try await session.data(from: URL(string: "https://anything.test/")!)
            Issue.record("expected the seed's down-network error")
        } catch {
            #expect((error as NSError) === notConnectedError, "the very same NSError reaches the caller")
        }
        await #expect(throws: PaymentDeclined(reason: "card")) {
            _ = try await session.data(from: URL(string: "https://pay.test/")!)
        }
        await #expect(throws: URLError(.timedOut)) {
            _ = try await session.data(from: URL(string: "https://slow.test/")!)
        }
    }

    @Test func anUnmatchedRequestFailsWithTheReport() async throws {
        do {
            _ = try await stubber.session().data(from: URL(string: "https://api.example.com/users")!)
            Issue.record("expected an error")
        } catch let error as HTTPStubberError {
            #expect(error.code == .unmatchedRequest)
            #expect(error.message.hasPrefix("No stub matched GET https://api.example.com/users"))
            #expect(error.report?.candidates.isEmpty == false)
        }
    }

    @Test func aBasicChallengeReachesTheCallerAsA401() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.example.com/private")
                .stub(for: .get) {
                    $0.statusCode = .unauthorized
                    $0.headers = ["WWW-Authenticate": #"Basic realm="api", charset="UTF-8""#]
                    $0.body = Data("sign in first".utf8)
                })
        let (data, response) = try await stubber.session().data(from: URL(string: "https://api.example.com/private")!)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 401)
        #expect(String(decoding: data, as: UTF8.self) == "sign in first")
        let challenge = http.value(forHTTPHeaderField: "WWW-Authenticate")?.trimmingCharacters(in: .whitespaces)
        #expect(challenge == #"Basic realm="api", charset="UTF-8""#)
    }

    @Test(
        .enabled(if: isFoundationNetworking, "Apple's URLSession hands download tasks to URLProtocol: they work there"))
    func downloadTasksFailWithAnExplanation() async throws {
        let session = stubber.session()
        let (location, _, error): (URL?, URLResponse?, (any Error)?) = await withCheckedContinuation { done in
            session.downloadTask(with: URL(string: "https://api.example.com/user")!) { location, response, error in
                done.resume(returning: (location, response, error))
            }.resume()
        }
        #expect(location == nil)
        let stubError = try #require(error as? HTTPStubberError)
        #expect(stubError.code == .unsupportedTask)
        #expect(stubError.message.contains("Use data(for:)"))
    }

    @Test func ignoredRequestsGoToTheNetwork() async throws {
        let stubber = HTTPStubber()
        stubber.add(ignoreURL: "http://127.0.0.1:9/", options: [.ignorePath])
        // Port 9 (discard) is closed here: the request reaches the network stack and fails there.
        do {
            _ = try await stubber.session().data(from: URL(string: "http://127.0.0.1:9/nothing")!)
            Issue.record("expected a connection error")
        } catch let error as URLError {
            #expect([.cannotConnectToHost, .networkConnectionLost, .timedOut].contains(error.code), "\(error)")
        }
    }

    @Test func aSessionOutlivingItsStubberFailsClearly() async throws {
        var stubber: HTTPStubber? = HTTPStubber()
        let session = try #require(stubber).session()
        stubber = nil
        do {
            _ = try await session.data(from: url)
            Issue.record("expected an error")
        } catch let error as HTTPStubberError {
            #expect(error.message.contains("no longer exists"))
        }
    }
}
