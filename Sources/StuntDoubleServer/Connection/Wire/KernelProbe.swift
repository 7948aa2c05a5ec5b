import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// What the kernel says of a connection's output: how many bytes the client's side has taken in all, and how many
/// the kernel still holds for it. A response handed to a socket can sit in its buffers (megabytes on loopback) for
/// as long as the client takes to read it; `ConnectionStateMachine` asks before it calls a connection idle, or a
/// client that reads slowly a stalled one.
enum KernelProbe {
    /// The kernel's count for a channel's socket, or `nil` where it cannot say (not a TCP socket, as an HTTP/2 stream
    /// is not; not Linux).
    static func look(at channel: any Channel) -> KernelBacklog? {
        #if os(Linux)
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        let future: EventLoopFuture<TCPInfoPrefix> = provider.unsafeGetSocketOption(level: .tcp, name: .tcp_info)
        // On the channel's event loop the option is read at once, and the callback runs before this returns.
        var backlog: KernelBacklog?
        future.assumeIsolated().whenSuccess { backlog = $0.backlog }
        return backlog
        #else
        return nil
        #endif
    }
}

#if os(Linux)
/// The first 152 bytes of Linux's `struct tcp_info` (`linux/tcp.h`): as far as `tcpi_notsent_bytes`, which glibc's
/// declaration of the struct stops before. The kernel fills what it has of them (all, since Linux 4.6); the rest
/// stays zero.
struct TCPInfoPrefix: Sendable {
    private var words:
        (
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
        ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// The field of `T` at byte `offset`.
    private func field<T: FixedWidthInteger>(at offset: Int, as type: T.Type) -> T {
        withUnsafeBytes(of: words) { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    /// `tcpi_bytes_acked`, what the client's side has taken; held: `tcpi_notsent_bytes`, and `tcpi_unacked`
    /// segments of `tcpi_snd_mss` bytes at most.
    var backlog: KernelBacklog {
        let unacked = Int(field(at: 24, as: UInt32.self))
        let mss = Int(field(at: 16, as: UInt32.self))
        let notSent = Int(field(at: 144, as: UInt32.self))
        return KernelBacklog(delivered: field(at: 120, as: UInt64.self), held: notSent + unacked * max(mss, 1))
    }
}
#endif
