import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// Runs cases of the response matrix against `MatrixServers`, several at once, and says what went wrong with
/// each case that failed.
struct MatrixRunner {
    let servers: MatrixServers
    /// How HTTP/2 cases' clients are made (each case makes its own).
    let http2: HTTPClient.Configuration
    let tls: NIOSSLContext

    /// A case that did not arrive whole.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func withRunner(sizes: [Int], _ body: (MatrixRunner) async throws -> Void) async throws {
        let servers = try await MatrixServers.start(sizes: sizes)
        var configuration = HTTPClient.Configuration()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(servers.authorityFile.path))
        configuration.tlsConfiguration = tls
        configuration.httpVersion = .automatic
        do {
            try await body(MatrixRunner(servers: servers, http2: configuration, tls: try servers.clientTLS()))
        } catch {
            await servers.stop()
            throw error
        }
        await servers.stop()
    }

    /// Runs every case, at most `concurrency` at a time and within a memory budget (the server's memory the cases
    /// running at once may need: a templated body is rendered for each request that plays it); returns the
    /// failures.
    func run(_ cases: [ResponseMatrix.Case], concurrency: Int, memoryBudget: Int = 4 << 30) async -> [String] {
        await withTaskGroup(of: (String?, Int).self) { group in
            var failures: [String] = []
            var next = 0
            var running = 0
            var memory = 0
            func add() {
                while next < cases.count, running < concurrency {
                    let item = cases[next]
                    let need = item.serverMemory
                    guard running == 0 || memory + need <= memoryBudget else { return }
                    next += 1
                    running += 1
                    memory += need
                    group.addTask {
                        do {
                            try await run(item)
                            return (nil, need)
                        } catch {
                            // The server logs a response's end once it has written it: give it a moment.
                            try? await Task.sleep(for: .seconds(1))
                            let log = servers.log(of: item.path)
                            return ("\(item): \(error)" + (log.isEmpty ? "" : "\nthe server's log:\n\(log)"), need)
                        }
                    }
                }
            }
            add()
            while let (failure, need) = await group.next() {
                if let failure { failures.append(failure) }
                running -= 1
                memory -= need
                add()
            }
            return failures
        }
    }

    /// Runs one case: its requests, each response checked by status, length and digest (a `HEAD`'s by its
    /// `Content-Length`), then, where the connection is kept alive, a `GET /ping` on the same connection.
    func run(_ item: ResponseMatrix.Case) async throws {
        if item.transport == .http2 {
            try await runHTTP2(item)
        } else {
            try await runHTTP1(item)
        }
    }

    private func check(_ response: HTTPResponseReader.Response, _ item: ResponseMatrix.Case, _ index: Int) throws {
        let what = "response \(index + 1) of \(item.requestCount)"
        guard response.status == 200 else {
            throw Failure(
                description:
                    "\(what): status \(response.status), \(String(decoding: response.body.prefix(300), as: UTF8.self))")
        }
        if item.exchange == .head {
            guard response.bodyLength == 0 else { throw Failure(description: "\(what): a HEAD with a body") }
            guard response.header("content-length") == String(item.size) else {
                throw Failure(
                    description: "\(what): HEAD's Content-Length is \(response.header("content-length") ?? "absent"), "
                        + "not \(item.size)")
            }
            return
        }
        guard response.bodyLength == item.size else {
            throw Failure(description: "\(what): \(response.bodyLength) bytes, not \(item.size)")
        }
        guard response.digest == ResponseMatrix.expectedDigest(item.source, size: item.size) else {
            throw Failure(description: "\(what): \(item.size) bytes, but not the stub's (the digest differs)")
        }
    }

    private func runHTTP1(_ item: ResponseMatrix.Case) async throws {
        let connection = try await PacedConnection.connect(
            port: item.transport == .plain ? servers.port : servers.httpsPort,
            tls: item.transport == .https ? tls : nil, pace: item.pace)
        defer { Task { await connection.close() } }
        let method = item.exchange == .head ? "HEAD" : "GET"
        let version = item.exchange == .http10 ? "HTTP/1.0" : "HTTP/1.1"
        let request = "\(method) \(item.path) \(version)\r\nHost: localhost\r\n\r\n"
        let timeout = Duration.seconds(600)
        var responses: [HTTPResponseReader.Response]
        switch item.exchange {
        case .keepAlive:
            responses = []
            for count in 1...item.depth {
                try await connection.send(request, methods: [method])
                responses = try await connection.responses(atLeast: count, timeout: timeout)
            }
        case .pipelined:
            try await connection.send(
                String(repeating: request, count: item.depth), methods: Array(repeating: method, count: item.depth))
            responses = try await connection.responses(atLeast: item.depth, timeout: timeout)
        case .http10, .dribble, .head:
            try await connection.send(request, methods: [method])
            responses = try await connection.responses(atLeast: 1, timeout: timeout)
        }
        for (index, response) in responses.enumerated() { try check(response, item, index) }
        if item.exchange == .http10 {
            guard await connection.closedByServer(timeout: .seconds(120)) else {
                throw Failure(description: "HTTP/1.0: the server kept the connection open")
            }
            return
        }
        try await connection.send("GET /ping HTTP/1.1\r\nHost: localhost\r\n\r\n", methods: ["GET"])
        let after = try await connection.responses(atLeast: responses.count + 1, timeout: .seconds(60))
        guard let ping = after.last, ping.status == 200, ping.body == Data("pong".utf8) else {
            throw Failure(description: "the connection was not usable after the responses")
        }
    }

    private func runHTTP2(_ item: ResponseMatrix.Case) async throws {
        let base = "https://localhost:\(servers.httpsPort)"
        let method: HTTPMethod = item.exchange == .head ? .HEAD : .GET
        // A connection of the case's own: streams of other cases on one connection share its flow-control window,
        // and a slow reader there would starve them (a client's doing, not the server's).
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http2)
        defer { Task { try? await client.shutdown() } }
        let pace = item.pace
        @Sendable func fetch(_ path: String, method: HTTPMethod) async throws -> HTTPResponseReader.Response {
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            let response = try await client.execute(request, timeout: .seconds(600))
            guard response.version == .http2 else {
                throw Failure(description: "HTTP/2 was not negotiated (\(response.version))")
            }
            var result = HTTPResponseReader.Response(
                status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) })
            var hasher = SHA256Hasher()
            var paceState = PaceState()
            for try await part in response.body {
                part.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                result.bodyLength += part.readableBytes
                if result.body.count < 4096 { result.body.append(contentsOf: part.readableBytesView.prefix(4096)) }
                let wait = pace.wait(after: part.readableBytes, total: result.bodyLength, state: &paceState)
                if wait > .zero { try await Task.sleep(for: wait) }
            }
            result.digest = hasher.finalize()
            return result
        }
        var responses: [HTTPResponseReader.Response] = []
        switch item.exchange {
        case .keepAlive:
            for _ in 0..<item.depth { responses.append(try await fetch(item.path, method: method)) }
        case .pipelined:
            responses = try await withThrowingTaskGroup(of: (Int, HTTPResponseReader.Response).self) { group in
                for index in 0..<item.depth {
                    group.addTask { (index, try await fetch(item.path, method: method)) }
                }
                var all: [(Int, HTTPResponseReader.Response)] = []
                for try await result in group { all.append(result) }
                return all.sorted { $0.0 < $1.0 }.map(\.1)
            }
        case .http10, .dribble, .head:
            responses = [try await fetch(item.path, method: method)]
        }
        for (index, response) in responses.enumerated() { try check(response, item, index) }
        let ping = try await fetch("/ping", method: .GET)
        guard ping.status == 200, ping.body == Data("pong".utf8) else {
            throw Failure(description: "the connection was not usable after the responses")
        }
    }
}
