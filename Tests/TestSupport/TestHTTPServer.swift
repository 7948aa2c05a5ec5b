import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 (a port the system picks) for real requests in tests: one connection
/// per request, `Content-Length` bodies, `Connection: close`.
public final class TestHTTPServer: @unchecked Sendable {
    /// A request the server received.
    public struct Request: Sendable {
        /// The method.
        public let method: String
        /// The request target (path and query).
        public let target: String
        /// The headers, as sent.
        public let headers: [String: String]
        /// The body.
        public let body: Data

        /// A header's value, by a case-insensitive name.
        public func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// What the server answers.
    public struct Reply: Sendable {
        /// The status code.
        public var status: Int
        /// Extra headers.
        public var headers: [String: String]
        /// The body.
        public var body: Data
        /// Seconds to wait before answering.
        public var delay: Double

        /// A reply.
        public init(status: Int = 200, headers: [String: String] = [:], body: Data = Data(), delay: Double = 0) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
        }
    }

    /// The port it listens on.
    public let port: Int
    /// `http://127.0.0.1:port`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    private let socket: Int32
    private let handler: @Sendable (Request) -> Reply
    private let lock = NSLock()
    private var received: [Request] = []
    private var stopped = false
    /// Whether the accept loop closed the listening socket: its descriptor number may then be another socket's.
    private var closed = false

    /// The requests received so far.
    public var requests: [Request] { lock.withLock { received } }

    /// Starts a server that answers each request with the handler's reply.
    /// - Parameter handler: Makes the reply to a request.
    /// - Throws: `URLError(.cannotConnectToHost)` when no port can be bound.
    public init(_ handler: @escaping @Sendable (Request) -> Reply) throws {
        self.handler = handler
        let listener = try LoopbackListener(backlog: 64)
        socket = listener.socket
        port = listener.port
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops accepting connections: the port refuses them from now on.
    ///
    /// The listening socket is shut down here and closed by the accept loop as it ends: closing it here, while
    /// the loop may be about to call `accept` again, would let the loop accept on whatever socket reuses the
    /// descriptor number next (another test's server) and answer its requests with this server's handler.
    ///
    /// Calling it again, or after the loop ended, does nothing: a second `shutdown` of the closed descriptor hit
    /// whatever socket reused the number (in one test process, another test's server: its listener bound no
    /// port, its connections were reset).
    public func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            if !closed { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        defer {
            lock.withLock {
                closed = true
                close(socket)
            }
        }
        while true {
            let connection = accept(socket, nil, nil)
            if lock.withLock({ stopped }) {
                if connection >= 0 { close(connection) }
                return
            }
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var data = Data()
        var headerEnd: Range<Data.Index>?
        while headerEnd == nil {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            data.append(buffer, count: count)
            headerEnd = data.range(of: Data("\r\n\r\n".utf8))
        }
        guard let end = headerEnd else { return }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = head.first?.split(separator: " ") ?? []
        guard requestLine.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = headers.first { $0.key.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        var body = Data(data[end.upperBound...])
        while body.count < length {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { break }
            body.append(buffer, count: count)
        }
        let request = Request(
            method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
        lock.withLock { received.append(request) }
        let reply = handler(request)
        if reply.delay > 0 {
            Thread.sleep(forTimeInterval: reply.delay)
        }
        var response = "HTTP/1.1 \(reply.status) Status\r\nContent-Length: \(reply.body.count)\r\nConnection: close\r\n"
        for (name, value) in reply.headers {
            response += "\(name): \(value)\r\n"
        }
        response += "\r\n"
        let bytes = Data(response.utf8) + reply.body
        bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let count = write(connection, raw.baseAddress!.advanced(by: sent), raw.count - sent)
                guard count > 0 else { return }
                sent += count
            }
        }
    }
}
