import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reading the request a player answers: streamed upload bodies (asked of the task's delegate), and the
/// request as the stubber sees it.
extension ResponsePlayer {
    #if canImport(FoundationNetworking)
    /// Answers a streamed upload (`uploadTask(withStreamedRequest:)`) once its body is read: FoundationNetworking
    /// asks the task's delegate for the body stream (`urlSession(_:task:needNewBodyStream:)`) only for its own
    /// HTTP protocol, so StuntDouble asks it the same way, on the session's delegate queue, and reads the stream
    /// away from the work queue. The request's timeout applies to the wait; a delegate that gives no stream
    /// fails the request with an error that says so.
    func startAfterReadingStreamedBody(of request: URLRequest) {
        let url = request.url?.absoluteString ?? "?"
        let source = lock.withLock { () -> TaskIntrospection.TaskDelegate? in
            timeline.wait(from: 0)
            return context.delegate
        }
        run()
        guard let source else {
            deliverStreamedBody(
                .failure(
                    HTTPStubberError(
                        code: .unreadableRequestBody,
                        message: "The body of the streamed upload to \(url) cannot be read: StuntDouble found no "
                            + "session delegate to ask for its body stream. Give the session a delegate that "
                            + "implements urlSession(_:task:needNewBodyStream:), or upload with upload(for:from:)."
                    )), for: request)
            return
        }
        source.bodyStream { [weak self] stream in
            guard let self else { return }
            guard let stream else {
                deliverStreamedBody(
                    .failure(
                        HTTPStubberError(
                            code: .unreadableRequestBody,
                            message: "The streamed upload to \(url) has no body: its delegate's "
                                + "urlSession(_:task:needNewBodyStream:) gave no stream (or the delegate does not "
                                + "implement it). Give it a stream, or upload with upload(for:from:)."
                        )), for: request)
                return
            }
            // Reading can block (a bound stream pair fed by another thread): never on the work queue.
            DispatchQueue.global().async { [weak self] in
                let body: Result<Data, HTTPStubberError>
                do throws(HTTPIncomingRequest.StreamError) {
                    body = .success(try HTTPIncomingRequest.read(stream.stream))
                } catch {
                    body = .failure(
                        HTTPStubberError(
                            code: .unreadableRequestBody,
                            message: "The body stream of the streamed upload to \(url) failed: \(error.reason)."))
                }
                self?.deliverStreamedBody(body, for: request)
            }
        }
    }

    /// Continues a streamed upload with its body (or fails it), on the task's work queue.
    func deliverStreamedBody(_ body: Result<Data, HTTPStubberError>, for request: URLRequest) {
        onWorkQueue { [self] in
            lock.withLock {
                guard !stopped, !finished else { return }
                endTimeline()  // the wait's timeout step
                let now = elapsed
                timeline.resume(at: now)
                do {
                    var withBody = request
                    withBody.httpBody = try body.get()
                    context.delegate?.didSendBody(count: withBody.httpBody?.count ?? 0)
                    decide(try HTTPIncomingRequest(withBody), hop: 0, at: now)
                } catch {
                    timeline.fail(error, at: now)
                }
            }
            run()
        }
    }
    #endif

    static func makeIncomingRequest(_ request: URLRequest, task: URLSessionTask?) throws(HTTPStubberError)
        -> HTTPIncomingRequest
    {
        guard task is URLSessionUploadTask else {
            return try HTTPIncomingRequest(request)
        }
        // An upload's body is the task's, not the request's (whose httpBody, if any, is stale). Its delegate
        // hears that the body was sent (in one piece), as for a real upload.
        let introspection = TaskIntrospection(task)
        switch introspection.uploadBody() {
        case .notApplicable, .streamed:  // a streamed upload here carries its stream in the request
            let incoming = try HTTPIncomingRequest(request)
            introspection.delegate?.didSendBody(count: incoming.body?.count ?? 0)
            return incoming
        case .body(let body):
            var withBody = request
            withBody.httpBody = body
            introspection.delegate?.didSendBody(count: body?.count ?? 0)
            return try HTTPIncomingRequest(withBody)
        case .unreadable(let why):
            if request.httpBody != nil || request.httpBodyStream != nil {
                return try HTTPIncomingRequest(request)
            }
            throw HTTPStubberError(
                code: .unreadableRequestBody,
                message: "The body of the upload to \(request.url?.absoluteString ?? "?") cannot be read: \(why). "
                    + "Send it with a data task whose request has an httpBody instead."
            )
        }
    }
}
