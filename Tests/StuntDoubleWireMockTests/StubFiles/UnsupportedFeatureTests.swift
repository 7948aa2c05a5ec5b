import Foundation
import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A mapping that uses a WireMock feature StuntDouble lacks: refused by default, or, when asked, loaded with a
/// stub that answers 500 naming the feature, while the rest of the root serves as written.
@Suite struct UnsupportedFeatureTests {
    /// Two mappings that serve, and one between them that uses a WireMock extension (line 1, column 58 is its
    /// name).
    let files = [
        "mappings/a.json": #"{"request": {"url": "/a"}, "response": {"body": "A"}}"#,
        "mappings/b.json":
            #"{"request": {"url": "/b"}, "response": {"transformers": ["some-extension"], "body": "{{request.path}}"}}"#,
        "mappings/c.json": #"{"request": {"url": "/c"}, "response": {"body": "C"}}"#,
    ]

    /// What a stubber answers a GET of `path`: its status and body.
    private func answer(_ stubber: HTTPStubber, _ path: String) throws -> (status: Int, body: String) {
        let request = try HTTPIncomingRequest(URLRequest(url: URL(string: "http://localhost\(path)")!))
        let plan = try #require(stubber.decision(for: request).plan)
        let response = try #require(plan.response)
        return (response.statusCode.rawValue, String(decoding: response.body, as: UTF8.self))
    }

    @Test func byDefaultTheRootIsRefusedWithTheFeatureNamed() throws {
        let root = try StubRoot(files)
        #expect(root.files.errors.map(\.field) == ["response.transformers[0]"])
        #expect(throws: HTTPStubberError.self) { try HTTPStubber().load(stubFilesAt: root.url) }
    }

    @Test func answeringWithAnErrorLoadsEveryMappingAndWarnsWhere() throws {
        let root = try StubRoot(files)
        let files = StubFiles(root: root.url, unsupportedFeatures: .answerWithError)
        #expect(files.errors.isEmpty)
        #expect(files.mappingCount == 3)
        let warning = try #require(files.warnings.first)
        #expect(files.warnings.count == 1)
        #expect(warning.file.hasSuffix("mappings/b.json") && warning.line == 1 && warning.column == 58)
        #expect(warning.message.contains(#"the transformer "some-extension" is not supported"#))
        #expect(warning.message.contains("the stub answers 500 saying so"))
    }

    @Test func theUnsupportedStubAnswers500NamingTheFeatureAndTheOthersServe() throws {
        let root = try StubRoot(files)
        let stubber = HTTPStubber()
        try stubber.load(stubFilesAt: root.url, unsupportedFeatures: .answerWithError)
        for (path, text) in [("/a", "A"), ("/c", "C")] {
            let (status, body) = try answer(stubber, path)
            #expect(status == 200 && body == text)
        }
        let (status, body) = try answer(stubber, "/b")
        #expect(status == 500)
        #expect(
            body.contains(#"mappings/b.json:1:58: response.transformers[0]: the transformer "some-extension" is not"#))
        #expect(!body.contains("{{request.path}}"), "never the body served without the extension's work")
    }

    @Test func anUnsupportedMatcherStillMatchesOnTheRestAndAnswers500() throws {
        let root = try StubRoot([
            "mappings/xml.json": #"""
            {"request": {"method": "POST", "url": "/orders", "bodyPatterns": [{"matchesXPath": "/order[@id]"}]},
             "response": {"status": 201}}
            """#
        ])
        let files = StubFiles(root: root.url, unsupportedFeatures: .answerWithError)
        #expect(files.errors.isEmpty)
        #expect(files.warnings.map(\.field) == ["request.bodyPatterns[0].matchesXPath"])
        let stubber = HTTPStubber()
        try stubber.load(files)
        var request = URLRequest(url: URL(string: "http://localhost/orders")!)
        request.httpMethod = "POST"
        request.httpBody = Data("<order id='1'/>".utf8)
        let plan = try #require(stubber.decision(for: try HTTPIncomingRequest(request)).plan)
        #expect(plan.response?.statusCode == .internalServerError)
        #expect(String(decoding: plan.body, as: UTF8.self).contains("matchesXPath operator is not supported yet"))
    }
}
