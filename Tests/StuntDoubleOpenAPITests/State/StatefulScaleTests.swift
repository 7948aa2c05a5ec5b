import Foundation
import StuntDouble
import Testing

@testable import StuntDoubleOpenAPI

/// A collection a hundred times the size of the other tests' (10,000 dogs): made, read and listed whole.
@Suite struct StatefulScaleTests {
    @Test func tenThousandResourcesAreKeptAndListed() throws {
        let kennel = StatefulMockTests.Kennel()
        let start = ContinuousClock.now
        for index in 1...10_000 {
            try kennel.send(.post, "/dogs", json: #"{"name": "Dog \#(index)"}"#)
        }
        print("10,000 POSTs to a stateful collection: \(ContinuousClock.now - start)")
        #expect(kennel.document.resources(at: "/dogs").count == 10_000)
        let page = try kennel.send(.get, "/dogs?limit=3&offset=9997").json as? [[String: Any]]
        #expect(page?.compactMap { $0["id"] as? Int } == [9998, 9999, 10_000])
        #expect(try kennel.send(.delete, "/dogs/5000").status == 204)
        #expect(kennel.document.resources(at: "/dogs").count == 9_999)
    }
}
