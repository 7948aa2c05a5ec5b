import Foundation
import Testing

@testable import StuntDouble

/// A small deterministic random generator (the templates' own), so that a failure can be replayed from its seed.
typealias SplitMix64 = SeededGenerator

@Suite struct IndexTests {
    static let hosts = ["api.example.com", "cdn.example.com", "example.org", "API.Example.com", "example.org:8443"]
    static let segments = ["users", "items", "v1", "42", "a", "", "caf%c3%a9", "CAF%C3%A9"]

    static func randomPath(_ random: inout SplitMix64) -> String {
        "/"
            + (0..<Int.random(in: 0...3, using: &random)).map { _ in segments.randomElement(using: &random)! }
            .joined(separator: "/")
    }

    static func randomURL(_ random: inout SplitMix64) -> String {
        let scheme = Bool.random(using: &random) ? "https" : "http"
        let query = Int.random(in: 0...3, using: &random) == 0 ? "?q=\(Int.random(in: 0...2, using: &random))" : ""
        return "\(scheme)://\(hosts.randomElement(using: &random)!)\(randomPath(&random))\(query)"
    }

    static func randomStub(_ random: inout SplitMix64) throws -> HTTPStubRequest {
        let stub = HTTPStubRequest(priority: Int.random(in: 0...2, using: &random))
        let options: [HTTPStubURLMatcher.Options] = [
            [], .ignoreQueryParameters, .ignorePath, .ignoreScheme, .ignoreTrailingSlash, .ignoreQueryParameterOrder,
        ]
        switch Int.random(in: 0..<9, using: &random) {
        case 0, 1: stub.match(URL: randomURL(&random), options: options.randomElement(using: &random)!)
        case 2: stub.match(URL: randomPath(&random), options: options.randomElement(using: &random)!)
        case 3:
            let host = hosts.randomElement(using: &random)!
            let literal = randomPath(&random)
            stub.match(URI: "https://\(host)\(literal == "/" ? "" : literal)/{x}")
        case 4:
            let templates = [
                randomPath(&random) + "{/rest*}", "https://\(hosts.randomElement(using: &random)!){?q}",
                randomPath(&random) + "/{id}/{id}", "{?q}", "/{a}" + randomPath(&random),
            ]
            stub.match(URI: templates.randomElement(using: &random)!)
        case 5: try stub.match(urlRegex: segments.randomElement(using: &random)! + "$")
        case 6: stub.match(queryItem: "q", value: String(Int.random(in: 0...2, using: &random)))
        case 7:
            // Anchored expressions, indexed by their literal prefix, cut anywhere: in the scheme, the host, a
            // segment, right after a slash.
            let url = randomURL(&random)
            let cut = url.index(url.startIndex, offsetBy: Int.random(in: 1...url.count, using: &random))
            let literal = NSRegularExpression.escapedPattern(for: String(url[..<cut]))
            let tails = ["", "$", "[0-9]*", "/?$", ".*"]
            try stub.match(urlRegex: "^" + literal + tails.randomElement(using: &random)!)
        default: break
        }
        if Int.random(in: 0..<4, using: &random) == 0 {
            stub.match(URI: "/{a}/{b}")
        }
        return stub.stub(for: Bool.random(using: &random) ? .get : .post, code: .ok)
    }

    /// The index finds the same winning stub as trying every stub in precedence order.
    @Test(arguments: 1...20)
    func theIndexAgreesWithAFullScan(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var registry = StubRegistry()
        var stubs: [HTTPStubRequest] = []
        for _ in 0..<200 {
            let stub = try Self.randomStub(&random)
            stubs.append(stub)
            let (definition, version) = stub.snapshot()
            registry.register(stub, definition: definition, version: version)
        }
        for stub in stubs.shuffled(using: &random).prefix(40) {
            registry.remove(stub.id)
        }
        for _ in 0..<500 {
            let method: HTTPMethod = Bool.random(using: &random) ? .get : .post
            let request = try HTTPIncomingRequest(method: method, url: URL(string: Self.randomURL(&random))!)
            let indexed = registry.firstMatch(request)
            let scanned = registry.firstMatchByScanning(request)
            #expect(indexed?.entry?.stub === scanned?.entry?.stub, "seed \(seed): \(request)")
        }
    }

    @Test func exactURLStubsAreLookedUpNotScanned() throws {
        var registry = StubRegistry()
        final class Counter: @unchecked Sendable {
            let lock = NSLock()
            var calls = 0
        }
        let counter = Counter()
        for index in 0..<1_000 {
            let stub = HTTPStubRequest().match(URL: "https://a.test/items/\(index)")
                .match({ _, _ in
                    counter.lock.withLock { counter.calls += 1 }; return true
                })
                .stub(for: .get, code: .ok)
            let (definition, version) = stub.snapshot()
            registry.register(stub, definition: definition, version: version)
        }
        let request = try HTTPIncomingRequest(url: URL(string: "https://a.test/items/500")!)
        #expect(registry.firstMatch(request) != nil)
        #expect(counter.calls == 1, "only the stub of that URL is evaluated")
    }
}
