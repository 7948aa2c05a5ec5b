import Foundation
import TestSupport
import Testing

@testable import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct WeakTableTests {
    final class Object: Sendable {}

    @Test func objectsThatAreGoneAreSweptOutAsTheTableGrows() {
        var table = WeakTable<Object>(minimumSweep: 4)
        let kept = (0..<3).map { _ in Object() }
        for object in kept {
            table.set(object, for: ObjectIdentifier(object))
        }
        // Distinct keys that stay alive, each given an object that is gone at once.
        let keys = (0..<1_000).map { _ in Object() }
        var peak = table.count
        for key in keys {
            table.set(Object(), for: ObjectIdentifier(key))
            peak = max(peak, table.count)
        }
        #expect(peak <= 8, "about twice the live entries, not 1,003: \(peak)")
        for object in kept {
            #expect(table.object(for: ObjectIdentifier(object)) === object, "live objects stay")
        }
        #expect(table.object(for: ObjectIdentifier(keys[999])) == nil, "an object that is gone is not returned")
    }
}
