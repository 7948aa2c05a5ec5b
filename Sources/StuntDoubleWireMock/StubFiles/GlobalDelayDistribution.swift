import Foundation
import StuntDouble

/// WireMock's global random delay (`delayDistribution` in `POST /__admin/settings`, the Java client's
/// `setGlobalRandomDelay`): read as a mapping's `delayDistribution` is, `fixed`, `uniform` or `lognormal` in
/// milliseconds.
package struct GlobalDelayDistribution: Sendable {
    private let distribution: ResponseSpec.DelayDistribution

    /// What is wrong with a distribution, each problem as `field: why`.
    package struct Problems: Error {
        package let text: String
    }

    /// Reads a distribution object.
    /// - Parameters:
    ///   - node: The `delayDistribution` object, as parsed from `body`.
    ///   - body: The text it was parsed from (for where its problems are).
    /// - Returns: The distribution, or its problems (`field: why`, joined with `; `).
    package static func read(_ node: JSONNode, in body: [UInt8]) -> Result<GlobalDelayDistribution, Problems> {
        var reader = StubFileReader(file: "settings", bytes: body, filesDirectory: nil)
        let distribution = reader.readDistribution(node, field: "delayDistribution")
        guard let distribution, reader.errorCount == 0 else {
            let problems = reader.diagnostics.filter { $0.severity == .error }.map {
                ($0.field.map { "\($0): " } ?? "") + $0.message
            }
            return .failure(
                Problems(
                    text: problems.isEmpty
                        ? "delayDistribution: not a delay distribution" : problems.joined(separator: "; ")))
        }
        return .success(GlobalDelayDistribution(distribution: distribution))
    }

    /// One draw, in seconds: at most an hour (as `fixedDelay` is), whatever a lognormal draw comes to.
    package func sample() -> TimeInterval {
        min(max(distribution.sample(), 0), 3600)
    }
}
