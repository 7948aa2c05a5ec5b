import AsyncHTTPClient
import Foundation
import NIOCore
import StuntDouble
import StuntDoubleServer
import Testing

/// Starting, stopping and scale: ports, threads, connections.
@Suite struct ServerLifecycleTests {
    /// The names of this process's threads (Linux: /proc/self/task/*/comm).
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test func startReportsAFreePortAndStopFreesItAndItsThreads() async throws {
        var configuration = HTTPStubServer.Configuration()
        configuration.threads = 3
        let server = HTTPStubServer(configuration: configuration)
        #expect(server.baseURL == nil)
        let baseURL = try await server.start()
        #expect(baseURL.host == "127.0.0.1")
        let port = try #require(baseURL.port)
        #expect(port > 0 && server.port == port)
        let open = try await RawConnection.connect(to: baseURL)
        try await open.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try #require(try await open.readResponse()).status == 404)
        #expect(server.openConnectionCount == 1)

        await server.stop()
        #expect(try await open.readToClose(), "stop closes every connection")
        #expect(server.baseURL == nil)
        // The port is free again: another server takes it.
        var again = HTTPStubServer.Configuration()
        again.port = port
        let second = HTTPStubServer(configuration: again)
        #expect(try await second.start().port == port)
        await second.stop()
    }

    /// Linux only: the process's threads are listed in /proc (macOS has no such list to read).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/task")))
    func noThreadOutlivesItsServer() async throws {
        var configuration = HTTPStubServer.Configuration()
        configuration.threads = 4
        let server = HTTPStubServer(configuration: configuration)
        try await server.start()
        let prefix = try #require(server.threadNamePrefix)
        #expect(Self.threadNames().filter { $0.hasPrefix(prefix) }.count == 4, "the server's event-loop threads run")
        await server.stop()
        // Threads end just after their loops close: allow them a moment.
        let deadline = ContinuousClock.now + .seconds(120)
        while Self.threadNames().contains(where: { $0.hasPrefix(prefix) }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!Self.threadNames().contains { $0.hasPrefix(prefix) }, "threads named \(prefix)* outlived the server")
    }

    @Test func startingTwiceOrAfterStopIsAnError() async throws {
        let server = HTTPStubServer()
        try await server.start()
        await #expect(throws: HTTPStubServerError.self) { try await server.start() }
        await server.stop()
        do {
            try await server.start()
            Issue.record("a stopped server must not start again")
        } catch {
            #expect(error.code == .stopped)
        }
    }

    @Test func aPortInUseAndAnInvalidConfigurationAreClearErrors() async throws {
        let first = HTTPStubServer()
        let port = try #require(try await first.start().port)
        var clash = HTTPStubServer.Configuration()
        clash.port = port
        do {
            try await HTTPStubServer(configuration: clash).start()
            Issue.record("the port is taken")
        } catch {
            #expect(error.code == .cannotBind)
            #expect(error.message.contains("Cannot listen on 127.0.0.1:\(port)"))
        }
        await first.stop()
        var invalid = HTTPStubServer.Configuration()
        invalid.port = 70000
        do {
            try await HTTPStubServer(configuration: invalid).start()
            Issue.record("70000 is not a port")
        } catch {
            #expect(error.code == .invalidConfiguration)
        }
    }

    @Test func aGracefulStopLetsAResponseInProgressFinish() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/slow").stub(for: .get, delay: 0.5, body: "done"))
        let server = HTTPStubServer(stubber: stubber)
        let baseURL = try await server.start()
        let connection = try await RawConnection.connect(to: baseURL)
        try await connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        try await Task.sleep(for: .milliseconds(100))
        await server.stop(gracePeriod: .seconds(30))
        #expect(try #require(try await connection.readResponse()).text == "done")
        #expect(try await connection.readToClose())
    }

    @Test func aThousandConcurrentConnectionsAreHeldAndServed() async throws {
        let stubber = HTTPStubber()
        stubber.add(stub: HTTPStubRequest().match(URI: "/hold").stub(for: .get, delay: 0.5, body: "held"))
        try await withStubServer(stubber: stubber) { baseURL in
            let connections = try await withThrowingTaskGroup(of: RawConnection.self) { group in
                for _ in 0..<1000 {
                    group.addTask { try await RawConnection.connect(to: baseURL) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(connections.count == 1000)
            // Every connection has a request in progress at once (each answer waits 0.5 s).
            let progress = RawConnection.Progress()
            let answers = try await withThrowingTaskGroup(of: String?.self) { group in
                for connection in connections {
                    group.addTask {
                        try await connection.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
                        return try await connection.readResponse(sharing: progress)?.text
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 1000)
            #expect(answers.allSatisfy { $0 == "held" })
            for connection in connections {
                await connection.close()
            }
        }
        #expect(stubber.journal.count == 1000)
        #expect(stubber.journal.allSatisfy { $0.completion?.statusCode == .ok })
    }
}
