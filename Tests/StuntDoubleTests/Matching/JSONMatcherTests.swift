import Foundation
import StuntDouble
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct JSONMatcherTests {
    @Test func comparesSemantically() {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(json: #"{"a": [1, 2.5, {"b": null}], "c": "é", "d": true}"#).stub(
                for: .post, code: .ok))
        func matches(_ json: String) -> Bool {
            stubber.plan("POST", "https://a.test/", body: Data(json.utf8)) != nil
        }
        #expect(matches(#"{"d":true,"c":"\u00e9","a":[1.0,25e-1,{"b":null}]}"#))
        #expect(!matches(#"{"d":true,"c":"é","a":[2.5,1,{"b":null}]}"#), "array order matters")
        #expect(!matches(#"{"d":"true","c":"é","a":[1,2.5,{"b":null}]}"#), "types matter")
        #expect(!matches(#"{"d":true,"c":"é","a":[1,2.5,{}]}"#))
        #expect(!matches(#"{"d":true,"c":"é","a":[1,2.5,{"b":null}]"#), "invalid JSON never matches")
        #expect(!matches(""))
    }

    @Test func encodesObjectsWithTheGivenEncoder() {
        struct Event: Encodable {
            let startsAt: Date
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(object: Event(startsAt: Date(timeIntervalSince1970: 60)), encoder: encoder)
                .stub(for: .post, code: .accepted))
        #expect(stubber.plan("POST", "https://a.test/", body: Data(#"{"startsAt": 60}"#.utf8)) != nil)
    }

    @Test func reportsUnusableExpectations() {
        let invalid = HTTPStubRequest().match(json: "{not json}")
        #expect(invalid.problems.map(\.code) == [.invalidJSON])
        #expect(invalid.problems.first?.message.contains("byte 1") == true)

        struct NotANumber: Encodable {
            let value = Double.nan
        }
        let unencodable = HTTPStubRequest().match(object: NotANumber())
        #expect(unencodable.problems.map(\.code) == [.encodingFailed])
    }
}
