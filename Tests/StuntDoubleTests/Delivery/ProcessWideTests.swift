import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Tests of process-wide state: `HTTPStubber.shared` and global interception (`enable()`). They run one at a
/// time, nested suites included (`.serialized` applies to them too), because every enabled stubber competes
/// for every request of `URLSession.shared` in the process: the most recently enabled one answers.
@Suite(.serialized) enum ProcessWideTests {}

extension ProcessWideTests {
    /// Seed 004's way, in this process: `HTTPStubber.shared.enable()` in a suite's `init`, requests through
    /// `URLSession.shared`, long after other suites made sessions of their own (on Linux that used to send
    /// the requests to the network).
    @Suite struct SharedSessionTests {
        init() {
            _ = URLSession(configuration: .ephemeral)  // as another suite would have, before this one
            _ = URLSession.shared.configuration
            HTTPStubber.shared.enable()
        }

        @Test func requestsThroughTheSharedSessionAreStubbed() async throws {
            defer {
                HTTPStubber.shared.disable()
                HTTPStubber.removeAllStubs()
            }
            let stub = HTTPStubRequest().match(URL: "https://seed.test/repos").stub(for: .get, body: "[]")
            HTTPStubber.shared.add(stub: stub)
            #expect(HTTPStubber.shared.interceptsSharedSession)
            #expect(HTTPStubber.shared.intercepts(URLSession.shared))
            let (data, response) = try await URLSession.shared.data(from: URL(string: "https://seed.test/repos")!)
            #expect(String(decoding: data, as: UTF8.self) == "[]")
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(HTTPStubber.shared.hitCount(of: stub) == 1)

            HTTPStubber.shared.disable()
            #expect(!HTTPStubber.shared.interceptsSharedSession)
            // Disabled, the global class declines: the request goes to Foundation's HTTP protocol (port 9 is
            // closed here, so it fails there) and the stubber never sees it.
            await #expect(throws: URLError.self) {
                try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:9/global")!)
            }
            #expect(HTTPStubber.shared.receivedCount == 1)
        }
    }

    @Suite struct GlobalInterceptionTests {
        @Test func theMostRecentlyEnabledStubberAnswers() async throws {
            let first = HTTPStubber()
            let second = HTTPStubber()
            first.add(stub: HTTPStubRequest().stub(for: .get, body: "first"))
            second.add(stub: HTTPStubRequest().stub(for: .get, body: "second"))
            first.enable()
            second.enable()
            defer {
                first.disable()
                second.disable()
            }
            #expect(second.interceptsSharedSession)
            #expect(!first.interceptsSharedSession)
            #expect {
                try first.requireSharedSessionInterception()
            } throws: { error in
                (error as? HTTPStubberError)?.message.contains("another stubber, enabled after this one") == true
            }
            let url = URL(string: "https://global.test/")!
            #expect(String(decoding: try await URLSession.shared.data(from: url).0, as: UTF8.self) == "second")
            second.disable()
            #expect(first.interceptsSharedSession)
            #expect(String(decoding: try await URLSession.shared.data(from: url).0, as: UTF8.self) == "first")
        }

        @Test func aDisabledStubberSaysSo() {
            let stubber = HTTPStubber()
            #expect(!stubber.interceptsSharedSession)
            #expect {
                try stubber.requireSharedSessionInterception()
            } throws: { error in
                (error as? HTTPStubberError)?.message.contains("it is not enabled. Call enable() first.") == true
            }
        }
    }
}

extension ProcessWideTests {
    /// The README's seed-004 example, as written (nested here, so that it runs one at a time with the other
    /// users of global interception).
    @Suite(.serialized) struct LegacyAPITests {
        init() {
            HTTPStubber.removeAllStubs()
            HTTPStubber.shared.enable()
        }

        @Test func loadsRepositories() async throws {
            defer { HTTPStubber.shared.disable() }
            HTTPStubber.shared.add(
                stub: HTTPStubRequest()
                    .match(URL: "https://api.github.com/users/mark/repos")
                    .stub(for: .get, json: #"[{"name": "Repo Name"}]"#))
            let (data, _) = try await URLSession.shared.data(
                from: URL(string: "https://api.github.com/users/mark/repos")!)
            #expect(!data.isEmpty)
            #expect(String(decoding: data, as: UTF8.self) == #"[{"name": "Repo Name"}]"#)
        }
    }
}
