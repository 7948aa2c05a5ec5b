import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLProtocol of one stubber (`Slot`), for its own sessions or for global interception (`Mode`).
///
/// A thin adapter: it finds its stubber from its class, and hands the request to a ``ResponsePlayer``.
final class StubURLProtocol<Slot: SlotNumber, Mode: InterceptionMode>: URLProtocol {
    /// Set in `startLoading`, read in `stopLoading`: URLSession calls both on the task's serial work queue.
    private var player: ResponsePlayer?
    private var started = false

    override class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme, Self.isHTTP(scheme) else { return false }
        guard Mode.isGlobal else { return true }
        return ProtocolClasses.stubber(for: self)?.isEnabled ?? false
    }

    /// `http` or `https`, in any case, without allocating.
    private static func isHTTP(_ scheme: String) -> Bool {
        let bytes = scheme.utf8
        guard bytes.count == 4 || bytes.count == 5 else { return false }
        for (byte, expected) in zip(bytes, "https".utf8) where byte | 0x20 != expected {
            return false
        }
        return true
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        // URLSession calls startLoading again when a suspended task resumes, and on a second resume(): the
        // request is answered once, and a resumed answer continues where it paused.
        guard !started else {
            player?.resume()
            return
        }
        started = true
        player = ResponsePlayer.start(
            urlProtocol: self, stubber: ProtocolClasses.stubber(for: type(of: self)), client: client, request: request,
            task: task
        )
    }

    override func stopLoading() {
        // URLSession calls stopLoading when a task is suspended, too: then the answer only pauses.
        if task?.state == .suspended {
            player?.pause()
        } else {
            player?.stop()
        }
    }
}
