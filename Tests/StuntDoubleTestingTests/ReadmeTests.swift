import Foundation
import StuntDouble
import StuntDoubleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The README's quick start, as written.
@Suite(.stubbed) struct UserTests {  // each test gets its own stubber: safe in parallel
    @Test func loadsTheUser() async throws {
        let user = HTTPStubRequest()
            .match(URI: "https://api.example.com/users/{id}")
            .stub(
                for: .get,
                responseProvider: { request, _ in
                    .json(#"{"id": "\#(request[templateVariable: "id"]!)"}"#)
                })
        HTTPStubber.current.add(stub: user)

        let session = HTTPStubSession()  // give it to the code under test (no URLSession involved)
        let (data, response) = try await session.data(from: URL(string: "https://api.example.com/users/42")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data == Data(#"{"id": "42"}"#.utf8))
        HTTPStubber.current.expect(user, called: .once)
    }
}
