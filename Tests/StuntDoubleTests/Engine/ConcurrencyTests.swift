import Foundation
import StuntDouble
import TestSupport
import Testing

@Suite struct ConcurrencyTests {
    @Test func manyTasksAddRemoveAndMatchAtOnce() async throws {
        let stubber = HTTPStubber()
        let background = HTTPStubRequest().match(URI: "/shared/{id}").stub(for: .get, body: "shared")
        stubber.add(stub: background)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        let url = "https://w\(worker).test/items/\(index)"
                        let stub = HTTPStubRequest().match(URL: url).stub(for: .get, body: "\(worker)-\(index)")
                        stubber.add(stub: stub)
                        #expect(stubber.bodyText("GET", url) == "\(worker)-\(index)")
                        #expect(stubber.bodyText("GET", "https://any.test/shared/\(index)") == "shared")
                        if index.isMultiple(of: 2) {
                            stubber.remove(stub: stub)
                            #expect(stubber.plan("GET", url) == nil)
                        }
                    }
                }
            }
            group.addTask {
                // Meanwhile, a stub that every worker uses keeps changing.
                for round in 0..<200 {
                    background.priority = round % 3
                    background.stub(for: .post, body: "round \(round)")
                }
            }
            try await group.waitForAll()
        }
        #expect(stubber.stubs.count == 1 + 8 * 100)
        // The last change to the shared stub won: no update was lost or applied out of order.
        #expect(stubber.bodyText("POST", "https://any.test/shared/1") == "round 199")
        #expect(background.priority == 199 % 3)
        #expect(stubber.stubs.first === background, "priority 1 puts it ahead of the workers' stubs")
    }

    /// Most useful under ThreadSanitizer: reads and writes of a response must not race.
    @Test func aResponseCanChangeWhileRequestsReadIt() async {
        let stubber = HTTPStubber()
        let response = HTTPStubResponse(statusCode: .ok, body: Data("0".utf8))
        stubber.add(stub: HTTPStubRequest().stub(for: .get, response: response))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for value in 1...500 {
                    response.body = Data("\(value)".utf8)
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<500 {
                        let body = stubber.bodyText("GET", "https://a.test/") ?? ""
                        #expect(Int(body) != nil, "a body is always one whole value, never a torn one")
                    }
                }
            }
        }
    }
}
