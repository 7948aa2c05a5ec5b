import Foundation
import StuntDouble
import StuntDoubleServer
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Clients no one here wrote: URLSession's real HTTP protocol (not stubbed), curl, and Python's urllib.
@Suite struct ServerClientTests {
    static func stubber() -> HTTPStubber {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/hello").stub(for: .get, json: #"{"hello": "world"}"#))
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/items").match(body: Data(#"{"name":"pen"}"#.utf8))
                .stub(for: .post, code: .created, json: #"{"id": 1}"#))
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/dribble").stub(for: .get) {
                $0.body = Data("abcdef".utf8)
                $0.responseTime = .dribbled(chunks: 3, over: 0.3)
            })
        stubber.add(
            stub: HTTPStubRequest().match(URI: "/gone").stub(for: .get, error: URLError(.networkConnectionLost)))
        return stubber
    }

    /// Whether a program is on the PATH.
    static func installed(_ program: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
        }
    }

    /// Runs a program; returns its exit status and standard output.
    static func run(_ program: String, _ arguments: [String]) async throws -> (status: Int32?, output: String) {
        let result = try await ChildProcess.run(program, arguments)
        return (result.status, result.output)
    }

    @Test func urlSessionsRealHTTPProtocol() async throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        try await withStubServer(stubber: Self.stubber()) { baseURL in
            let (data, response) = try await session.data(from: baseURL.appendingPathComponent("hello"))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "application/json")
            #expect(String(decoding: data, as: UTF8.self) == #"{"hello": "world"}"#)

            var post = URLRequest(url: baseURL.appendingPathComponent("items"))
            post.httpMethod = "POST"
            post.httpBody = Data(#"{"name":"pen"}"#.utf8)
            let (_, created) = try await session.data(for: post)
            #expect((created as? HTTPURLResponse)?.statusCode == 201)

            let (dribbled, _) = try await session.data(from: baseURL.appendingPathComponent("dribble"))
            #expect(String(decoding: dribbled, as: UTF8.self) == "abcdef")

            let (missing, notFound) = try await session.data(from: baseURL.appendingPathComponent("nope"))
            #expect((notFound as? HTTPURLResponse)?.statusCode == 404)
            #expect(String(decoding: missing, as: UTF8.self).hasPrefix("Request was not matched"))

            do {
                _ = try await session.data(from: baseURL.appendingPathComponent("gone"))
                Issue.record("a closed connection must fail the request")
            } catch {
                #expect(error is URLError, "\(error)")
            }
        }
    }

    @Test(.enabled(if: runsWithOutsideProgram(installed("curl")), "curl is not installed (CI installs it)"))
    func curl() async throws {
        try await withStubServer(stubber: Self.stubber()) { baseURL in
            let hello = try await Self.run(
                "curl", ["-s", "-i", baseURL.appendingPathComponent("hello").absoluteString])
            #expect(hello.status == 0)
            #expect(hello.output.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(hello.output.hasSuffix(#"{"hello": "world"}"#))

            let created = try await Self.run(
                "curl",
                [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Expect: 100-continue", "--data-binary",
                    #"{"name":"pen"}"#, baseURL.appendingPathComponent("items").absoluteString,
                ])
            #expect(created.output == "201")

            let head = try await Self.run("curl", ["-s", "-I", baseURL.appendingPathComponent("hello").absoluteString])
            #expect(head.output.hasPrefix("HTTP/1.1 404"), "a GET stub does not answer HEAD")

            let dribbled = try await Self.run(
                "curl", ["-s", "-N", baseURL.appendingPathComponent("dribble").absoluteString])
            #expect(dribbled.output == "abcdef")

            let gone = try await Self.run("curl", ["-s", baseURL.appendingPathComponent("gone").absoluteString])
            #expect(gone.status == 52, "curl: empty reply from server")
        }
    }

    @Test func pythonsURLLib() async throws {
        let script = """
            import sys, urllib.request, urllib.error
            base = sys.argv[1]
            with urllib.request.urlopen(base + "/hello") as r:
                print(r.status, r.headers["Content-Type"], r.read().decode())
            req = urllib.request.Request(base + "/items", data=b'{"name":"pen"}', method="POST")
            with urllib.request.urlopen(req) as r:
                print(r.status, r.read().decode())
            try:
                urllib.request.urlopen(base + "/nope")
            except urllib.error.HTTPError as e:
                print(e.code, e.read().decode().splitlines()[0])
            with urllib.request.urlopen(base + "/dribble") as r:
                print(r.read().decode())
            try:
                urllib.request.urlopen(base + "/gone")
            except Exception as e:
                print(type(e).__name__)
            """
        try await withStubServer(stubber: Self.stubber()) { baseURL in
            let result = try await Self.run("python3", ["-c", script, baseURL.absoluteString])
            #expect(result.status == 0)
            #expect(
                result.output.split(separator: "\n") == [
                    #"200 application/json {"hello": "world"}"#, #"201 {"id": 1}"#, "404 Request was not matched",
                    "abcdef", "RemoteDisconnected",
                ])
        }
    }
}
