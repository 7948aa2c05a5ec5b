import Foundation

/// Entry points into internals for StuntDouble's own benchmarks (`Benchmarks/`); not API, and free to change.
@_spi(Benchmarks) public enum BenchmarkHooks {
    /// Parses JSON text the way stub files are read (comments and single quotes allowed).
    /// - Parameter bytes: The text.
    /// - Returns: How many values the text holds (so that the work cannot be optimized away), or `nil` when it
    ///   is not valid.
    public static func parseStubFileJSON(_ bytes: [UInt8]) -> Int? {
        let parser = JSONParser(bytes: bytes, options: .wireMock)
        guard let (node, _) = try? parser.parseDocument() else { return nil }
        return count(node)
    }

    private static func count(_ node: JSONNode) -> Int {
        switch node.kind {
        case .array(let items): return items.reduce(1) { $0 + count($1) }
        case .object(let members): return members.reduce(1) { $0 + count($1.value) }
        default: return 1
        }
    }
}
