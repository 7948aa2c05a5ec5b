import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLProtocol of one stubber (`Slot`), for its own sessions or for global interception (`Mode`).
///
/// A thin adapter: it finds its stubber from its class, and hands the request to a ``ResponsePlayer``.
final class StubURLProtocol<Slot: SlotNumber, Mode: InterceptionMode>: URLProtocol {
    private let player = Locked<ResponsePlayer.Handle?>(nil)

    override class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return false
        }
        guard Mode.isGlobal else { return true }
        return ProtocolClasses.stubber(for: self)?.isEnabled ?? false
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        let player = ResponsePlayer(
            urlProtocol: self, stubber: ProtocolClasses.stubber(for: type(of: self)), client: client
        )
        self.player.withLock { $0 = ResponsePlayer.Handle(player) }
        player.start(request: request, task: task)
    }

    override func stopLoading() {
        player.withLock { $0?.player.stop() }
    }
}
