import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StuntDouble

/// Requests under `/__admin/` go to the admin API (`Admin/AdminAPI.swift`, its table in `AdminRoutes.swift`),
/// in their turn among the connection's pipelined requests.
extension StubRequestHandler {
    /// Whether a request target is the admin API's: `/__admin` or under it.
    static func isAdminTarget(_ target: String) -> Bool {
        // Over the bytes in place, once (three `hasPrefix` calls cost 150 instructions on every request).
        let prefix: StaticString = "/__admin"
        return target.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.count >= prefix.utf8CodeUnitCount,
                UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount).elementsEqual(
                    bytes.prefix(prefix.utf8CodeUnitCount))
            else { return false }
            return bytes.count == prefix.utf8CodeUnitCount || bytes[prefix.utf8CodeUnitCount] == UInt8(ascii: "/")
                || bytes[prefix.utf8CodeUnitCount] == UInt8(ascii: "?")
        } ?? (target == "/__admin" || target.hasPrefix("/__admin/") || target.hasPrefix("/__admin?"))
    }

    /// Answers an admin API request: off the event loop (saving and resetting touch files), then back on it.
    func respondAdmin(
        _ admin: AdminAPI, head: HTTPRequestHead, body: ByteBuffer, context: ChannelHandlerContext
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
            body: Data(body.readableBytesView))
        let answered = context.eventLoop.makePromise(of: AdminResponse.self)
        answered.completeWithTask { await admin.handle(request) }
        answered.futureResult.assumeIsolated().whenSuccess { [self] response in
            let playback = Playback(adminRequestHead: head, receivedAt: context.eventLoop.now)
            playback.prepareRaw(
                status: HTTPResponseStatus(statusCode: response.status), contentType: response.contentType,
                body: response.body, headers: response.headers, outcome: "admin")
            core.logger.info("\(head.method.rawValue) \(core.loggedTarget(head.uri)) → \(response.status) admin")
            run(machine.answer(playback, now: context.eventLoop.now), context: context)
        }
    }
}
