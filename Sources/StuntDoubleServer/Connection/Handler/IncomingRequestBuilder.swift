import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble

/// Turns a request head and body into the request stubs see: `http://<Host><target>` (`https://` on the HTTPS
/// listener).
enum IncomingRequestBuilder {
    struct InvalidTarget: Error, CustomStringConvertible {
        let description: String
    }

    /// The request a head and body make.
    /// - Parameters:
    ///   - head: The request's head.
    ///   - body: Its body.
    ///   - declaresBody: Whether the head gave a length or a transfer coding (then an empty body is one).
    ///   - authority: The server's `host:port`, for a request that names no host.
    ///   - scheme: `http`, or `https` on the HTTPS listener.
    /// - Returns: The request.
    /// - Throws: `InvalidTarget` when the target is not a path, nor an absolute URL.
    static func make(
        _ head: HTTPRequestHead, body: ByteBuffer, declaresBody: Bool, authority: String, scheme: String = "http"
    ) throws -> HTTPIncomingRequest {
        // In one array of the right size (adding one at a time grew it twice for a usual request), the first Host
        // field noted on the way (looking it up by name after cost a second walk over the fields).
        var hostField: String?
        let headers = StuntDouble.HTTPHeaders(
            head.headers.map { name, value in
                if hostField == nil, name.utf8.count == 4, HeadFacts.name(name, is: "host") { hostField = value }
                return StuntDouble.HTTPHeaders.Element(name: .init(rawValue: name), value: value)
            })
        let bytes = body.readableBytes > 0 ? Data(body.readableBytesView) : nil
        let hasBody = bytes != nil || declaresBody
        let method = Self.method(head.method)
        let body = hasBody ? (bytes ?? Data()) : nil
        let host = hostField.flatMap { isAuthority($0) ? $0 : nil } ?? authority
        // The usual request: an origin-form target that is a URL as it is, matched by its route with no `URL` made.
        if head.uri.utf8.first == UInt8(ascii: "/"),
            let request = HTTPIncomingRequest(
                method: method, validatedURLText: urlText(scheme: scheme, host: host, target: head.uri),
                headers: headers, body: body)
        {
            return request
        }
        return try HTTPIncomingRequest(
            method: method, url: url(for: head, authority: authority, scheme: scheme), headers: headers, body: body)
    }

    /// The engine's method for SwiftNIO's: the usual ones without looking at their text.
    private static func method(_ method: NIOHTTP1.HTTPMethod) -> StuntDouble.HTTPMethod {
        switch method {
        case .GET: .get
        case .POST: .post
        case .PUT: .put
        case .DELETE: .delete
        case .PATCH: .patch
        case .HEAD: .head
        case .OPTIONS: .options
        default: StuntDouble.HTTPMethod(rawValue: method.rawValue)
        }
    }

    /// `scheme://host/target`, written once into a string of its length (interpolating it grew the string twice).
    static func urlText(scheme: String, host: String, target: String) -> String {
        var scheme = scheme
        var host = host
        var target = target
        return scheme.withUTF8 { scheme in
            host.withUTF8 { host in
                target.withUTF8 { target in
                    String(unsafeUninitializedCapacity: scheme.count + 3 + host.count + target.count) { output in
                        var index = output.initialize(fromContentsOf: scheme)
                        for byte in "://".utf8 {
                            output[index] = byte
                            index += 1
                        }
                        index = output[index...].initialize(fromContentsOf: host)
                        return output[index...].initialize(fromContentsOf: target)
                    }
                }
            }
        }
    }

    /// The request's host: its Host header when that can be a URL's authority, else the server's.
    private static func host(of head: HTTPRequestHead, authority: String) -> String {
        head.headers.first(name: "host").flatMap { isAuthority($0) ? $0 : nil } ?? authority
    }

    static func url(for head: HTTPRequestHead, authority: String, scheme: String = "http") throws -> URL {
        let target = head.uri
        // The path and query with what may not stand in them encoded (a `|` or `"` that a lenient client sent), and
        // nothing else: Foundation, given a byte to encode, encodes every `%` too.
        if target.hasPrefix("/") {
            let host = host(of: head, authority: authority)
            if let url = URL(string: "\(scheme)://\(host)\(PercentEncoding.encodingTarget(target))") { return url }
            throw InvalidTarget(description: "it is not a valid path and query")
        }
        let lowered = target.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"),
            let schemeEnd = target.range(of: "://")
        {
            let rest = target[schemeEnd.upperBound...]
            let pathStart = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let text = String(target[..<pathStart]) + PercentEncoding.encodingTarget(rest[pathStart...])
            if let url = URL(string: text), url.host != nil { return url }
        }
        throw InvalidTarget(
            description: "only origin-form (/path) and absolute-form (http://host/path) targets are served")
    }

    /// Whether a Host header value can be a URL's authority.
    private static func isAuthority(_ value: String) -> Bool {
        func allowed(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"),
                UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "_"):
                return true
            default:
                return false
            }
        }
        guard !value.isEmpty else { return false }
        // The bytes in place (a received header's are in one piece): the view's iterator cost 400 instructions.
        return value.utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy(allowed) }
            ?? value.utf8.allSatisfy(allowed)
    }
}
