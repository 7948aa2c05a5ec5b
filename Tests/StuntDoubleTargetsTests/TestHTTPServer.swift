import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 (a port the system picks) for real requests in tests: one connection
/// per request, `Content-Length` bodies, `Connection: close`.
final class TestHTTPServer: @unchecked Sendable {
    struct Request: Sendable {
        let method: String
        let target: String
        let headers: [String: String]
        let body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    struct Reply: Sendable {
        var status: Int = 200
        var headers: [String: String] = [:]
        var body = Data()
        /// Seconds to wait before answering.
        var delay: Double = 0
    }

    let port: Int
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    private let socket: Int32
    private let handler: @Sendable (Request) -> Reply
    private let lock = NSLock()
    private var received: [Request] = []

    /// The requests received so far.
    var requests: [Request] { lock.withLock { received } }

    init(_ handler: @escaping @Sendable (Request) -> Reply) throws {
        self.handler = handler
        #if canImport(Glibc)
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw URLError(.cannotConnectToHost) }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw URLError(.cannotConnectToHost)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        socket = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops accepting connections.
    func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(socket, nil, nil)
            guard connection >= 0 else { return }
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
