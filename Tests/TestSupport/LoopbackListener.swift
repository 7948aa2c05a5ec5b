import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening TCP socket on 127.0.0.1, on a port the system picks.
public struct LoopbackListener {
    let socket: Int32
    let port: Int

    init(backlog: Int32) throws {
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
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, backlog) == 0 else {
            close(descriptor)
            throw URLError(.cannotConnectToHost)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        socket = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// A port that was free a moment ago, for a program that must be told its port before it starts (another
    /// program may take it meanwhile, which the tests that use it then report as a failure to start).
    public static func freePort() throws -> Int {
        let listener = try LoopbackListener(backlog: 1)
        close(listener.socket)
        return listener.port
    }
}

/// A TCP listener on 127.0.0.1 that accepts connections (the kernel does) but never answers: a server that
/// hangs, for tests of requests that go to the network.
public final class SilentServer {
    /// The port it listens on.
    public let port: Int
    private let socket: Int32

    /// Starts listening.
    /// - Throws: `URLError(.cannotConnectToHost)` when no port can be bound.
    public init() throws {
        let listener = try LoopbackListener(backlog: 16)
        socket = listener.socket
        port = listener.port
    }

    deinit {
        close(socket)
    }
}
