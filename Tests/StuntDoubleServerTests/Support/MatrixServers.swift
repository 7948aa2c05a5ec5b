import Foundation
import NIOSSL
import StuntDouble
import StuntDoubleServer
import TestSupport

/// The servers the response matrix downloads from: the server under test (plain HTTP and HTTPS, serving the
/// matrix's root) and the upstream its proxied mappings forward to. They run in this process (the debug build
/// of the tests), or, when `STUNTDOUBLE_MATRIX_COMMAND` names a `stuntdouble` binary (a release build), as
/// that command, the way users run it.
final class MatrixServers: Sendable {
    let port: Int
    let httpsPort: Int
    /// The certificate authority that signed the HTTPS certificate.
    let authorityFile: URL
    /// What runs: "this process", or the binary's path.
    let label: String
    private let folder: URL
    private let servers: [HTTPStubServer]
    private let processes: [ChildProcess]

    /// The binary under test, when one is named.
    static var command: String? {
        ProcessInfo.processInfo.environment["STUNTDOUBLE_MATRIX_COMMAND"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Writes the roots for `sizes` and starts the servers.
    static func start(sizes: [Int]) async throws -> MatrixServers {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-\(UUID().uuidString)")
        let upstreamRoot = folder.appendingPathComponent("upstream")
        let root = folder.appendingPathComponent("root")
        let authority = folder.appendingPathComponent("ca")
        try ResponseMatrix.writeUpstreamRoot(at: upstreamRoot, sizes: sizes)
        if let command {
            // Not `--quiet`: each response's end (and why it ended early) is logged, for `log(of:)`.
            let upstream = try ChildProcess(command, ["serve", "--root", upstreamRoot.path, "--port", "0"])
            let upstreamPort = try await Self.port(of: upstream, prefix: "on http://127.0.0.1:")
            try ResponseMatrix.writeRoot(at: root, sizes: sizes, upstreamPort: upstreamPort)
            let server = try ChildProcess(
                command,
                [
                    "serve", "--root", root.path, "--port", "0", "--https-port", "0", "--https-ca-folder",
                    authority.path,
                ])
            let port = try await Self.port(of: server, prefix: "on http://127.0.0.1:")
            let httpsPort = try await Self.port(of: server, prefix: "HTTPS on https://127.0.0.1:")
            return MatrixServers(
                port: port, httpsPort: httpsPort, authorityFile: authority.appendingPathComponent("stuntdouble-ca.pem"),
                label: command, folder: folder, servers: [], processes: [upstream, server])
        }
        let upstream = HTTPStubServer()
        _ = try upstream.loadStubFiles(at: upstreamRoot)
        try await upstream.start()
        try ResponseMatrix.writeRoot(at: root, sizes: sizes, upstreamPort: upstream.port!)
        var configuration = HTTPStubServer.Configuration()
        configuration.https = .init(identity: .generated(authorityFolder: authority))
        let server = HTTPStubServer(configuration: configuration)
        _ = try server.loadStubFiles(at: root)
        try await server.start()
        return MatrixServers(
            port: server.port!, httpsPort: server.httpsBaseURL!.port!, authorityFile: server.certificateAuthorityFile!,
            label: "this process", folder: folder, servers: [upstream, server], processes: [])
    }

    private init(
        port: Int, httpsPort: Int, authorityFile: URL, label: String, folder: URL, servers: [HTTPStubServer],
        processes: [ChildProcess]
    ) {
        self.port = port
        self.httpsPort = httpsPort
        self.authorityFile = authorityFile
        self.label = label
        self.folder = folder
        self.servers = servers
        self.processes = processes
    }

    /// The port a started command printed after `prefix`.
    private static func port(of process: ChildProcess, prefix: String) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(300)
        while ContinuousClock.now < deadline {
            let output = process.standardOutput
            if let range = output.range(of: prefix) {
                let digits = output[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits) { return port }
            }
            if !process.isRunning {
                throw MatrixRunner.Failure(description: "the command ended: \(process.standardError)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw MatrixRunner.Failure(description: "the command printed no \(prefix)PORT: \(process.standardOutput)")
    }

    /// TLS for HTTP/1.1 clients that trust the servers' authority (ALPN `http/1.1`).
    func clientTLS() throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(authorityFile.path))
        tls.applicationProtocols = ["http/1.1"]
        return try NIOSSLContext(configuration: tls)
    }

    /// What a server command printed on its standard error, when one has ended before it was stopped (a crash).
    var crashReport: String? {
        let ended = processes.filter { !$0.isRunning }
        guard !ended.isEmpty else { return nil }
        return ended.map {
            "the command ended early; its standard error ends:\n" + String($0.standardError.suffix(4000))
        }
        .joined(separator: "\n")
    }

    /// What the server commands logged of requests for `path` that ended with an error (a response cut short
    /// says why: the client left, a send timeout, the upstream's failure), "the upstream: " marking the upstream's
    /// lines; empty for servers in this process.
    func log(of path: String) -> String {
        let names = ["the upstream: ", ""]
        return zip(names, processes).flatMap { name, process in
            (process.standardOutput + process.standardError).split(separator: "\n").filter {
                ($0.contains(" \(path) ") && $0.hasSuffix(")")) || $0.contains("connection error")
            }
            .suffix(20).map { name + $0 }
        }
        .joined(separator: "\n")
    }

    func stop() async {
        for server in servers { await server.stop() }
        for process in processes {
            process.signal(SIGTERM)
            _ = try? await process.waitForExit(timeout: .seconds(120))
        }
        try? FileManager.default.removeItem(at: folder)
    }
}
