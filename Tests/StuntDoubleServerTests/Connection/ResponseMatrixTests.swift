import Foundation
import Testing

/// Issue 25's response matrix: bodies of 0 B to 64 MiB, from a mapping's `body`, `jsonBody`, `bodyFileName`, a
/// template and an upstream, over HTTP/1.0, keep-alive, pipelining, a chunked dribble and `HEAD`, on plain HTTP,
/// HTTPS and HTTP/2, to readers that are fast, slow (about 1 MB/s) or that pause for 2 s mid-body: each must
/// arrive whole, byte for byte (length and SHA-256), and the connection stay usable where it is kept alive.
///
/// `swift test` runs every combination up to 1 MiB. `STUNTDOUBLE_MATRIX=full` (CI) adds 16 and 64 MiB. With
/// `STUNTDOUBLE_MATRIX_COMMAND=/path/to/stuntdouble`, the servers are that binary (CI runs a release build) instead
/// of this process.
@Suite struct ResponseMatrixTests {
    static var isFull: Bool { ProcessInfo.processInfo.environment["STUNTDOUBLE_MATRIX"] == "full" }

    @Test(.timeLimit(.minutes(30))) func everyCombinationArrivesWhole() async throws {
        let sizes = Self.isFull ? ResponseMatrix.sizes : ResponseMatrix.sizes.filter { $0 <= 1 << 20 }
        let cases = ResponseMatrix.cases(sizes: sizes)
        let start = ContinuousClock.now
        try await MatrixRunner.withRunner(sizes: sizes) { runner in
            let failures = await runner.run(cases, concurrency: 12)
            for failure in failures.prefix(40) {
                Issue.record("\(failure)")
            }
            #expect(failures.isEmpty, "\(failures.count) of \(cases.count) cases failed on \(runner.servers.label)")
        }
        print("response matrix: \(cases.count) cases in \(ContinuousClock.now - start)")
    }
}
