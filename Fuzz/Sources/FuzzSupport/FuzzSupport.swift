import Foundation
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One input of a fuzzer: raw bytes, cut into the parts a target needs.
public struct FuzzInput {
    /// The bytes.
    public let bytes: UnsafeBufferPointer<UInt8>

    /// Wraps libFuzzer's input.
    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = UnsafeBufferPointer(start: data, count: size)
    }

    /// The input cut at the first `count - 1` separators, as UTF-8 text (invalid bytes repaired, as Swift
    /// strings from a network would be); missing parts are empty.
    public func parts(_ count: Int, separator: UInt8 = UInt8(ascii: "\n")) -> [String] {
        var result: [String] = []
        var rest = bytes[...]
        while result.count < count - 1, let cut = rest.firstIndex(of: separator) {
            result.append(String(decoding: rest[..<cut], as: UTF8.self))
            rest = rest[(cut + 1)...]
        }
        result.append(String(decoding: rest, as: UTF8.self))
        while result.count < count { result.append("") }
        return result
    }

    /// The bytes before the first `separator`, and those after it (none when there is no separator).
    public func split(at separator: UInt8) -> (
        before: Slice<UnsafeBufferPointer<UInt8>>, after: Slice<UnsafeBufferPointer<UInt8>>
    ) {
        guard let cut = bytes.firstIndex(of: separator) else { return (bytes[...], bytes[bytes.endIndex...]) }
        return (bytes[..<cut], bytes[(cut + 1)...])
    }

    /// The first byte (0 for an empty input), and the rest.
    public var firstByteAndRest: (UInt8, FuzzInput) {
        guard let first = bytes.first, let base = bytes.baseAddress else { return (0, self) }
        return (first, FuzzInput(base + 1, bytes.count - 1))
    }
}

/// Stops the fuzzer with a message when a property that must always hold does not.
public func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("property violated: \(message())\n".utf8))
    abort()
}

/// Checks that a stubber finds `stub` for a GET of `url` exactly when its matchers, asked one by one, all
/// match: the stub index (by URL, host and path, template or regular-expression prefix) must never hide a
/// stub that matches, nor find one that does not.
public func requireIndexAgreesWithMatchers(_ stub: HTTPStubRequest, url: String) {
    guard let parsed = URL(string: url), let request = try? HTTPIncomingRequest(method: .get, url: parsed) else {
        return
    }
    stub.stub(for: .get, code: .ok)
    let stubber = HTTPStubber(journalCapacity: 0)
    stubber.add(stub: stub)
    let found = stubber.decision(for: request).plan != nil
    let direct = stub.matchers.allSatisfy { $0.matches(request: request.urlRequest, for: stub) }
    require(found == direct, "the stubber \(found ? "found" : "missed") \(stub.matchers) for \(url)")
}
