import Foundation
import NIOCore
import NIOHTTP1
import StuntDouble
import Testing

@testable import StuntDoubleServer

/// The request stubs see, made from a head: its URL text written in one pass, its method and host.
@Suite struct IncomingRequestBuilderTests {
    @Test(arguments: [
        ("http", "127.0.0.1:8080", "/items/0"), ("https", "a.test", "/"), ("http", "", ""),
        ("http", "h", "/caf\u{E9}?q=\u{1F600}"),
        ("http", String(repeating: "h", count: 300), "/" + String(repeating: "p", count: 5000)),
    ])
    func theURLTextIsTheSchemeHostAndTarget(scheme: String, host: String, target: String) {
        #expect(
            IncomingRequestBuilder.urlText(scheme: scheme, host: host, target: target) == "\(scheme)://\(host)\(target)"
        )
    }

    /// SwiftNIO's methods become the engine's as their text would.
    @Test func methodsAreTheirText() throws {
        let methods: [NIOHTTP1.HTTPMethod] = [
            .GET, .HEAD, .POST, .PUT, .DELETE, .PATCH, .OPTIONS, .TRACE, .PROPFIND, .RAW(value: "get"),
            .RAW(value: "BREW"),
        ]
        for method in methods {
            let head = HTTPRequestHead(version: .http1_1, method: method, uri: "/x", headers: ["Host": "h"])
            let request = try IncomingRequestBuilder.make(head, body: ByteBuffer(), declaresBody: false, authority: "s")
            #expect(request.method == StuntDouble.HTTPMethod(rawValue: method.rawValue), "\(method)")
        }
    }

    /// The first Host field names the host when it can be a URL's authority; else the server's own does.
    @Test(arguments: [
        (["Host": "a.test:81"], "http://a.test:81/x"), (["host": "b.test"], "http://b.test/x"),
        (["Host": "not a host"], "http://s:1/x"), ([:], "http://s:1/x"),
        (["X": "y", "HOST": "c.test"], "http://c.test/x"),
    ])
    func theHostIsTheFirstHostFieldThatCanBeOne(fields: [String: String], url: String) throws {
        let head = HTTPRequestHead(
            version: .http1_1, method: .GET, uri: "/x",
            headers: NIOHTTP1.HTTPHeaders(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        let request = try IncomingRequestBuilder.make(head, body: ByteBuffer(), declaresBody: false, authority: "s:1")
        #expect(request.url.absoluteString == url)
    }

    /// A target's `%` escapes stay as sent whatever else in it must be encoded: Foundation, given a `[` to encode,
    /// encoded every `%` too (`a%20b` became `a%2520b`, and the query's value `a%20b`). FuzzRequestHead found it.
    @Test(arguments: [
        ("/items?filter[name]=a%20b", "http://s:1/items?filter%5Bname%5D=a%20b", "/items?filter[name]=a%20b"),
        ("/a[1]/%41", "http://s:1/a%5B1%5D/%41", "/a[1]/%41"),
        ("/a|b?x=[%20]", "http://s:1/a%7Cb?x=%5B%20%5D", "/a%7Cb?x=%5B%20%5D"),
        ("/p%zz?q=\"v\"", "http://s:1/p%25zz?q=%22v%22", "/p%25zz?q=%22v%22"),
        ("http://a.test/x[1]?y=%20#f#g", "http://a.test/x%5B1%5D?y=%20#f%23g", "/x%5B1%5D?y=%20"),
    ])
    func escapesStayAsSent(target: String, url: String, key: String) throws {
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: [:])
        let request = try IncomingRequestBuilder.make(head, body: ByteBuffer(), declaresBody: false, authority: "s:1")
        #expect(request.url.absoluteString == url)
        #expect(request.route.path + (request.route.query.map { "?" + $0 } ?? "") == key)
        if target.contains("filter") {
            let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems
            #expect(items?.first?.value == "a b")
        }
    }
}
