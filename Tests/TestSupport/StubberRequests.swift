import Foundation
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds a request the way client code does.
public func makeRequest(
    _ method: String = "GET", _ url: String, headers: [String: String] = [:], body: Data? = nil
) -> URLRequest {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method
    for (name, value) in headers {
        request.setValue(value, forHTTPHeaderField: name)
    }
    request.httpBody = body
    return request
}

extension HTTPStubber {
    /// The plan for a request, or `nil` when it is not stubbed.
    public func plan(_ method: String = "GET", _ url: String, headers: [String: String] = [:], body: Data? = nil)
        -> HTTPResponsePlan?
    {
        try? decision(for: makeRequest(method, url, headers: headers, body: body)).plan
    }

    /// The body a request receives, as text, or `nil` when it is not stubbed or fails.
    public func bodyText(_ method: String = "GET", _ url: String, headers: [String: String] = [:], body: Data? = nil)
        -> String?
    {
        plan(method, url, headers: headers, body: body)?.response.map { String(decoding: $0.body, as: UTF8.self) }
    }
}

/// Whether URLSession here is swift-corelibs-foundation's (FoundationNetworking: Linux, Windows). Tests that pin
/// down how the stubber meets its limits are enabled only there, with the reason shown on Apple platforms.
public let isFoundationNetworking: Bool = {
    #if canImport(FoundationNetworking)
    true
    #else
    false
    #endif
}()
