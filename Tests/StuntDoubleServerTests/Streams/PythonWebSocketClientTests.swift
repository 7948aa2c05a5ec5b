import Foundation
import StuntDouble
import StuntDoubleServer
import StuntDoubleWireMock
import TestSupport
import Testing

/// The server's WebSocket channels driven by a client no one here wrote: Python's `websockets` package (PyPI,
/// installed by CI), over `ws://` and `wss://`, answered by WireMock 4 message mappings from files.
@Suite struct PythonWebSocketClientTests {
    static let clientInstalled = runsWithOutsideProgram(
        ChildProcess.succeeds("python3", ["-c", "import websockets.sync.client"]))

    static let script = """
        import sys, json, ssl, urllib.request
        from websockets.sync.client import connect
        from websockets.exceptions import ConnectionClosed

        base, admin = sys.argv[1], sys.argv[2]
        context = ssl.create_default_context(cafile=sys.argv[3]) if len(sys.argv) > 3 else None
        def open_(path, **options):
            return connect(base + path, ssl=context, open_timeout=30, **options) if context else connect(base + path, open_timeout=30, **options)

        with open_("/game") as ws:
            ws.send("ping")
            print("game", ws.recv(timeout=30))
        with open_("/feeds/news", additional_headers={"X-Token": "t-9"}) as ws:
            ws.send(json.dumps({"op": "sub", "topic": "python"}))
            print("feed", json.loads(ws.recv(timeout=30)))
        with open_("/room/7") as ws:
            ws.send(bytes([0, 1, 2]))
            print("bytes", list(ws.recv(timeout=30)), ws.recv(timeout=30))
            request = urllib.request.Request(admin + "/__admin/channels/send", method="POST", data=json.dumps(
                {"type": "websocket", "initiatingRequest": {"urlPath": "/room/7"}, "message": {"body": {"data": "notice"}}}).encode())
            with urllib.request.urlopen(request) as response:
                print("sent", json.loads(response.read())["channelsMessaged"])
            print("pushed", ws.recv(timeout=30))
        with open_("/session") as ws:
            print("session", ws.recv(timeout=30), ws.recv(timeout=30))
            try:
                ws.recv(timeout=30)
            except ConnectionClosed as closed:
                print("closed", closed.rcvd.code, closed.rcvd.reason)
        """

    static let expected = [
        "game pong", "feed {'ok': True, 'topic': 'python', 'path': '/feeds/news'}", "bytes [255, 0, 255] ack",
        "sent 1", "pushed notice", "session hello soon", "closed 4001 token expired",
    ]

    @Test(.enabled(if: clientInstalled, "Python's websockets is not installed (pip install websockets; CI does)"))
    func pythonsWebsocketsTalksToTheServer() async throws {
        try await AdminAPITests.withServer(files: MessageMappingServerTests.files) { baseURL, _, _ in
            let ws = baseURL.absoluteString.replacingOccurrences(of: "http://", with: "ws://")
            let result = try await ChildProcess.run("python3", ["-c", Self.script, ws, baseURL.absoluteString])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.split(separator: "\n").map(String.init) == Self.expected, "\(result.output)")
        }
    }

    @Test(.enabled(if: clientInstalled, "Python's websockets is not installed (pip install websockets; CI does)"))
    func pythonsWebsocketsTalksToTheServerOverTLS() async throws {
        let root = try AdminAPITests.root(MessageMappingServerTests.files)
        defer { try? FileManager.default.removeItem(at: root) }
        let stubber = HTTPStubber()
        try stubber.load(stubFilesAt: root)
        let folder = HTTPSTests.Folder()
        var configuration = HTTPStubServer.Configuration()
        configuration.https = .init(identity: .generated(authorityFolder: folder.url))
        try await HTTPSTests.serve(stubber, configuration) { server, authority in
            let base = try #require(server.httpsBaseURL)
            let authority = try #require(authority)
            let wss = base.absoluteString.replacingOccurrences(of: "https://", with: "wss://")
            let result = try await ChildProcess.run(
                "python3", ["-c", Self.script, wss, server.baseURL?.absoluteString ?? "", authority.path])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.split(separator: "\n").map(String.init) == Self.expected, "\(result.output)")
        }
        #expect(stubber.messageJournal.contains { $0.channel.request.url.scheme == "wss" })
    }
}
