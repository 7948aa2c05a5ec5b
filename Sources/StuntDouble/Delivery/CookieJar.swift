import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session's cookie settings: where stubbed `Set-Cookie` fields are stored, and which cookies requests made
/// inside the stubber (redirects) carry. Inactive when the configuration keeps or sends no cookies.
struct CookieJar: Sendable {
    let storage: HTTPCookieStorage?
    let accepts: Bool
    let sends: Bool

    static let none = CookieJar(storage: nil, accepts: false, sends: false)

    init(storage: HTTPCookieStorage?, accepts: Bool, sends: Bool) {
        self.storage = storage
        self.accepts = accepts
        self.sends = sends
    }

    /// The jar of a session configuration (`.none` for `nil`).
    init(_ configuration: URLSessionConfiguration?) {
        guard let configuration else {
            self = .none
            return
        }
        self.init(
            storage: configuration.httpCookieStorage, accepts: configuration.httpCookieAcceptPolicy != .never,
            sends: configuration.httpShouldSetCookies)
    }

    /// Stores a response's `Set-Cookie` fields, as a session does for a server's response.
    func store(_ response: HTTPResponsePlan.Response?, for url: URL) {
        guard let response else { return }
        store(response.headers.values(for: .setCookie), for: url)
    }

    func store(_ values: [String], for url: URL) {
        guard !values.isEmpty, accepts, let storage else { return }
        let cookies = values.flatMap { HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": $0], for: url) }
        storage.setCookies(cookies, for: url, mainDocumentURL: nil)
    }

    /// The `Cookie` field a session sends to a URL, or `nil`.
    func header(for url: URL) -> String? {
        guard sends, let cookies = storage?.cookies(for: url), !cookies.isEmpty else { return nil }
        return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
    }
}
