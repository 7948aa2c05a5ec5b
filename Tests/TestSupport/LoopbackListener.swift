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

    /// Binds a socket to a port the system picks and, given a backlog, listens on it. Without one, the socket is
    /// bound and never listens, without `SO_REUSEADDR`: connections to the port are refused, and no other socket
    /// can be given it while this one is open.
    init(backlog: Int32?) throws {
        #if canImport(Glibc)
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw URLError(.cannotConnectToHost) }
        if backlog != nil {
            var reuse: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, backlog.map({ listen(descriptor, $0) == 0 }) ?? true else {
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

/// A port on 127.0.0.1 that refuses connections for as long as this lives: a socket bound to it that never
/// listens, so that no other server can be given the port meanwhile. (A server started, then stopped, to free
/// its port does not do: under CI's load, a server another test started at the same time was given that port,
/// and the "refused" requests were answered.)
public final class RefusingPort {
    /// The port.
    public let port: Int
    private let socket: Int32

    /// Holds a port that refuses connections.
    /// - Throws: `URLError(.cannotConnectToHost)` when no port can be bound.
    public init() throws {
        let listener = try LoopbackListener(backlog: nil)
        socket = listener.socket
        port = listener.port
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)")!
    }

    deinit {
        close(socket)
    }
}
