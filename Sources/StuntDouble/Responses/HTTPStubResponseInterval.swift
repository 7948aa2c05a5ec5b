import Foundation

/// How a stubbed response is delivered in time, after its ``HTTPStubResponse/responseDelay``.
public enum HTTPStubResponseInterval: Hashable, Sendable {
    /// The whole response at once, with no delay (the default).
    case immediate
    /// The whole response at once, after the given number of seconds.
    case delayedBy(TimeInterval)
    /// The headers at once, then the body spread over time at the given bandwidth.
    case withSpeed(HTTPConnectionSpeed)
    /// The headers at once, then the body in `chunks` equal parts, one every `duration / chunks` seconds, the
    /// last at `duration` (WireMock's `chunkedDribbleDelay`). A body shorter than `chunks` bytes goes a byte
    /// per part.
    case dribbled(chunks: Int, over: TimeInterval)
}
