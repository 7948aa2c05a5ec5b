import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What StuntDouble's URLProtocol classes share: they take HTTP and HTTPS requests and hand each to a
/// ``ResponsePlayer`` with their stubber. Subclasses say which stubber that is.
///
/// A thin adapter: the player does the work.
class StubbingURLProtocol: URLProtocol {
    /// Set in `startLoading`, read in `stopLoading`: URLSession calls both on the task's serial work queue.
    private var answer: ResponsePlayer.Answer?

    /// The stubber that answers this class's requests now, or `nil` with the reason there is none.
    class func stubber() -> Result<HTTPStubber, HTTPStubberError> {
        .failure(HTTPStubberError(code: .invalidRequest, message: "StubbingURLProtocol is abstract."))
    }

    override class func canInit(with request: URLRequest) -> Bool {
        // URLSession asks several times per request: the absolute string is the cheapest way to the scheme.
        guard let url = request.url else { return false }
        return hasHTTPScheme(url.absoluteString)
    }

    /// Whether an absolute URL string starts with `http:` or `https:`, in any case, without allocating.
    static func hasHTTPScheme(_ string: String) -> Bool {
        var bytes = string.utf8.makeIterator()
        for expected in "http".utf8 {
            guard let byte = bytes.next(), byte | 0x20 == expected else { return false }
        }
        switch bytes.next() {
        case UInt8(ascii: ":"): return true
        case let byte? where byte | 0x20 == UInt8(ascii: "s"): return bytes.next() == UInt8(ascii: ":")
        default: return false
        }
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        // URLSession calls startLoading again when a suspended task resumes, and on a second resume(): the
        // request is answered once, and a resumed answer continues where it paused.
        if let answer {
            answer.resume()
            return
        }
        answer = ResponsePlayer.start(
            urlProtocol: self, stubber: type(of: self).stubber(), client: client, request: request, task: task
        )
    }

    override func stopLoading() {
        // URLSession calls stopLoading when a task is suspended, too: then the answer only pauses.
        if task?.state == .suspended {
            answer?.pause()
        } else {
            answer?.stop()
        }
    }
}

/// The URLProtocol of one stubber (`Slot`) for the sessions made from it: it answers every HTTP and HTTPS
/// request of those sessions, enabled or not.
final class StubURLProtocol<Slot: SlotNumber>: StubbingURLProtocol {
    override class func stubber() -> Result<HTTPStubber, HTTPStubberError> {
        guard let stubber = ProtocolClasses.stubber(for: self) else {
            return .failure(
                HTTPStubberError(
                    code: .invalidRequest,
                    message: "The stubber of this URLSession no longer exists, so the request cannot be answered. "
                        + "Keep the HTTPStubber alive as long as the sessions made from it."
                ))
        }
        return .success(stubber)
    }
}

/// The URLProtocol of global interception (`enable()`): it takes requests while a stubber is enabled, and
/// answers them with the most recently enabled one (see `GlobalInterception`).
final class GlobalStubURLProtocol: StubbingURLProtocol {
    override class func canInit(with request: URLRequest) -> Bool {
        super.canInit(with: request) && GlobalInterception.current != nil
    }

    override class func stubber() -> Result<HTTPStubber, HTTPStubberError> {
        guard let stubber = GlobalInterception.current else {
            return .failure(
                HTTPStubberError(
                    code: .invalidRequest,
                    message: "The stubber was disabled while this request was starting, so it cannot be answered. "
                        + "Disable the stubber only after the requests it should answer have finished."
                ))
        }
        return .success(stubber)
    }
}
