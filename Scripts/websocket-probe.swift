// Checks what FoundationNetworking does with a URLSessionWebSocketTask when a URLProtocol is registered: whether
// the protocol is consulted, and how the task ends. Run by Scripts/websocket-probe; its findings are in
// Notes/urlsession-websockets.md.
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the protocol class saw, across threads.
final class Sightings: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func add(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}

let sightings = Sightings()

/// Claims every request and task, and answers a WebSocket handshake (101) with one text frame.
final class ClaimingProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool {
        sightings.add("canInit(with: request) \(request.url?.absoluteString ?? "")")
        return true
    }

    override class func canInit(with task: URLSessionTask) -> Bool {
        sightings.add("canInit(with: task) \(type(of: task))")
        return true
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        sightings.add("startLoading \(request.url?.absoluteString ?? "")")
        guard let url = request.url,
            let response = HTTPURLResponse(
                url: url, statusCode: 101, httpVersion: "HTTP/1.1",
                headerFields: ["Upgrade": "websocket", "Connection": "Upgrade"])
        else { return }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data([0x81, 0x05]) + Data("hello".utf8))
    }

    override func stopLoading() {}
}

/// Opens a WebSocket task and waits for its first message, printing how it ended.
func probe(_ label: String, _ session: URLSession, _ url: String) {
    guard let target = URL(string: url) else { return }
    let before = sightings.all.count
    let start = Date()
    let task = session.webSocketTask(with: target)
    task.resume()
    let done = DispatchSemaphore(value: 0)
    task.receive { result in
        let elapsed = Int(Date().timeIntervalSince(start) * 1000)
        switch result {
        case .success(let message): print("\(label) \(url): received \(message) after \(elapsed) ms")
        case .failure(let error):
            let error = error as NSError
            print(
                "\(label) \(url): failed after \(elapsed) ms, \(error.domain) \(error.code): \(error.localizedDescription)"
            )
        }
        done.signal()
    }
    if done.wait(timeout: .now() + 10) == .timedOut { print("\(label) \(url): nothing within 10 s") }
    let seen = sightings.all.dropFirst(before)
    print("  protocol class consulted: " + (seen.isEmpty ? "never" : seen.joined(separator: "; ")))
}

let configuration = URLSessionConfiguration.ephemeral
configuration.protocolClasses = [ClaimingProtocol.self]
let session = URLSession(configuration: configuration)
for url in ["ws://stub.test/chat", "wss://stub.test/chat", "http://stub.test/chat"] {
    probe("protocolClasses", session, url)
}
_ = URLProtocol.registerClass(ClaimingProtocol.self)
probe("registerClass, URLSession.shared", URLSession.shared, "ws://stub.test/shared")
