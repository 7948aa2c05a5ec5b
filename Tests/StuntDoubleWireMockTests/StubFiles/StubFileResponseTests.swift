import Foundation
import TestSupport
import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

/// WireMock's response fields, as plans every delivery path plays.
@Suite struct StubFileResponseTests {
    func plan(_ response: String, method: String = "GET") throws -> HTTPResponsePlan {
        let root = try StubRoot(mapping: #"{"request": {"url": "/r"}, "response": \#(response)}"#)
        #expect(root.files.diagnostics.isEmpty, "\(root.files.diagnostics)")
        return try #require(try root.stubber().plan(method, "http://h/r"))
    }

    /// Whether deadlines are the given seconds, to a microsecond.
    func close(_ deadlines: [Duration], _ seconds: [Double]) -> Bool {
        deadlines.count == seconds.count && zip(deadlines, seconds).allSatisfy { abs($0.seconds - $1) < 1e-6 }
    }

    @Test func statusMessageAndHeadersWithSeveralValues() throws {
        let plan = try plan(
            #"{"status": 418, "statusMessage": "Short and stout", "headers": {"Set-Cookie": ["a=1", "b=2"], "X-One": "1"}}"#
        )
        let response = try #require(plan.response)
        #expect(response.statusCode.rawValue == 418)
        #expect(response.reasonPhrase == "Short and stout")
        #expect(response.headers.values(for: .setCookie) == ["a=1", "b=2"])
        #expect(response.headers["x-one"] == "1")
        #expect(response.headers[.contentLength] == "0")
    }

    @Test func aMissingResponseIsAnEmpty200() throws {
        let root = try StubRoot(mapping: #"{"request": {"url": "/r"}}"#)
        let plan = try #require(try root.stubber().plan("GET", "http://h/r"))
        #expect(plan.response?.statusCode == .ok)
        #expect(plan.body.isEmpty)
    }

    /// As WireMock 2.35.1 sends it (Scripts/compare-wiremock): keys in order, numbers as Java prints them.
    @Test func jsonBodyKeepsTheKeysInTheFilesOrderCompactly() throws {
        let plan = try plan(#"{"jsonBody": {"b": [1, 2.50, {"z": null, "a": true}], "a": "x\"y"}}"#)
        #expect(String(decoding: plan.body, as: UTF8.self) == #"{"b":[1,2.5,{"z":null,"a":true}],"a":"x\"y"}"#)
        #expect(plan.response?.headers[.contentType] == nil, "as WireMock, jsonBody adds no Content-Type")
    }

    @Test func base64Body() throws {
        #expect(try plan(#"{"base64Body": "AAEC/w=="}"#).body == Data([0, 1, 2, 255]))
    }

    @Test func fixedDelayAndRandomDelays() throws {
        #expect(try plan(#"{"fixedDelayMilliseconds": 250}"#).responseDeadline == .milliseconds(250))
        #expect(try plan(#"{"fixedDelayMilliseconds": "10"}"#).responseDeadline == .milliseconds(10))
        let root = try StubRoot(
            mapping:
                #"{"request": {"url": "/r"}, "response": {"fixedDelayMilliseconds": 100, "delayDistribution": {"type": "uniform", "lower": 20, "upper": 40}}}"#
        )
        let stubber = try root.stubber()
        let deadlines = (0..<200).compactMap { _ in stubber.plan("GET", "http://h/r")?.responseDeadline.seconds }
        #expect(deadlines.count == 200)
        #expect(
            deadlines.allSatisfy { (0.12...0.14).contains($0) },
            "fixed plus uniform: \(deadlines.min()!)...\(deadlines.max()!)")
        #expect(Set(deadlines).count > 10, "drawn for each request")

        let lognormal = try StubRoot(
            mapping:
                #"{"request": {"url": "/r"}, "response": {"delayDistribution": {"type": "lognormal", "median": 80, "sigma": 0.4}}}"#
        )
        let samples = try (0..<2000).compactMap { _ in
            try lognormal.stubber().plan("GET", "http://h/r")?.responseDeadline.seconds
        }
        let median = samples.sorted()[samples.count / 2]
        #expect((0.07...0.09).contains(median), "median \(median)")
    }

    @Test func chunkedDribbleDelaySendsEqualPartsOverTheDuration() throws {
        let plan = try plan(
            #"{"body": "0123456789", "fixedDelayMilliseconds": 100, "chunkedDribbleDelay": {"numberOfChunks": 4, "totalDuration": 1000}}"#
        )
        #expect(plan.chunks.map(\.range) == [0..<3, 3..<6, 6..<8, 8..<10])
        #expect(close(plan.chunks.map(\.deadline), [0.35, 0.6, 0.85, 1.1]))
        #expect(plan.responseDeadline == .milliseconds(100))
        let short = try self.plan(
            #"{"body": "ab", "chunkedDribbleDelay": {"numberOfChunks": 5, "totalDuration": 100}}"#)
        #expect(short.chunks.map(\.range) == [0..<1, 1..<2], "no empty chunks")
    }

    @Test func dribbledResponsesFromSwift() throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/d").stub(for: .get) {
                $0.body = Data(repeating: 65, count: 6)
                $0.responseTime = .dribbled(chunks: 3, over: 0.3)
            })
        let plan = try #require(stubber.plan("GET", "https://api.test/d"))
        #expect(close(plan.chunks.map(\.deadline), [0.1, 0.2, 0.3]))
        stubber.add(
            stub: HTTPStubRequest().match(URL: "https://api.test/bad").stub(for: .get) {
                $0.responseTime = .dribbled(chunks: 0, over: 1)
            })
        #expect(
            stubber.plan("GET", "https://api.test/bad")?.error.map { "\($0)" }?.contains("use 1 to 2000 chunks") == true
        )
    }

    @Test func aRecordedTransferEncodingIsKeptWithoutContentLength() throws {
        let root = try StubRoot(
            mapping:
                #"{"request": {"url": "/r"}, "response": {"body": "abc", "headers": {"Transfer-Encoding": "chunked", "Content-Length": "3"}}}"#
        )
        #expect(root.files.warnings.first?.message.contains("Content-Length is dropped") == true)
        let plan = try #require(try root.stubber().plan("GET", "http://h/r"))
        #expect(plan.response?.headers[.transferEncoding] == "chunked")
        #expect(plan.response?.headers[.contentLength] == nil)
    }
}
