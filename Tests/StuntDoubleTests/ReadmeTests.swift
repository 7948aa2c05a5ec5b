import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The README's quick start, as written, and the report it shows.
@Suite struct ReadmeTests {
    @Test func loadsTheUser() async throws {
        let stubber = HTTPStubber()  // one per test: tests never see each other's stubs
        stubber.add(
            stub: HTTPStubRequest()
                .match(URI: "https://api.example.com/users/{id}")
                .stub(
                    for: .get,
                    responseProvider: { request, _ in
                        HTTPStubResponse(
                            statusCode: .ok, contentType: .json,
                            body: Data(#"{"id": "\#(request[templateVariable: "id"]!)"}"#.utf8))
                    }))

        let session = stubber.session()  // give this session to the code under test
        let (data, response) = try await session.data(from: URL(string: "https://api.example.com/users/42")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data == Data(#"{"id": "42"}"#.utf8))

        let report = try #require(
            try stubber.decision(for: URLRequest(url: URL(string: "https://api.example.com/user/42")!)).report)
        let expected = """
            No stub matched GET https://api.example.com/user/42
              body: (empty)

            Closest stubs (1 of 1):
              1. stub at StuntDoubleTests/ReadmeTests.swift:14: 1 of 2 checks failed
                 ✓ method GET has a response
                 ✗ URL matches template https://api.example.com/users/{id}
                    expected: https://api.example.com/users/{id}
                    actual:   https://api.example.com/user/42
            """
        #expect(report.description.hasPrefix(expected), "\(report.description)")
    }
}
