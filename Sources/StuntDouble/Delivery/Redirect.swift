import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Following a stubbed redirect, as every delivery path does it: URLSession's own HTTP protocol does not
/// follow a 3xx that a URLProtocol delivers (see the Linux notes), and an ``HTTPStubSession`` has no HTTP
/// stack at all.
enum Redirect {
    /// How many redirects a request follows before it fails with `URLError(.httpTooManyRedirects)`.
    static let maximumHops = 20

    enum Next {
        case follow(HTTPIncomingRequest)
        case fail(any Error)
    }

    /// Where a redirect leads: `nil` when the plan is not a redirect, or has no usable `Location` (then the
    /// 3xx is delivered as it is).
    static func target(of plan: HTTPResponsePlan) -> URL? {
        guard let response = plan.response, response.statusCode.isRedirect,
            let location = response.headers[.location], !location.isEmpty,
            let target = URL(string: location, relativeTo: plan.request.url)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        return target
    }

    /// The request a redirect leads to, following RFC 9110 section 15.4: 301 and 302 turn a POST into a GET,
    /// 303 turns anything but HEAD into a GET (both without body), 307 and 308 keep method and body. Another
    /// origin does not receive the Authorization header; cookies are those the jar has for the target.
    /// - Parameters:
    ///   - plan: The redirect's plan.
    ///   - target: Where its `Location` leads.
    ///   - hop: How many redirects the request followed before this one.
    ///   - cookies: The session's cookie settings.
    /// - Returns: The next request, or the error that ends the chain.
    static func next(after plan: HTTPResponsePlan, to target: URL, hop: Int, cookies: CookieJar) -> Next {
        let from = plan.request
        guard hop < maximumHops else {
            return .fail(URLError(.httpTooManyRedirects, userInfo: failingURLInfo(from.url, "too many HTTP redirects")))
        }
        let code = plan.response?.statusCode.rawValue ?? 0
        var method = from.method
        var body = from.body
        switch code {
        case 301 where method == .post, 302 where method == .post:
            method = .get
            body = nil
        case 303 where method != .head:
            method = .get
            body = nil
        default:
            break
        }
        var headers = from.headers
        if body == nil {
            for name: HTTPHeaders.Name in [.contentType, .contentLength, .transferEncoding] {
                headers.remove(name)
            }
        }
        if target.host?.lowercased() != from.url.host?.lowercased() || target.scheme != from.url.scheme
            || target.port != from.url.port
        {
            headers.remove(.authorization)
        }
        headers.remove(.cookie)
        if let cookie = cookies.header(for: target) {
            headers[.cookie] = cookie
        }
        do {
            return .follow(try HTTPIncomingRequest(method: method, url: target, headers: headers, body: body))
        } catch {
            return .fail(error)
        }
    }

    /// The `userInfo` of a `URLError` about a URL.
    static func failingURLInfo(_ url: URL?, _ description: String) -> [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url {
            info[NSURLErrorFailingURLErrorKey] = url
        }
        return info
    }
}
