import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An event stream's plan (``HTTPStubResponse/eventStream``): its body, its events as delivered, and its time scale.
extension HTTPResponsePlan {
    /// Everything the body's chunks deliver, for a caller that receives the body in one piece at the end: the
    /// body, once for each play of a stream that repeats (an endless stream has no end, and gives one play).
    package var deliveredBody: Data {
        guard let plays = continuation?.plays, plays > 1 else { return body }
        let body = self.body
        var whole = Data(capacity: body.count * plays)
        for _ in 0..<plays { whole.append(body) }
        return whole
    }

    /// The events of an event stream's response (one play of them, ``continuation`` says how many), each with
    /// its delay after the one before as this plan delivers it (scaled by ``HTTPStubber/eventTimeScale``; the
    /// first counts from the request); `nil` for a response that is not an event stream. The journal's entries
    /// show what a stream sent this way.
    public var events: [HTTPStubEvent]? {
        guard isEventStream, let body = response?.body else { return nil }
        var events: [HTTPStubEvent] = []
        var previous = Duration.zero
        for chunk in chunks {
            // Each chunk is one event (an event of no field, a pause, is an empty chunk).
            guard var event = HTTPStubEventStream.events(in: body.subdata(in: chunk.range))?.first?.event else {
                continue  // a pause: the next event's delay holds it
            }
            event.delay = (chunk.deadline - previous).seconds
            previous = chunk.deadline
            events.append(event)
        }
        return events
    }

    /// The plan with its events' delays multiplied by `factor` (``HTTPStubber/eventTimeScale``); an error for a
    /// factor that is negative or not finite.
    func scalingEvents(by factor: Double) -> HTTPResponsePlan {
        guard factor.isFinite, factor >= 0 else {
            let error = HTTPStubberError(
                code: .invalidResponse,
                message: "The stubber's eventTimeScale is \(factor); use 0 (as fast as possible), 1 (as written) or "
                    + "another finite number of 0 or more.")
            return HTTPResponsePlan(
                stub: stub, request: request,
                prepared: Prepared(action: .fail(error), responseDeadline: .zero, chunks: [], absence: nil))
        }
        let start = responseDeadline
        let chunks = self.chunks.map { Chunk(range: $0.range, deadline: start + ($0.deadline - start) * factor) }
        let continuation = self.continuation.map { continuation in
            var period = continuation.period * factor
            // A stream that repeats forever must take some time a play.
            if continuation.plays == nil { period = max(period, .milliseconds(1)) }
            return Continuation(plays: continuation.plays, period: period, staysOpen: continuation.staysOpen)
        }
        let prepared = Prepared(
            action: action, responseDeadline: start, chunks: chunks, absence: absence, continuation: continuation,
            isEventStream: true)
        var plan = HTTPResponsePlan(stub: stub, request: request, prepared: prepared)
        plan.isPerRequest = isPerRequest
        return plan
    }
}

extension HTTPResponsePlan.Prepared {
    /// The plan of an event stream: its events, encoded one after the other, are the body; each is a chunk due
    /// when its delay after the one before is over.
    convenience init(_ stream: HTTPStubEventStream, of response: HTTPStubResponse.Storage, start: Double) {
        var body = Data()
        var chunks: [HTTPResponsePlan.Chunk] = []
        // Delays are summed in whole nanoseconds: a stream's times do not drift with its length.
        var time = Duration.zero
        for event in stream.events {
            let lower = body.count
            body.append(contentsOf: event.encoded.utf8)
            time += .nanoseconds(Int64((event.delay * 1e9).rounded()))
            chunks.append(HTTPResponsePlan.Chunk(range: lower..<body.count, deadline: .seconds(start) + time))
        }
        var headers = response.headers
        if let contentType = response.contentType {
            headers[.contentType] = contentType.rawValue
        } else if !headers.contains(.contentType) {
            headers[.contentType] = HTTPContentType.eventStream.rawValue
        }
        if !headers.contains("Cache-Control") { headers["Cache-Control"] = "no-cache" }
        // Its length is not known ahead to a client: a server sends it chunked.
        headers.remove(.contentLength)
        let plays: Int? = if case .times(let count) = stream.repetition { count } else { nil }
        let continuation =
            plays == 1 && stream.end == .close
            ? nil
            : HTTPResponsePlan.Continuation(plays: plays, period: time, staysOpen: stream.end == .stayOpen)
        let action = HTTPResponsePlan.Action.respond(
            HTTPResponsePlan.Response(
                statusCode: response.statusCode, headers: headers, body: body, cachePolicy: response.cachePolicy,
                reasonPhrase: response.statusMessage))
        self.init(
            action: action, responseDeadline: .seconds(start), chunks: chunks, absence: nil,
            continuation: continuation, isEventStream: true)
    }
}
