import AsyncHTTPClient
import Foundation
import NIOCore
import TestSupport
import Testing

/// `stuntdouble serve` whose output nobody reads, or nobody reads any more: the server goes on serving.
/// (`serve | head -c 10` used to die of SIGPIPE at the next request; `serve | sleep 60` froze every client once
/// the pipe was full, after about 790 requests.)
@Suite struct CommandOutputTests {
    /// Waits until the server at `baseURL` answers.
    static func waitUntilServing(_ baseURL: String) async throws -> Bool {
        for _ in 0..<600 {
            if let response = try? await HTTPClient.shared.execute(
                HTTPClientRequest(url: baseURL + "/__admin/health"), timeout: .seconds(5)), response.status == .ok
            {
                return true
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    static func status(_ url: String) async throws -> UInt {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(120))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response.status.code
    }

    @Test func aClosedOutputDoesNotStopTheServer() async throws {
        // The first log line ("... listening on http://127.0.0.1:PORT") is read, then the output is closed.
        let serve = try CommandProcess(["serve", "--port", "0"], standardOutput: .closedAfter(bytes: 120))
        #expect(try await serve.waitForOutput { $0.count >= 120 }, "\(serve.standardOutput)")
        let port = try #require(serve.standardOutput.firstMatch(of: /127\.0\.0\.1:(\d+)/)).1
        let baseURL = "http://127.0.0.1:\(port)"
        #expect(try await Self.waitUntilServing(baseURL))
        for _ in 0..<20 {
            #expect(try await Self.status(baseURL + "/users/mark/repos") == 200)
        }
        #expect(serve.isRunning, "still serving: \(serve.standardError)")
        serve.signal(SIGTERM)
        #expect(try await serve.waitForExit() == 0)
    }

    @Test func anUnreadOutputDoesNotHoldClientsUp() async throws {
        let port = try LoopbackListener.freePort()
        let serve = try CommandProcess(["serve", "--port", "\(port)"], standardOutput: .neverRead)
        let baseURL = "http://127.0.0.1:\(port)"
        #expect(try await Self.waitUntilServing(baseURL))
        // 3,000 log lines of about 100 bytes: several times what a pipe holds.
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var ok = 0
                    for _ in 0..<375 where try await Self.status(baseURL + "/users/mark/repos") == 200 { ok += 1 }
                    return ok
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(answered == 3_000)
        serve.signal(SIGTERM)
        #expect(try await serve.waitForExit(timeout: .seconds(120)) != nil)
    }

    @Test func recordOnAnotherAddressAdvisesFlagsItHas() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)")
        let refused = try await CommandProcess.run([
            "record", "--upstream", "http://127.0.0.1:9", "--root", folder.path, "--host", "0.0.0.0", "--port", "0",
        ])
        #expect(refused.status == 1)
        #expect(refused.error.contains("--admin-token") && refused.error.contains("--no-admin"), "\(refused.error)")
        let help = try await CommandProcess.run(["record", "--help"])
        #expect(help.output.contains("--admin-token") && help.output.contains("--no-admin"), "\(help.output)")
    }
}
