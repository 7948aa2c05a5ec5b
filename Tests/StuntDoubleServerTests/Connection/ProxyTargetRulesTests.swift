import AsyncHTTPClient
import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleServer

/// WireMock 3's `--allow-proxy-targets` and `--deny-proxy-targets`: the rules alone, as WireMock's own tests
/// read them, then a proxy whose upstream they rule out.
@Suite struct ProxyTargetRulesTests {
    typealias Rules = HTTPStubServer.Configuration.ProxyTargetRules

    @Test func addressesRangesAndNamesAreReadAsWireMockReadsThem() throws {
        let rules = try Rules(
            allowing: ["10.1.2.3", "192.168.0.0-192.168.255.255", "*.example.com", "api.test"],
            denying: ["192.168.1.1", "private.example.com"])
        #expect(rules.allows("10.1.2.3"))
        #expect(!rules.allows("10.1.2.4"), "allowed addresses are the only ones")
        #expect(rules.allows("192.168.7.9"))
        #expect(!rules.allows("192.168.1.1"), "denied within an allowed range")
        #expect(rules.allows("shop.example.com"))
        #expect(rules.allows("a.b.example.com"), "* is one character or more, dots included")
        #expect(!rules.allows("example.com"), "* is at least one character")
        #expect(!rules.allows("private.example.com"))
        #expect(rules.allows("API.test"), "names compare without case")
        #expect(!rules.allows("other.test"))

        // Denials alone: everything else passes, names and addresses each by their own kind.
        let denying = try Rules(denying: ["10.0.0.0-10.255.255.255", "localhost"])
        #expect(!denying.allows("10.200.0.1"))
        #expect(denying.allows("11.0.0.1"))
        #expect(!denying.allows("localhost"))
        #expect(denying.allows("example.org"))
        #expect(try Rules().allowsAll)
    }

    @Test(arguments: ["", "10.0.0.256", "10.0.0.9-10.0.0.1", " "])
    func aRuleThatIsNotOneIsRefusedSayingWhy(rule: String) {
        #expect(throws: HTTPStubServerError.self) { try Rules(denying: [rule]) }
    }

    @Test func aNameIsCheckedByTheAddressesItResolvesTo() async throws {
        let rules = try Rules(denying: ["127.0.0.0-127.255.255.255"])
        #expect(rules.allows("localhost"), "the name itself passes")
        #expect(!(await rules.permits(host: "localhost")), "localhost resolves to 127.0.0.1")
        #expect(!(await rules.permits(host: "127.0.0.1")))
    }

    @Test func aDeniedUpstreamIsAnsweredWithoutBeingReached() async throws {
        let upstream = HTTPStubber()
        upstream.add(stub: HTTPStubRequest().match(URI: "/data").stub(for: .get, body: "upstream"))
        try await withStubServer(stubber: upstream) { upstreamURL in
            for (rules, reached) in [
                (try Rules(denying: ["127.0.0.1"]), false),
                (try Rules(allowing: ["10.0.0.0-10.255.255.255"]), false),
                (try Rules(allowing: ["127.0.0.1"], denying: ["*.example.com"]), true),
            ] {
                var configuration = HTTPStubServer.Configuration()
                configuration.upstream = upstreamURL
                configuration.proxyTargetRules = rules
                try await withStubServer(configuration: configuration) { proxy in
                    let answer = try await ProxyRecordingTests.get("\(proxy)/data")
                    let text = String(decoding: answer.body, as: UTF8.self)
                    if reached {
                        #expect(answer.status == 200 && text == "upstream", "\(rules.allowed) \(rules.denied)")
                    } else {
                        #expect(answer.status == 500, "\(rules.denied)")
                        #expect(text.hasPrefix("The target proxy address is denied"), "\(text)")
                    }
                }
            }
            #expect(upstream.journal.count == 1, "only the allowed forward reached the upstream")
        }
    }

    @Test func aDeniedWebhookIsNotSent() async throws {
        try await WebhookTests.withReceiver { receiverURL, receiver in
            let mapping = """
                {"request": {"urlPath": "/pay"}, "response": {"body": "paid"},
                 "serveEventListeners": [{"name": "webhook", "parameters": {"method": "POST",
                   "url": "\(receiverURL.absoluteString)/hooks/paid"}}]}
                """
            var configuration = HTTPStubServer.Configuration()
            configuration.proxyTargetRules = try Rules(denying: ["127.0.0.1"])
            try await AdminAPITests.withServer(files: ["mappings/pay.json": mapping], configuration: configuration) {
                url, _, _ in
                #expect(try await AdminAPITests.call(.GET, url, "/pay").text == "paid", "the answer is unchanged")
                let webhook = try #require(try await WebhookTests.settledWebhooks(url, count: 1).first)
                #expect(webhook["state"] as? String == "failed")
                #expect((webhook["error"] as? String)?.contains("is denied in the server's configuration") == true)
            }
            #expect(receiver.stubber.journal.isEmpty, "the receiver got nothing")
        }
    }
}
