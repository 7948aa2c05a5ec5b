import Foundation

extension HTTPResponsePlan {
    /// Why a response cannot be delivered, or `nil`.
    static func validate(_ response: HTTPStubResponse.Storage, bodySize: Int) -> String? {
        func seconds() -> String { "a finite number of seconds from 0 to \(Int(maximumSeconds)) (one year)" }
        let delay = response.responseDelay ?? 0
        if !(delay.isFinite && delay >= 0 && delay <= maximumSeconds) {
            return "responseDelay is \(delay); use \(seconds())"
        }
        var total = delay
        switch response.responseTime {
        case .immediate:
            break
        case .delayedBy(let interval):
            if !(interval.isFinite && interval >= 0 && interval <= maximumSeconds) {
                return "responseTime is .delayedBy(\(interval)); use \(seconds())"
            }
            total += interval
        case .withSpeed where response.eventStream != nil, .dribbled where response.eventStream != nil:
            return "responseTime is \(response.responseTime), but an event stream is paced by its events' delays; "
                + "use .immediate or .delayedBy"
        case .withSpeed(let speed):
            let rate = speed.bytesPerSecond
            if !(rate.isFinite && rate > 0 && rate <= maximumBytesPerSecond) {
                return "responseTime is .withSpeed(\(rate) bytes/s); use a speed above 0 and up to 1e12 bytes/s"
            }
            if response.failError == nil {
                total += Double(bodySize) / rate
            }
        case .dribbled(let chunks, let duration):
            if chunks < 1 || chunks > maximumChunkCount {
                return "responseTime is .dribbled(chunks: \(chunks), ...); use 1 to \(maximumChunkCount) chunks"
            }
            if !(duration.isFinite && duration >= 0 && duration <= maximumSeconds) {
                return "responseTime is .dribbled(..., over: \(duration)); use \(seconds())"
            }
            total += duration
        }
        if let stream = response.eventStream, response.failError == nil, let problem = stream.problem() {
            return problem
        }
        if total > maximumSeconds {
            return "delivery would take \(total) seconds; keep delays and throttled bodies under one year"
        }
        if let fault = response.fault, !HTTPStubFault.allCases.contains(fault) {
            return "fault is \"\(fault)\"; use one of " + HTTPStubFault.allCases.map(\.rawValue).joined(separator: ", ")
        }
        if response.failError == nil, !(100...599).contains(response.statusCode.rawValue) {
            return "statusCode is \(response.statusCode.rawValue); use a code from 100 to 599"
        }
        return nil
    }
}
