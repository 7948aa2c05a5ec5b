// Input: a URI template, a newline, then a URL or string to match it against.

import Foundation
import FuzzSupport

@testable import StuntDouble

/// libFuzzer's entry point: checks one input; a violated property aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let parts = FuzzInput(data, size).parts(2)
    let (text, target) = (parts[0], parts[1])
    let stub = HTTPStubRequest().match(URI: text)
    do {
        // A template that parses may still make no URL matcher (one that starts with literal text other than
        // a scheme or '/'): the stub then names that problem, which reports show.
        let template = try URITemplate(text)
        if let variables = template.match(target) {
            // What a match extracts expands again without trouble.
            _ = template.expand(variables)
        }
        _ = template.expand(["var": "a b/c", "list": ["x", "y"], "keys": .associative([.init(key: "k", value: "v")])])
    } catch {
        require(error.code == .invalidURITemplate, "unexpected error code \(error.code) for \(text)")
        require(!stub.problems.isEmpty, "an invalid template made a stub without problems: \(text)")
    }
    requireIndexAgreesWithMatchers(stub, url: target)
    // The shortcut for `literal{name}` templates answers as the general matcher does.
    if let url = URL(string: target), let route = RequestRoute(url) {
        let matcher = HTTPStubURITemplateMatcher(URI: text)
        require(
            matcher.extract(route) == matcher.extract(route, general: true),
            "the shortcut and the general matcher disagree on \(text.debugDescription) for \(target.debugDescription)")
    }
    return 0
}
