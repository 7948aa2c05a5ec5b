import Foundation
import Testing

/// Admin routes WireMock's clients call beside 2.35.1's core: the other ways to remove and edit one mapping,
/// `POST /__admin/mappings/remove` (WireMock's `removeStub`) and `POST /__admin/mappings/edit` (WireMock 2's
/// `editStub`), and WireMock 3's extended settings.
@Suite struct AdminWireMock3Tests {
    typealias Call = AdminAPITests

    static func add(_ url: URL, _ path: String, body: String, id: String? = nil) async throws {
        let idMember = id.map { #""id": "\#($0)", "# } ?? ""
        let mapping =
            #"{\#(idMember)"request": {"method": "GET", "url": "\#(path)"}, "response": {"body": "\#(body)"}}"#
        #expect(try await Call.call(.POST, url, "/__admin/mappings", body: mapping).status == 201)
    }

    @Test func removeTakesTheIdElseTheRequest() async throws {
        try await Call.withServer { url, _, _ in
            let id = UUID().uuidString.lowercased()
            try await Self.add(url, "/a", body: "a", id: id)
            try await Self.add(url, "/b", body: "b1")
            try await Self.add(url, "/b", body: "b2")
            try await Self.add(url, "/c", body: "c")

            // By id: the request in the body does not matter.
            let byID = #"{"id": "\#(id)", "request": {"url": "/c"}}"#
            let removed = try await Call.call(.POST, url, "/__admin/mappings/remove", body: byID)
            #expect(removed.status == 200)
            #expect(removed.text.isEmpty)
            #expect(try await Call.call(.GET, url, "/a").status == 404)
            #expect(try await Call.call(.GET, url, "/c").text == "c")

            // By request: every mapping with that request (the keys in any order), and no other.
            let byRequest = #"{"request": {"url": "/b", "method": "GET"}, "response": {"status": 500}}"#
            #expect(try await Call.call(.POST, url, "/__admin/mappings/remove", body: byRequest).status == 200)
            #expect(try await Call.call(.GET, url, "/b").status == 404)
            #expect(try await Call.call(.GET, url, "/c").text == "c")

            // Nothing matches: WireMock answers 200 all the same.
            let nothing = #"{"request": {"url": "/none"}}"#
            #expect(try await Call.call(.POST, url, "/__admin/mappings/remove", body: nothing).status == 200)
            let broken = try await Call.call(.POST, url, "/__admin/mappings/remove", body: "[1]")
            #expect(broken.status == 422)
            #expect(broken.text.contains("not a mapping"), "\(broken.text)")
        }
    }

    @Test func editReplacesTheMappingWithTheBodysID() async throws {
        try await Call.withServer { url, _, _ in
            let id = UUID().uuidString.lowercased()
            try await Self.add(url, "/a", body: "before", id: id)
            let edited = #"{"id": "\#(id)", "request": {"url": "/a"}, "response": {"body": "after"}}"#
            let answer = try await Call.call(.POST, url, "/__admin/mappings/edit", body: edited)
            #expect(answer.status == 204)
            #expect(try await Call.call(.GET, url, "/a").text == "after")
            #expect(try await Call.call(.GET, url, "/__admin/mappings/\(id)").text.contains("after"))

            let unknown = #"{"id": "\#(UUID().uuidString)", "request": {"url": "/a"}, "response": {}}"#
            #expect(try await Call.call(.POST, url, "/__admin/mappings/edit", body: unknown).status == 404)
            let anonymous = #"{"request": {"url": "/a"}, "response": {}}"#
            let refused = try await Call.call(.POST, url, "/__admin/mappings/edit", body: anonymous)
            #expect(refused.status == 422)
            #expect(refused.text.contains("has no id"), "\(refused.text)")
            #expect(try await Call.call(.GET, url, "/a").text == "after", "a refused edit changes nothing")
        }
    }

    @Test func extendedSettingsAreKeptPatchedAndReset() async throws {
        try await Call.withServer { url, _, _ in
            let set = #"{"fixedDelay": 0, "extended": {"tenant": "a", "limits": {"max": 3}}}"#
            #expect(try await Call.call(.POST, url, "/__admin/settings", body: set).status == 200)
            let patch = #"{"extended": {"tenant": "b", "region": "eu"}}"#
            let patched = try await Call.call(.PATCH, url, "/__admin/settings/extended", body: patch)
            #expect(patched.status == 200 && patched.object.isEmpty)
            let settings = try await Call.call(.GET, url, "/__admin/settings").object["settings"] as? [String: Any]
            let extended = try #require(settings?["extended"] as? [String: Any])
            #expect(extended["tenant"] as? String == "b", "a member the patch names is replaced")
            #expect(extended["region"] as? String == "eu", "and a new one joins")
            #expect((extended["limits"] as? [String: Any])?["max"] as? Int == 3, "the others stay")
            #expect(settings?["fixedDelay"] as? Int == 0)

            let refused = try await Call.call(.PATCH, url, "/__admin/settings/extended", body: #"{"tenant": "c"}"#)
            #expect(refused.status == 422)
            #expect(try await Call.call(.POST, url, "/__admin/settings", body: #"{"extended": 5}"#).status == 422)
            #expect(try await Call.call(.POST, url, "/__admin/reset").status == 200)
            let reset = try await Call.call(.GET, url, "/__admin/settings").object["settings"] as? [String: Any]
            #expect(reset?["extended"] == nil, "a reset clears them, as it clears the delay")
        }
    }

    /// WireMock's global random delay (its Java client's `setGlobalRandomDelay`).
    @Test func aGlobalDelayDistributionDelaysEveryStub() async throws {
        let files = ["mappings/d.json": #"{"request": {"url": "/d"}, "response": {"body": "d"}}"#]
        try await Call.withServer(files: files) { url, _, _ in
            let uniform = #"{"delayDistribution": {"type": "uniform", "lower": 300, "upper": 400}}"#
            #expect(try await Call.call(.POST, url, "/__admin/settings", body: uniform).status == 200)
            let start = ContinuousClock.now
            #expect(try await Call.call(.GET, url, "/d").text == "d")
            #expect(ContinuousClock.now - start >= .milliseconds(300), "at least the distribution's lower bound")
            let settings = try await Call.call(.GET, url, "/__admin/settings").object["settings"] as? [String: Any]
            #expect((settings?["delayDistribution"] as? [String: Any])?["type"] as? String == "uniform")

            let broken = #"{"fixedDelay": 5, "delayDistribution": {"type": "lognormal"}}"#
            let refused = try await Call.call(.POST, url, "/__admin/settings", body: broken)
            #expect(refused.status == 422)
            #expect(refused.text.contains("median"), "\(refused.text)")
            let kept = try await Call.call(.GET, url, "/__admin/settings").object["settings"] as? [String: Any]
            #expect(kept?["fixedDelay"] as? Int == 0, "a refused update changes nothing")
            #expect(kept?["delayDistribution"] != nil)

            let cleared = #"{"delayDistribution": null}"#
            #expect(try await Call.call(.POST, url, "/__admin/settings", body: cleared).status == 200)
            let none = try await Call.call(.GET, url, "/__admin/settings").object["settings"] as? [String: Any]
            #expect(none?["delayDistribution"] == nil)
        }
    }
}
