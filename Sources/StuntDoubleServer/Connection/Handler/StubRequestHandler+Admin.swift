import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StuntDouble

/// Requests under `/__admin/` go to the admin API (`Admin/AdminAPI.swift`, its table in `AdminRoutes.swift`),
/// in their turn among the connection's pipelined requests.
extension StubRequestHandler {
    /// Answers an admin API request: off the event loop (saving and resetting touch files), then back on it.
    func respondAdmin(
        _ admin: AdminAPI, head: HTTPRequestHead, body: ByteBuffer, id: Int, context: ChannelHandlerContext
    ) {
        var path = String(head.uri.dropFirst("/__admin".count))
        var query: [String: String] = [:]
        if let mark = path.firstIndex(of: "?") {
            for item in URLComponents(string: "http://x/" + path[mark...])?.queryItems ?? [] {
                query[item.name] = item.value ?? ""
            }
            path = String(path[..<mark])
        }
        var headers = StuntDouble.HTTPHeaders()
        for (name, value) in head.headers {
            headers.add(name: .init(rawValue: name), value: value)
        }
        let request = AdminRequest(
            method: head.method.rawValue, path: path.removingPercentEncoding ?? path, query: query, headers: headers,
            body: Data(body.readableBytesView), isSecure: isSecure)
        let answered = context.eventLoop.makePromise(of: AdminResponse.self)
        answered.completeWithTask { await admin.handle(request) }
        let received = context.eventLoop.now
        answered.futureResult.assumeIsolated().whenSuccess { [self] response in
            let now = context.eventLoop.now
            let answer = ResponseStateMachine.raw(
                status: HTTPResponseStatus(statusCode: response.status), contentType: response.contentType,
                body: ByteBuffer(bytes: response.body), headers: response.headers, id: id,
                for: HeadRequirements(head),
                record: ResponseRecord(entry: nil, request: head, received: received, outcome: .text("admin")),
                receivedAt: now)
            core.logger.info("\(head.method.rawValue) \(core.loggedTarget(head.uri)) → \(response.status) admin")
            run(machine.answer(consume answer, now: now), context: context)
        }
    }
}
