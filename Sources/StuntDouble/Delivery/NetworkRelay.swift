import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session that fetches, from the network, requests that a stubber lets through (an ignore rule, opt-in
/// mode) after its URLProtocol took them: the cases the protocol cannot know before it reads the request's
/// body, and redirects to unstubbed URLs. Cookies are the caller's session's business, so this one keeps none.
enum NetworkRelay {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()
}
