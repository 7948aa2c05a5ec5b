import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ResponsePlayer {
    /// The response as Foundation delivers it.
    static func urlResponse(_ response: HTTPResponsePlan.Response, url: URL) -> HTTPURLResponse? {
        var fields = response.headerFields
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
}
