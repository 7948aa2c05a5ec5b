import Foundation
import TestSupport
import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

/// Keys written twice, and the mappings WireMock accepts that look incomplete, read as WireMock reads them.
@Suite struct DuplicateKeyTests {
    @Test func anOperatorWrittenTwiceTakesTheLastValueWithAWarning() throws {
        let root = try StubRoot(
            mapping: #"{"request": {"url": "/x", "headers": {"A": {"equalTo": "first", "equalTo": "second"}}}}"#)
        #expect(root.problems.contains { $0.contains("request.headers.A.equalTo: written twice; the last one wins") })
        let stubber = try root.stubber()
        #expect(stubber.plan("GET", "http://h/x", headers: ["A": "second"]) != nil)
        #expect(stubber.plan("GET", "http://h/x", headers: ["A": "first"]) == nil)
    }

    @Test func aKeyWrittenTwiceKeepsTheFirstOnesPlaceWhichDecidesTheOperator() throws {
        // Jackson keeps the first place and the last value: equalTo (with "b") comes before contains.
        let root = try StubRoot(
            mapping:
                #"{"request": {"url": "/x", "headers": {"A": {"equalTo": "a", "contains": "zzz", "equalTo": "b"}}}}"#)
        let stubber = try root.stubber()
        #expect(stubber.plan("GET", "http://h/x", headers: ["A": "b"]) != nil)
        #expect(stubber.plan("GET", "http://h/x", headers: ["A": "zzz"]) == nil)
    }

    @Test func aFieldOfTheMappingWrittenTwiceTakesTheLastValue() throws {
        let root = try StubRoot(mapping: #"{"request": {"url": "/x"}, "response": {"body": "one", "body": "two"}}"#)
        #expect(root.problems.contains { $0.contains("response.body: written twice; the last one wins") })
        let plan = try #require(try root.stubber().plan("GET", "http://h/x"))
        #expect(String(decoding: plan.body, as: UTF8.self) == "two")
    }

    @Test func anEmptyIDIsNoIDAndAMappingWithoutARequestMatchesEveryRequest() throws {
        let root = try StubRoot(mapping: #"{"uuid": "", "response": {"body": "anything"}}"#)
        #expect(root.files.errors.isEmpty)
        #expect(root.problems.contains { $0.contains("no \"request\": the mapping matches every request") })
        let stubber = try root.stubber()
        #expect(stubber.bodyText("DELETE", "http://h/any/where?q=1") == "anything")
    }
}
