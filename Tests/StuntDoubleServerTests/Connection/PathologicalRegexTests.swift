import AsyncHTTPClient
import Foundation
import NIOCore
import StuntDouble
import StuntDoubleServer
import Testing

/// One stub whose regular expression backtracks catastrophically must not stall the server: the request that
/// reaches it gets a 500 naming the stub, and other clients are served meanwhile (it used to hold an event loop
/// for 4 seconds, and every client on it).
@Suite struct PathologicalRegexTests {
    @Test func theRequestGets500NamingTheStubAndOthersAreNotHeldUp() async throws {
        let root = try AdminAPITests.root([
            "mappings/greedy.json":
                #"{"name": "greedy", "request": {"urlPathPattern": "/r/(a+)+b"}, "response": {"body": "b"}}"#,
            "mappings/quick.json": #"{"request": {"urlPath": "/quick"}, "response": {"body": "quick"}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        var configuration = HTTPStubServer.Configuration()
        configuration.threads = 1  // the other client shares the event loop
        let server = HTTPStubServer(configuration: configuration)
        try server.loadStubFiles(at: root)
        let url = try await server.start()
        func quickRequests() async throws -> Duration {
            var slowest = Duration.zero
            for _ in 0..<20 {
                let start = ContinuousClock.now
                let reply = try await AdminAPITests.call(.GET, url, "/quick")
                slowest = max(slowest, ContinuousClock.now - start)
                #expect(reply.text == "quick")
            }
            return slowest
        }
        let alone = try await quickRequests()
        // 30 `a`s: 16 seconds of backtracking each without the budget.
        let pathological = "/r/" + String(repeating: "a", count: 30) + "!"
        let replies = Task {
            try await withThrowingTaskGroup(of: AdminAPITests.Reply.self) { group in
                for _ in 0..<10 { group.addTask { try await AdminAPITests.call(.GET, url, pathological) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        let meanwhile = try await quickRequests()
        for stopped in try await replies.value {
            #expect(stopped.status == 500)
            #expect(stopped.text.contains(#"stub "greedy""#) && stopped.text.contains("/r/(a+)+b/"), "\(stopped.text)")
        }
        // Without the budget the ten would hold the loop for 160 s. With it, the quick requests took 1 s longer at
        // most in a plain build, and 22 s longer under ThreadSanitizer beside a busy core (where a budget's steps
        // are slower): the bound tells the two apart on any machine.
        #expect(meanwhile < alone + .seconds(60), "alone: \(alone), beside 10 pathological requests: \(meanwhile)")
        await server.stop()
    }
}
