// Input: a regular expression, a newline, then a URL.

import Foundation
import FuzzSupport

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// libFuzzer's entry point: checks one input; a violated property aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let parts = FuzzInput(data, size).parts(2)
    let (pattern, url) = (parts[0], parts[1])
    let prefix = HTTPStubRegExMatcher.literalPrefix(ofAnchored: pattern)
    let matcher: HTTPStubRegExMatcher
    do {
        matcher = try HTTPStubRegExMatcher(regex: pattern)
    } catch {
        require(error.code == .invalidRegularExpression, "unexpected error code \(error.code)")
        return 0
    }
    // Soundness of the prefix: every string the expression matches from its start begins with it.
    if let prefix, let expression = try? NSRegularExpression(pattern: pattern) {
        let range = NSRange(location: 0, length: url.utf16.count)
        if expression.firstMatch(in: url, range: range) != nil {
            // Byte-wise, as the matcher compares: "h\u{483}" does not start with the Character "h"; its bytes do.
            require(
                url.utf8.starts(with: prefix.utf8),
                "\(pattern.debugDescription) matches \(url.debugDescription) without \(prefix)")
        }
    }
    requireIndexAgreesWithMatchers(HTTPStubRequest().match(matcher), url: url)
    return 0
}
