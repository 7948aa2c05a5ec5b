// Input: a JSON text, a NUL byte, then a request body.

import Foundation
import FuzzSupport

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// libFuzzer's entry point: checks one input; a violated property aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    var cut = input.bytes.firstIndex(of: 0) ?? input.bytes.endIndex
    let expected = Data(input.bytes[..<cut])
    if cut < input.bytes.endIndex { cut += 1 }
    let body = Data(input.bytes[cut...])

    let matcher = HTTPStubJSONMatcher(json: expected)
    let parsed = try? JSONValue.parse(expected)
    require((parsed == nil) == (matcher.problem != nil), "the matcher and the parser disagree on the JSON")
    if let parsed {
        // The canonical text parses back to the same value, and a body equal to the JSON matches it.
        let canonical = Data(parsed.description.utf8)
        require((try? JSONValue.parse(canonical)) == parsed, "\(parsed) does not survive its own description")
        require(matches(matcher, body: expected), "a JSON body does not match itself")
        require(matches(matcher, body: canonical), "the canonical form does not match its source")
    }
    let bodyValue = try? JSONValue.parse(body)
    let equal = parsed != nil && bodyValue != nil && parsed == bodyValue
    require(matches(matcher, body: body) == equal, "the matcher's answer differs from JSON equality")
    if let bodyValue {
        _ = matcher.description
        _ = bodyValue.description
    }
    return 0
}

func matches(_ matcher: HTTPStubJSONMatcher, body: Data) -> Bool {
    var request = URLRequest(url: URL(string: "https://fuzz.test/")!)
    request.httpMethod = "POST"
    request.httpBody = body
    return matcher.matches(request: request, for: HTTPStubRequest())
}
