// Input: one byte of options, a stub's URL, a newline, then a request's URL.

import Foundation
import FuzzSupport

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// libFuzzer's entry point: checks one input; a violated property aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let (bits, rest) = FuzzInput(data, size).firstByteAndRest
    let parts = rest.parts(2)
    let (stubURL, requestURL) = (parts[0], parts[1])
    let options = HTTPStubURLMatcher.Options(rawValue: Int(bits & 0b1_1111))
    let matcher = HTTPStubURLMatcher(URL: stubURL, options: options)
    _ = matcher.description
    for text in [stubURL, requestURL] {
        let once = PercentEncoding.normalize(text)
        require(PercentEncoding.normalize(once) == once, "normalizing is not idempotent for \(text.debugDescription)")
    }
    for text in [stubURL, requestURL] {
        // The one-pass route of a plain URL equals the route Foundation's accessors give.
        if let url = URL(string: text), let plain = RequestRoute(plain: url.absoluteString) {
            let parsed = RequestRoute(foundationParsing: url)
            require(
                plain == parsed,
                "\(text.debugDescription): \(plain.exactKey) but Foundation: \(parsed?.exactKey ?? "nil")")
        }
    }
    requireIndexAgreesWithMatchers(HTTPStubRequest().match(matcher), url: requestURL)
    if matcher.problem == nil, let url = URL(string: stubURL), (try? HTTPIncomingRequest(url: url)) != nil {
        // A stub's own absolute URL always matches itself.
        requireIndexAgreesWithMatchers(HTTPStubRequest().match(matcher), url: stubURL)
        let request = URLRequest(url: url)
        require(
            matcher.matches(request: request, for: HTTPStubRequest()), "\(stubURL.debugDescription) misses itself")
    }
    return 0
}
