import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ResponsePlayer {
    enum Redirection {
        case follow(HTTPIncomingRequest)
        case fail(any Error)
    }

    /// Where a redirect leads: `nil` when the plan is not a redirect, or has no usable `Location` (then the
    /// 3xx is delivered as it is).
    static func redirectTarget(of plan: HTTPResponsePlan) -> URL? {
        guard let response = plan.response, response.statusCode.isRedirect,
            let location = response.headers[.location], !location.isEmpty,
            let target = URL(string: location, relativeTo: plan.request.url)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        return target
    }

    /// The request a redirect leads to, following RFC 9110 section 15.4: 301 and 302 turn a POST into a GET,
    /// 303 turns anything but HEAD into a GET (both without body), 307 and 308 keep method and body. Another
    /// origin does not receive the Authorization header; cookies are those the session has for the target.
    func redirection(after plan: HTTPResponsePlan, to target: URL, hop: Int) -> Redirection {
        let from = plan.request
        guard hop < Self.maximumRedirects else {
            return .fail(
                URLError(.httpTooManyRedirects, userInfo: Self.failingURLInfo(from.url, "too many HTTP redirects")))
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
        if let cookies = cookiesToSend(to: target) {
            headers[.cookie] = cookies
        }
        do {
            return .follow(try HTTPIncomingRequest(method: method, url: target, headers: headers, body: body))
        } catch {
            return .fail(error)
        }
    }

    /// Stores the response's `Set-Cookie` fields in the session's cookie storage, as the session would for a
    /// server's response, when its configuration accepts cookies.
    func storeCookies(of response: HTTPResponsePlan.Response?, for url: URL) {
        guard let response else { return }
        storeCookies(response.headers.values(for: .setCookie), for: url)
    }

    func storeCookies(_ values: [String], for url: URL) {
        guard !values.isEmpty, let configuration = context.session?.configuration,
            configuration.httpCookieAcceptPolicy != .never, let storage = configuration.httpCookieStorage
        else { return }
        let cookies = values.flatMap { HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": $0], for: url) }
        storage.setCookies(cookies, for: url, mainDocumentURL: nil)
    }

    /// The `Cookie` field the session would send to a URL, for requests made inside a redirect.
    func cookiesToSend(to url: URL) -> String? {
        guard let configuration = context.session?.configuration, configuration.httpShouldSetCookies,
            let cookies = configuration.httpCookieStorage?.cookies(for: url), !cookies.isEmpty
        else { return nil }
        return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
    }

    /// The response as Foundation delivers it.
    static func urlResponse(_ response: HTTPResponsePlan.Response, url: URL) -> HTTPURLResponse? {
        var fields = response.headers.dictionary
        #if canImport(FoundationNetworking)
        // FoundationNetworking turns a 401 with a Basic challenge into its own authentication, which hangs or
        // retries on the network. It only parses a challenge at the very start of the value, so a leading space
        // (optional whitespace in HTTP) lets the 401 reach the caller as it is.
        if response.statusCode == .unauthorized {
            for (name, value) in fields
            where name.lowercased() == "www-authenticate" && value.lowercased().contains("basic") {
                fields[name] = " " + value
            }
        }
        #endif
        return HTTPURLResponse(
            url: url, statusCode: response.statusCode.rawValue, httpVersion: "HTTP/1.1", headerFields: fields)
    }

    static func failingURLInfo(_ url: URL?, _ description: String) -> [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url {
            info[NSURLErrorFailingURLErrorKey] = url
        }
        return info
    }
}
