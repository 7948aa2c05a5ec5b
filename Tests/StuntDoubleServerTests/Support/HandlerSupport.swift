import Foundation
import NIOCore
import NIOEmbedded
import StuntDouble
@testable import StuntDoubleServer

/// What a channel does with the writes of a handler on an `EmbeddedChannel`: it queues them, turns unwritable past
/// 64 KiB of payload, and on a flush sends everything (a peer with room) and turns writable again, telling the
/// pipeline at once, in the middle of the write or flush that caused it, as NIO's socket and HTTP/2 stream channels
/// do: the order of events that cut every plain-HTTP body at 131,072 bytes (issue 25).
final class WritabilityModel<Payload>: ChannelOutboundHandler {
    typealias OutboundIn = Payload
    typealias OutboundOut = Payload
    /// How many bytes of payload a write carries (a socket's bytes, an HTTP/2 stream's DATA).
    private let size: (Payload) -> Int
    private var queued: [(Payload, EventLoopPromise<Void>?)] = []
    private var pending = 0
    /// Whether a flush sends what is queued (a peer that reads), or keeps it (one that does not, yet).
    var sends = true
    private(set) var reports = 0

    init(size: @escaping (Payload) -> Int) {
        self.size = size
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let payload = unwrapOutboundIn(data)
        queued.append((payload, promise))
        pending += size(payload)
        if pending > 64 << 10, context.channel.isWritable {
            (context.channel as! EmbeddedChannel).isWritable = false
            reports += 1
            context.fireChannelWritabilityChanged()
        }
    }

    func flush(context: ChannelHandlerContext) {
        guard sends else { return }
        send(context: context)
    }

    /// The peer took everything: send what is queued.
    func drain(context: ChannelHandlerContext) {
        send(context: context)
    }

    private func send(context: ChannelHandlerContext) {
        let taken = queued
        queued.removeAll()
        pending = 0
        for (payload, promise) in taken {
            context.write(wrapOutboundOut(payload), promise: promise)
        }
        context.flush()
        if !context.channel.isWritable {
            (context.channel as! EmbeddedChannel).isWritable = true
            reports += 1
            context.fireChannelWritabilityChanged()
        }
    }
}

/// A stubber for the handler tests: `GET` and `HEAD` of any URL answer `body`, changed by `configure`.
func handlerStubber(_ body: Data, configure: (HTTPStubResponse) -> Void = { _ in }) -> HTTPStubber {
    let stubber = HTTPStubber()
    for method in [StuntDouble.HTTPMethod.get, .head] {
        stubber.add(
            stub: HTTPStubRequest().stub(for: method) {
                $0.body = body
                configure($0)
            })
    }
    return stubber
}

/// The server's core for a handler test: the configuration as `configure` leaves it, with the admin API off.
func handlerCore(stubber: HTTPStubber, configure: (inout HTTPStubServer.Configuration) -> Void) -> ServerCore {
    var configuration = HTTPStubServer.Configuration()
    configuration.isAdminAPIEnabled = false
    configure(&configuration)
    return ServerCore(stubber: stubber, configuration: configuration)
}
