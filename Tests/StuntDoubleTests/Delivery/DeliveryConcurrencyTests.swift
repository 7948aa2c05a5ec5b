import Foundation
import StuntDouble
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct DeliveryConcurrencyTests {
    @Test func aThousandConcurrentRequestsOnOneSession() async throws {
        let stubber = HTTPStubber()
        stubber.add(
            stub: HTTPStubRequest().match(URI: "https://api.example.com/items/{id}")
                .stub(
                    for: .get,
                    responseProvider: { request, _ in
                        HTTPStubResponse(
                            statusCode: .ok, body: Data("item \(request[templateVariable: "id"] ?? "?")".utf8))
                    }))
        let session = stubber.session()
        let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for id in 0..<1_000 {
                group.addTask {
                    let (data, _) = try await session.data(from: URL(string: "https://api.example.com/items/\(id)")!)
                    return (id, String(decoding: data, as: UTF8.self))
                }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(bodies.count == 1_000)
        #expect(bodies.allSatisfy { $0.value == "item \($0.key)" })
    }

    @Test func tenStubbersWithTenSessionsEachNeverCrossTalk() async throws {
        let stubbers = (0..<10).map { index in
            let stubber = HTTPStubber()
            stubber.add(
                stub: HTTPStubRequest().match(URL: "https://api.example.com/whoami").stub(
                    for: .get, body: "stubber \(index)"))
            return stubber
        }
        let sessions = stubbers.enumerated().flatMap { index, stubber in
            (0..<10).map { _ in (index, stubber.session()) }
        }
        let results = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, session) in sessions {
                for _ in 0..<5 {
                    group.addTask {
                        let (data, _) = try await session.data(from: URL(string: "https://api.example.com/whoami")!)
                        return (index, String(decoding: data, as: UTF8.self))
                    }
                }
            }
            return try await group.reduce(into: [(Int, String)]()) { $0.append($1) }
        }
        #expect(results.count == 500)
        #expect(results.allSatisfy { $0.1 == "stubber \($0.0)" })
    }
}
