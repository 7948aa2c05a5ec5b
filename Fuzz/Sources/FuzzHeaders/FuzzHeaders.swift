// Input: a content type, a newline, then header lines ("Name: value"), which become a request's headers and
// a stubbed response's headers.

import Foundation
import FuzzSupport

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// libFuzzer's entry point: checks one input; a violated property aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let lines = FuzzInput(data, size).parts(2)
    let contentType = HTTPContentType(rawValue: lines[0])
    var fields: [(HTTPHeaders.Name, String)] = []
    for line in lines[1].split(separator: "\n", omittingEmptySubsequences: false) {
        let pair = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        fields.append((HTTPHeaders.Name(rawValue: String(pair[0])), pair.count > 1 ? String(pair[1]) : ""))
    }
    let headers = HTTPHeaders(fields.map { HTTPHeaders.Element(name: $0.0, value: $0.1) })
    for (name, value) in fields {
        // Names compare ignoring ASCII case (only), whatever the bytes.
        let upper = HTTPHeaders.Name(rawValue: ascii(name.rawValue, upper: true))
        let lower = HTTPHeaders.Name(rawValue: ascii(name.rawValue, upper: false))
        require(headers.values(for: upper) == headers.values(for: lower), "case changes the lookup of \(name)")
        require(headers.values(for: name).contains(value), "a field's value is lost: \(name)")
    }
    _ = headers.description

    // The same fields on a request (echoed back) and on a response, played to a URLSession caller.
    let stubber = HTTPStubber(journalCapacity: 0)
    stubber.add(stub: HTTPStubRequest().match(URL: "https://fuzz.test/echo").stubEcho())
    stubber.add(
        stub: HTTPStubRequest().match(URL: "https://fuzz.test/response").stub(for: .get) {
            $0.contentType = contentType
            $0.headers = headers
            $0.body = Data("body".utf8)
        })
    guard let url = URL(string: "https://fuzz.test/echo"),
        let echo = try? HTTPIncomingRequest(method: .post, url: url, headers: headers, body: Data("x".utf8))
    else { return 0 }
    for request in [echo, try? HTTPIncomingRequest(url: URL(string: "https://fuzz.test/response")!)] {
        guard let request, let response = stubber.decision(for: request).plan?.response else {
            require(false, "no response for \(request?.url.absoluteString ?? "?")")
            return 0
        }
        _ = ResponsePlayer.urlResponse(response, url: request.url)
    }
    return 0
}

/// The text with ASCII letters in one case, other characters unchanged.
func ascii(_ text: String, upper: Bool) -> String {
    String(
        decoding: text.utf8.map { byte in
            let letter = (byte | 0x20) &- UInt8(ascii: "a") < 26
            return letter ? (upper ? byte & ~0x20 : byte | 0x20) : byte
        }, as: UTF8.self)
}
