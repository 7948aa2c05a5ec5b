import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPStubClient {
    /// One request's state: the head as it was planned or fetched, and the deadline's timer.
    struct Exchange: Sendable {
        let request: HTTPClientRequest
        let deadline: NIODeadline
        let logger: Logger?
        let network: HTTPClient
        /// The stubbed response's fields as written, or the fetched response's head.
        private let heads = Locked(Head.none)
        /// Whether the deadline passed.
        private let expired = Locked(false)

        enum Head: Sendable {
            case none
            case planned(HTTPResponsePlan.Response)
            case fetched(HTTPClientResponse)
        }

        /// Takes the stubbed response, before its head is delivered.
        var plan: @Sendable (HTTPResponsePlan.Response) -> Void {
            { [heads] response in heads.withLock { $0 = .planned(response) } }
        }

        /// Fetches a request that goes to the network with the real client, by the same deadline.
        var relay: HTTPStubSession.Relay {
            { [heads, network, deadline, logger] urlRequest, receiver in
                guard let url = urlRequest.url else { throw HTTPClientError.invalidURL }
                var outgoing = HTTPClientRequest(url: url.absoluteString)
                outgoing.method = HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET")
                for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] {
                    outgoing.headers.add(name: name, value: value)
                }
                if let body = urlRequest.httpBody {
                    outgoing.body = .bytes(ByteBuffer(bytes: body))
                }
                let sent = ContinuousClock.now
                let response = try await network.execute(outgoing, deadline: deadline, logger: logger)
                heads.withLock { $0 = .fetched(response) }
                var fields = [String: String]()
                for field in response.headers {
                    fields[field.name] = fields[field.name].map { "\($0), \(field.value)" } ?? field.value
                }
                guard
                    let head = HTTPURLResponse(
                        url: url, statusCode: Int(response.status.code), httpVersion: "HTTP/1.1", headerFields: fields)
                else { throw HTTPClientError.invalidURL }
                var arrivals = [HTTPRecordedExchange.Arrival(byteCount: 0, time: .now - sent)]
                receiver.head(head)
                var body = Data()
                for try await buffer in response.body {
                    let part = Data(buffer.readableBytesView)
                    body.append(part)
                    arrivals.append(.init(byteCount: body.count, time: .now - sent))
                    receiver.chunk(part)
                }
                return (body, head, arrivals)
            }
        }

        /// Runs `receive` until it returns the head, or until the deadline: then it is cancelled, and the
        /// exchange fails with `HTTPClientError.deadlineExceeded`.
        func head(
            _ receive: @escaping @Sendable () async throws -> (HTTPStubSession.Body, URLResponse)
        ) async throws -> (HTTPStubSession.Body, URLResponse) {
            let deadline = deadline
            do {
                return try await withThrowingTaskGroup(of: (HTTPStubSession.Body, URLResponse)?.self) { group in
                    group.addTask { try await receive() }
                    group.addTask {
                        try await Task.sleep(for: .seconds(HTTPStubClient.seconds(until: deadline)))
                        return nil
                    }
                    let first = try await group.next()
                    group.cancelAll()
                    guard let first, let head = first else {
                        // The deadline came first. A head that came meanwhile is not delivered: its stub stops.
                        while let late = try? await group.next() {
                            late?.0.cancel()
                        }
                        throw HTTPClientError.deadlineExceeded
                    }
                    return head
                }
            } catch {
                throw HTTPStubClient.clientError(error, deadlinePassed: Self.seconds(until: deadline) <= 0)
            }
        }

        private static func seconds(until deadline: NIODeadline) -> Double {
            HTTPStubClient.seconds(until: deadline)
        }

        /// The response: the head as planned (or fetched), and the body as it arrives, ended by the deadline.
        func response(head: URLResponse, body: HTTPStubSession.Body) -> HTTPClientResponse {
            let status: HTTPResponseStatus
            var headers = NIOHTTP1.HTTPHeaders()
            switch heads.withLock({ $0 }) {
            case .planned(let planned):
                status = HTTPResponseStatus(
                    statusCode: planned.statusCode.rawValue, reasonPhrase: planned.reasonPhrase ?? "")
                for field in planned.headers {
                    headers.add(name: field.name.rawValue, value: field.value)
                }
            case .fetched(let fetched):
                status = fetched.status
                headers = fetched.headers
            case .none:
                let http = head as? HTTPURLResponse
                status = HTTPResponseStatus(statusCode: http?.statusCode ?? 200)
                for (name, value) in http?.allHeaderFields ?? [:] {
                    headers.add(name: String(describing: name), value: String(describing: value))
                }
            }
            // The deadline covers the body too: when it passes, the body ends with `.deadlineExceeded`.
            let remaining = HTTPStubClient.seconds(until: deadline)
            let timer = Task { [expired] in
                try await Task.sleep(for: .seconds(remaining))
                expired.withLock { $0 = true }
                body.cancel()
            }
            let owner = Owner(body: body, timer: timer)
            var final = request
            if let url = head.url?.absoluteString {
                final.url = url
            }
            let responseHead = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
            return HTTPClientResponse(
                version: .http1_1, status: status, headers: headers,
                body: .stream(Parts(owner: owner, expired: expired)),
                history: [HTTPClientRequestResponse(request: final, responseHead: responseHead)])
        }
    }

    /// What a response's body holds until the last of it goes: the stub's body and the deadline's timer, both
    /// stopped then (a body dropped unread, or left after a `break`, stops its stub, as AsyncHTTPClient cancels
    /// the request).
    final class Owner: Sendable {
        let body: HTTPStubSession.Body
        let timer: Task<Void, any Error>

        init(body: HTTPStubSession.Body, timer: Task<Void, any Error>) {
            self.body = body
            self.timer = timer
        }

        deinit {
            timer.cancel()
            body.cancel()
        }
    }

    /// The body's parts as `ByteBuffer`s, its errors as AsyncHTTPClient's.
    struct Parts: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let owner: Owner
        let expired: Locked<Bool>

        func makeAsyncIterator() -> Iterator {
            Iterator(base: owner.body.makeAsyncIterator(), owner: owner, expired: expired)
        }

        struct Iterator: AsyncIteratorProtocol {
            var base: HTTPStubSession.Body.Iterator
            let owner: Owner
            let expired: Locked<Bool>

            mutating func next() async throws -> ByteBuffer? {
                do {
                    guard let part = try await base.next() else {
                        owner.timer.cancel()
                        // A stream ends without an error when the reading task is cancelled; AsyncHTTPClient's
                        // body throws then.
                        if Task.isCancelled { throw CancellationError() }
                        return nil
                    }
                    return ByteBuffer(bytes: part)
                } catch {
                    owner.timer.cancel()
                    throw HTTPStubClient.clientError(error, deadlinePassed: expired.withLock { $0 })
                }
            }
        }
    }
}
