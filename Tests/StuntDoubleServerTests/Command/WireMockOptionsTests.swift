import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

/// What WireMock's options change for a client, run as WireMock's users run them: the command line, the
/// container's entrypoint, and the folders.
@Suite struct WireMockOptionsTests {
    /// Starts `stuntdouble` and returns it with its base URL.
    static func serve(_ arguments: [String]) async throws -> (CommandProcess, String) {
        try await started(CommandProcess(arguments))
    }

    /// Waits until a started `stuntdouble` serves; returns it with its base URL (on loopback).
    static func started(_ serve: CommandProcess) async throws -> (CommandProcess, String) {
        #expect(
            try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") },
            "\(serve.standardOutput)\(serve.standardError)")
        let port = try #require(serve.standardOutput.firstMatch(of: /http:\/\/[0-9.]+:(\d+)/)).1
        return (serve, "http://127.0.0.1:\(port)")
    }

    static func get(_ url: String, headers: [(String, String)] = []) async throws -> (HTTPResponseStatus, String) {
        var request = HTTPClientRequest(url: url)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        return (response.status, String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    static func stop(_ serve: CommandProcess) async throws {
        serve.signal(SIGTERM)
        #expect(try await serve.waitForExit() == 0)
    }

    static let templated = #"""
        {"request": {"url": "/t"}, "response": {"body": "at {{request.path}}", "transformers": ["response-template"]}}
        """#

    @Test func basicCredentialsGuardTheAdminAPI() async throws {
        let (serve, baseURL) = try await Self.serve(["--port", "0", "--admin-api-basic-auth", "user:secret"])
        let (refused, message) = try await Self.get(baseURL + "/__admin/mappings")
        #expect(refused == .unauthorized)
        #expect(message.contains("--admin-api-basic-auth"))
        let wrong = "Basic " + Data("user:guess".utf8).base64EncodedString()
        #expect(
            try await Self.get(baseURL + "/__admin/mappings", headers: [("Authorization", wrong)]).0 == .unauthorized)
        let right = "Basic " + Data("user:secret".utf8).base64EncodedString()
        #expect(try await Self.get(baseURL + "/__admin/mappings", headers: [("Authorization", right)]).0 == .ok)
        try await Self.stop(serve)
    }

    @Test func anOpenAdminAPIBeyondLoopbackIsAskedFor() async throws {
        let refused = try await CommandProcess.run(["--port", "0", "--bind-address", "0.0.0.0"])
        #expect(refused.status == 1)
        #expect(refused.error.contains("--open-admin"), "\(refused.error)")
        #expect(refused.error.contains("--admin-api-basic-auth"), "\(refused.error)")
        let (serve, baseURL) = try await Self.serve(["--port", "0", "--bind-address", "0.0.0.0", "--open-admin"])
        #expect(try await Self.get(baseURL + "/__admin/health").0 == .ok)
        try await Self.stop(serve)
    }

    @Test func allNetworkTrafficIsPrinted() async throws {
        let root = try AdminAPITests.root(["mappings/t.json": Self.templated])
        defer { try? FileManager.default.removeItem(at: root) }
        let (serve, baseURL) = try await Self.serve([
            "--port", "0", "--root-dir", root.path, "--print-all-network-traffic", "--disable-request-logging",
        ])
        let connection = try await RawConnection.connect(
            to: try #require(URL(string: baseURL)), sending: "GET /t HTTP/1.1\r\nHost: x\r\nX-Mark: seen\r\n\r\n")
        #expect(try await connection.readResponse()?.text == "at /t")
        await connection.close()
        #expect(try await serve.waitForOutput { $0.contains("Closed ") }, "\(serve.standardOutput)")
        let output = serve.standardOutput
        #expect(output.contains("Opened "), "\(output)")
        #expect(output.contains("Incoming bytes: GET /t HTTP/1.1\r\nHost: x\r\nX-Mark: seen"), "\(output)")
        #expect(output.contains("Outgoing bytes: HTTP/1.1 200 OK"), "\(output)")
        try await Self.stop(serve)
    }

    @Test func templatingCanBeTurnedOff() async throws {
        let root = try AdminAPITests.root(["mappings/t.json": Self.templated])
        defer { try? FileManager.default.removeItem(at: root) }
        let (on, onURL) = try await Self.serve(["--port", "0", "--root-dir", root.path])
        #expect(try await Self.get(onURL + "/t").1 == "at /t")
        try await Self.stop(on)
        let (off, offURL) = try await Self.serve([
            "--port", "0", "--root-dir", root.path, "--disable-response-templating", "--global-response-templating",
        ])
        #expect(try await Self.get(offURL + "/t").1 == "at {{request.path}}")
        try await Self.stop(off)
    }

    @Test func systemValueReadsThePermittedVariablesOnly() async throws {
        let stub = #"""
            {"request": {"url": "/v"}, "response": {"body": "{{systemValue key='APP_TOKEN'}}",
             "transformers": ["response-template"]}}
            """#
        let root = try AdminAPITests.root(["mappings/v.json": stub])
        defer { try? FileManager.default.removeItem(at: root) }
        for (keys, expected) in [("", "[ERROR: Access to APP_TOKEN is denied]"), ("wiremock.*,app_.*", "t0k3n")] {
            let serve = try CommandProcess(
                shell: #"APP_TOKEN=t0k3n exec "$STUNTDOUBLE" --port 0 --root-dir '\#(root.path)'"#
                    + (keys.isEmpty ? "" : " --permitted-system-keys '\(keys)'"))
            let (_, baseURL) = try await Self.started(serve)
            #expect(try await Self.get(baseURL + "/v").1 == expected, "keys \(keys)")
            try await Self.stop(serve)
        }
        let broken = try await CommandProcess.run(["--port", "0", "--permitted-system-keys", "app_(.*"])
        #expect(broken.status != 0)
        #expect(broken.error.contains("\"app_(.*\" is not a regular expression"), "\(broken.error)")
    }

    /// An upstream that answers with the Host header it got.
    static func hostEcho() async throws -> (CommandProcess, String, URL) {
        let root = try AdminAPITests.root([
            "mappings/host.json": #"""
            {"request": {"urlPath": "/host"}, "response": {"body": "{{request.headers.Host}}",
             "transformers": ["response-template"]}}
            """#
        ])
        let (serve, baseURL) = try await Self.serve(["--port", "0", "--root-dir", root.path])
        return (serve, baseURL, root)
    }

    @Test func forwardedRequestsKeepTheHostHeaderWhenAsked() async throws {
        let (upstream, upstreamURL, root) = try await Self.hostEcho()
        defer { try? FileManager.default.removeItem(at: root) }
        let upstreamHost = String(upstreamURL.dropFirst("http://".count))
        for preserves in [false, true] {
            let (proxy, proxyURL) = try await Self.serve(
                ["--port", "0", "--proxy-all", upstreamURL] + (preserves ? ["--preserve-host-header"] : []))
            let (status, host) = try await Self.get(proxyURL + "/host")
            #expect(status == .ok)
            #expect(host == (preserves ? String(proxyURL.dropFirst("http://".count)) : upstreamHost))
            try await Self.stop(proxy)
        }
        try await Self.stop(upstream)
    }

    /// A docker-compose recording setup: `--proxy-all URL --record-mappings --match-headers X`, then the root
    /// served alone.
    @Test func recordedMappingsReplayWithoutTheUpstream() async throws {
        let (upstream, upstreamURL, upstreamRoot) = try await Self.hostEcho()
        defer { try? FileManager.default.removeItem(at: upstreamRoot) }
        let root = try AdminAPITests.root([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let (recorder, recorderURL) = try await Self.serve([
            "--port", "0", "--proxy-all", upstreamURL, "--record-mappings", "--root-dir", root.path,
            "--match-headers", "X-Tenant",
        ])
        let tenant = [("X-Tenant", "acme")]
        let upstreamHost = String(upstreamURL.dropFirst("http://".count))
        #expect(try await Self.get(recorderURL + "/host", headers: tenant) == (.ok, upstreamHost))
        #expect(try await Self.get(recorderURL + "/host", headers: tenant) == (.ok, upstreamHost))
        try await Self.stop(recorder)
        try await Self.stop(upstream)
        let written = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("mappings").path)
        #expect(written.count == 1, "\(written)")

        let (replay, replayURL) = try await Self.serve(["--port", "0", "--root-dir", root.path])
        #expect(try await Self.get(replayURL + "/host", headers: tenant) == (.ok, upstreamHost))
        #expect(try await Self.get(replayURL + "/host").0 == .notFound, "the tenant header is matched")
        try await Self.stop(replay)
    }

    /// An HTTP proxy that tunnels (CONNECT, as AsyncHTTPClient asks every proxy) and prints each request line.
    static let tunnelingProxy = #"""
        import socket, threading
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        print(server.getsockname()[1], flush=True)
        def pipe(source, sink):
            try:
                while data := source.recv(65536):
                    sink.sendall(data)
            except OSError:
                pass
            try:
                sink.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        def serve(client):
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk:
                    return
                head += chunk
            line = head.split(b"\r\n")[0].decode()
            print(line, flush=True)
            method, target, _ = line.split(" ")
            if method != "CONNECT":
                client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                return client.close()
            host, port = target.rsplit(":", 1)
            upstream = socket.create_connection((host, int(port)))
            client.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
            pipe(client, upstream)
        while True:
            client, _ = server.accept()
            threading.Thread(target=serve, args=(client,), daemon=True).start()
        """#

    static let pythonInstalled = runsWithOutsideProgram(ChildProcess.succeeds("python3", ["--version"]))

    @Test(.enabled(if: pythonInstalled, "python3 is not installed"))
    func forwardedRequestsGoThroughTheProxyGiven() async throws {
        let root = try AdminAPITests.root([
            "mappings/any.json": #"{"request": {"urlPath": "/anything"}, "response": {"body": "from the upstream"}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let (upstream, upstreamURL) = try await Self.serve(["--port", "0", "--root-dir", root.path])
        let tunnel = try ChildProcess("python3", ["-c", Self.tunnelingProxy])
        let deadline = ContinuousClock.now + .seconds(60)
        while !tunnel.standardOutput.contains("\n"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let tunnelPort = try #require(tunnel.standardOutput.split(separator: "\n").first)
        let (server, baseURL) = try await Self.serve([
            "--port", "0", "--proxy-all", upstreamURL, "--proxy-via", "127.0.0.1:\(tunnelPort)",
        ])
        #expect(try await Self.get(baseURL + "/anything").1 == "from the upstream")
        let upstreamAddress = String(upstreamURL.dropFirst("http://".count))
        #expect(tunnel.standardOutput.contains("CONNECT \(upstreamAddress) HTTP/1.1"), "\(tunnel.standardOutput)")
        try await Self.stop(server)
        tunnel.signal(SIGKILL)
        _ = try await tunnel.waitForExit()
        try await Self.stop(upstream)
        let broken = try await CommandProcess.run(["--port", "0", "--proxy-via", "https://user@proxy:99999"])
        #expect(broken.status != 0)
        #expect(broken.error.contains("--proxy-via"), "\(broken.error)")
    }

    @Test func aSlowUpstreamFailsAfterTheProxyTimeout() async throws {
        let root = try AdminAPITests.root([
            "mappings/slow.json": #"{"request": {"url": "/slow"}, "response": {"fixedDelayMilliseconds": 20000}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let (upstream, upstreamURL) = try await Self.serve(["--port", "0", "--root-dir", root.path])
        let (proxy, proxyURL) = try await Self.serve([
            "--port", "0", "--proxy-all", upstreamURL, "--proxy-timeout", "300",
        ])
        let started = ContinuousClock.now
        let (status, _) = try await Self.get(proxyURL + "/slow")
        #expect(status.code >= 500)
        // Well before the upstream's 20 seconds, however loaded the machine.
        #expect(ContinuousClock.now - started < .seconds(15))
        try await Self.stop(proxy)
        try await Self.stop(upstream)
    }

    @Test func theRequestHeadLimitIsJettys() async throws {
        let (serve, baseURL) = try await Self.serve(["--port", "0", "--jetty-header-request-size", "1024"])
        let long = String(repeating: "a", count: 2048)
        #expect(try await Self.get(baseURL + "/x", headers: [("X-Long", long)]).0 == .requestHeaderFieldsTooLarge)
        #expect(try await Self.get(baseURL + "/__admin/health", headers: [("X-Short", "a")]).0 == .ok)
        try await Self.stop(serve)
    }

    static let curlInstalled = runsWithOutsideProgram(ChildProcess.succeeds("curl", ["--version"]))

    @Test(.enabled(if: curlInstalled, "curl is not installed (apt-get install curl; CI does)"))
    func http2OverTLSCanBeTurnedOff() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        for disabled in [false, true] {
            let (serve, _) = try await Self.serve(
                ["--port", "0", "--https-port", "0", "--https-ca-folder", folder.path]
                    + (disabled ? ["--disable-http2-tls"] : []))
            let httpsURL = String(try #require(serve.standardOutput.firstMatch(of: /https:\/\/127\.0\.0\.1:\d+/)).0)
            let curl = try await ChildProcess.run(
                "curl", ["-sk", "--http2", "-o", "/dev/null", "-w", "%{http_version}", httpsURL + "/__admin/health"])
            #expect(curl.output == (disabled ? "1.1" : "2"), "\(curl.error)")
            try await Self.stop(serve)
        }
    }

    @Test(.enabled(if: curlInstalled, "curl is not installed (apt-get install curl; CI does)"))
    func theAdminAPICanAnswerOverHTTPSOnly() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (serve, baseURL) = try await Self.serve([
            "--port", "0", "--https-port", "0", "--https-ca-folder", folder.path, "--admin-api-require-https",
            "--admin-api-basic-auth", "user:secret",
        ])
        let httpsURL = String(try #require(serve.standardOutput.firstMatch(of: /https:\/\/127\.0\.0\.1:\d+/)).0)
        // Over HTTP: 403 before credentials are asked for, as WireMock answers.
        let (refused, message) = try await Self.get(baseURL + "/__admin/mappings")
        #expect(refused == .forbidden)
        #expect(message.contains("HTTPS is required"), "\(message)")
        for (credentials, status) in [("user:secret", "200"), ("user:guess", "401")] {
            let curl = try await ChildProcess.run(
                "curl",
                ["-sk", "-u", credentials, "-o", "/dev/null", "-w", "%{http_code}", httpsURL + "/__admin/mappings"])
            #expect(curl.output == status, "\(credentials): \(curl.error)")
        }
        // Stubs answer over both.
        #expect(try await Self.get(baseURL + "/nothing-here").0 == .notFound)
        try await Self.stop(serve)
    }

    @Test(.enabled(if: curlInstalled, "curl is not installed (apt-get install curl; CI does)"))
    func httpCanBeTurnedOff() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let serve = try CommandProcess([
            "--port", "0", "--https-port", "0", "--https-ca-folder", folder.path, "--disable-http",
        ])
        #expect(
            try await serve.waitForOutput { $0.contains("Press Ctrl-C to stop.") },
            "\(serve.standardOutput)\(serve.standardError)")
        #expect(!serve.standardOutput.contains("http://"), "no HTTP listener: \(serve.standardOutput)")
        let httpsURL = String(try #require(serve.standardOutput.firstMatch(of: /https:\/\/127\.0\.0\.1:\d+/)).0)
        let curl = try await ChildProcess.run(
            "curl", ["-sk", "-o", "/dev/null", "-w", "%{http_code}", httpsURL + "/__admin/health"])
        #expect(curl.output == "200", "\(curl.error)")
        try await Self.stop(serve)
    }

    /// WireMock's documentation puts message stubs in messages/; its code reads message-mappings/. Both serve.
    @Test(arguments: ["messages", "message-mappings"])
    func messageStubsServeFromEitherFolder(folder: String) async throws {
        let chat = #"""
            {"name": "hello", "trigger": {"type": "connect", "channel": {"type": "websocket",
             "initiatingRequestPattern": {"urlPath": "/chat"}}},
             "actions": [{"type": "send", "message": {"body": "welcome"}}]}
            """#
        let root = try AdminAPITests.root(["\(folder)/chat.json": chat])
        defer { try? FileManager.default.removeItem(at: root) }
        let (serve, baseURL) = try await Self.serve(["--port", "0", "--root-dir", root.path])
        #expect(serve.standardOutput.contains("and 1 WebSocket message stub"), "\(serve.standardOutput)")
        let (client, _) = try await WebSocketTestClient.connect(to: URL(string: baseURL)!, path: "/chat")
        #expect(try await client.frames(count: 1).first?.text == "welcome")
        await client.close()
        try await Self.stop(serve)
    }

    /// WireMock gzips answers by default; `--disable-gzip` turns it off.
    @Test func answersAreGzippedUnlessDisabled() async throws {
        let body = String(repeating: "gzip me ", count: 20)
        let root = try AdminAPITests.root([
            "mappings/g.json": #"{"request": {"url": "/g"}, "response": {"body": "\#(body)"}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        for disabled in [false, true] {
            let (serve, baseURL) = try await Self.serve(
                ["--port", "0", "--root-dir", root.path] + (disabled ? ["--disable-gzip"] : []))
            var request = HTTPClientRequest(url: baseURL + "/g")
            request.headers.add(name: "Accept-Encoding", value: "gzip")
            let response = try await GzipTests.client.execute(request, timeout: .seconds(120))
            let received = try await response.body.collect(upTo: 1 << 20)
            #expect(response.headers["Content-Encoding"] == (disabled ? [] : ["gzip"]))
            if disabled {
                #expect(String(buffer: received) == body)
            } else {
                #expect(received.getInteger(at: 0, as: UInt16.self) == 0x1F8B, "gzip's first bytes")
            }
            try await Self.stop(serve)
        }
    }

    /// Without --root-dir, the current folder serves when it holds mappings/, as in WireMock.
    @Test func theCurrentFolderIsTheRootAsInWireMock() async throws {
        let root = try AdminAPITests.root(["mappings/t.json": Self.templated])
        defer { try? FileManager.default.removeItem(at: root) }
        let serve = try CommandProcess(shell: #"cd '\#(root.path)' && exec "$STUNTDOUBLE" --port 0"#)
        let (_, baseURL) = try await Self.started(serve)
        #expect(serve.standardOutput.contains("Serving 1 stub from ."), "\(serve.standardOutput)")
        #expect(try await Self.get(baseURL + "/t").1 == "at /t")
        try await Self.stop(serve)
    }
}

/// WireMock's `--https-keystore`: a PKCS #12 keystore made by openssl serves its certificate; a Java keystore and
/// a wrong password stop the server saying what to do.
@Suite(.enabled(if: HTTPSTests.opensslInstalled, "openssl is not installed"))
struct KeystoreOptionTests {
    /// A folder with `keystore.p12`: a certificate for localhost (CN `keystore-test`) and its key, password `pw`.
    static func keystore() async throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keystore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = """
            cd '\(folder.path)' && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
            -keyout key.pem -out cert.pem -days 2 -subj /CN=keystore-test -addext subjectAltName=IP:127.0.0.1 \
            && openssl pkcs12 -export -inkey key.pem -in cert.pem -out keystore.p12 -passout pass:pw
            """
        let made = try await ChildProcess.run("/bin/sh", ["-c", script])
        #expect(made.status == 0, "\(made.error)")
        return folder
    }

    @Test func aPKCS12KeystoreServesItsCertificate() async throws {
        let folder = try await Self.keystore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (serve, _) = try await WireMockOptionsTests.serve([
            "--port", "0", "--https-port", "0", "--https-keystore", folder.appendingPathComponent("keystore.p12").path,
            "--keystore-password", "pw",
        ])
        let port = try #require(serve.standardOutput.firstMatch(of: /https:\/\/127\.0\.0\.1:(\d+)/)).1
        let subject = try await ChildProcess.run(
            "/bin/sh",
            [
                "-c",
                "openssl s_client -connect 127.0.0.1:\(port) </dev/null 2>/dev/null | openssl x509 -noout -subject",
            ])
        #expect(subject.output.contains("CN = keystore-test"), "\(subject.output)\(subject.error)")
        try await WireMockOptionsTests.stop(serve)
    }

    @Test func aJavaKeystoreOrAWrongPasswordIsRefusedSayingWhatToDo() async throws {
        let folder = try await Self.keystore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let keystore = folder.appendingPathComponent("keystore.p12").path
        let wrong = try await CommandProcess.run([
            "--port", "0", "--https-port", "0", "--https-keystore", keystore, "--keystore-password", "nope",
        ])
        #expect(wrong.status == 1)
        #expect(wrong.error.contains("--keystore-password"), "\(wrong.error)")
        // A Java keystore begins FEEDFEED.
        let java = folder.appendingPathComponent("keystore.jks")
        try Data([0xFE, 0xED, 0xFE, 0xED, 0, 0, 0, 2]).write(to: java)
        let refused = try await CommandProcess.run(["--port", "0", "--https-port", "0", "--https-keystore", java.path])
        #expect(refused.status == 1)
        #expect(refused.error.contains("keytool -importkeystore"), "\(refused.error)")
    }
}
