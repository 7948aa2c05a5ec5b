import Foundation
import Testing

/// Issue 25's response matrix: bodies of 0 B to 64 MiB, from a mapping's `body`, `jsonBody`, `bodyFileName`, a
/// template and an upstream, over HTTP/1.0, keep-alive, pipelining, a chunked dribble and `HEAD`, on plain HTTP,
/// HTTPS and HTTP/2, to readers that are fast, slow (about 1 MB/s) or that pause for 2 s mid-body: each must
/// arrive whole, byte for byte (length and SHA-256), and the connection stay usable where it is kept alive.
///
/// `swift test` runs every combination up to 1 MiB, and random cases for 10 seconds. `STUNTDOUBLE_MATRIX=full`
/// (CI) adds 16 and 64 MiB: every combination with the fast reader, and with the slow and pausing readers every
/// pair of source, exchange and transport; `STUNTDOUBLE_MATRIX=complete` runs every combination of those too (about
/// 15 minutes). `STUNTDOUBLE_MATRIX_SECONDS` sets how long the random cases run. With
/// `STUNTDOUBLE_MATRIX_COMMAND=/path/to/stuntdouble`, the servers are that binary (CI runs a release build)
/// instead of this process. `STUNTDOUBLE_MATRIX_SEED` replays the random cases of a seed a failure printed;
/// `STUNTDOUBLE_MATRIX_ONLY` runs only the cases whose description has each of its comma-separated parts, and
/// `STUNTDOUBLE_MATRIX_SLOW_PACE` sets the slow reader's bytes per second. A failure shows what the server commands
/// logged of the case's path.
@Suite struct ResponseMatrixTests {
    static let environment = ProcessInfo.processInfo.environment
    static var isFull: Bool { ["full", "complete"].contains(environment["STUNTDOUBLE_MATRIX"]) }
    static var isComplete: Bool { environment["STUNTDOUBLE_MATRIX"] == "complete" }

    @Test(.timeLimit(.minutes(30))) func everyCombinationArrivesWhole() async throws {
        let sizes = Self.isFull ? ResponseMatrix.sizes : ResponseMatrix.sizes.filter { $0 <= 1 << 20 }
        // The longest first (the slow readers of the largest bodies), so that they run beside everything else.
        let cases = ResponseMatrix.cases(sizes: sizes, complete: Self.isComplete).filter(ResponseMatrix.isChosen)
            .sorted { $0.cost > $1.cost }
        let start = ContinuousClock.now
        try await MatrixRunner.withRunner(sizes: sizes) { runner in
            let failures = await runner.run(cases, concurrency: 24)
            for failure in failures.prefix(40) {
                Issue.record("\(failure)")
            }
            #expect(failures.isEmpty, "\(failures.count) of \(cases.count) cases failed on \(runner.servers.label)")
            if let crash = runner.servers.crashReport { Issue.record("\(crash)") }
            print("response matrix: \(cases.count) cases on \(runner.servers.label) in \(ContinuousClock.now - start)")
        }
    }

    /// Cases drawn from a seed: sizes around every power of two that a buffer, a batch or a frame could have
    /// (and any up to 2 MiB, 32 MiB in the full run), pipelining 1 to 6 deep, readers whose pace changes read by
    /// read. The seed is printed, and named in every failure.
    @Test(.timeLimit(.minutes(30))) func randomCasesArriveWhole() async throws {
        let seed =
            Self.environment["STUNTDOUBLE_MATRIX_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        let seconds = Self.environment["STUNTDOUBLE_MATRIX_SECONDS"].flatMap { Double($0) } ?? 10
        print("random response matrix: seed \(seed) (STUNTDOUBLE_MATRIX_SEED=\(seed) replays it), \(seconds) s")
        var random = PaceState(random: seed)
        var sizes: Set<Int> = []
        for power in 10...21 {
            let size = 1 << power
            sizes.formUnion([size - 1, size, size + 1])
        }
        // In a debug build, loading a mapping of a few MiB takes a second or so: fewer and smaller bodies there.
        let largest = Self.isFull ? 32 << 20 : 2 << 20
        while sizes.count < (Self.isFull ? 56 : 44) {
            // Log-uniform, so that small and large sizes are drawn alike.
            let exponent = Double(random.next() % 10_000) / 10_000 * log2(Double(largest))
            sizes.insert(Int(pow(2, exponent)))
        }
        let sizeList = sizes.sorted()
        var ran = 0
        try await MatrixRunner.withRunner(sizes: sizeList) { runner in
            let deadline = ContinuousClock.now + .seconds(seconds)
            while ContinuousClock.now < deadline {
                var batch: [ResponseMatrix.Case] = []
                while batch.count < 16 {
                    let exchange = ResponseMatrix.Exchange.allCases[Int(random.next() % 5)]
                    var item = ResponseMatrix.Case(
                        size: sizeList[Int(random.next() % UInt64(sizeList.count))],
                        source: ResponseMatrix.Source.allCases[Int(random.next() % 5)], exchange: exchange,
                        transport: ResponseMatrix.Transport.allCases[Int(random.next() % 3)], reader: .fast)
                    item.depth = 1 + Int(random.next() % 6)
                    item.customPace = .random(seed: random.next())
                    if item.isPossible { batch.append(item) }
                }
                let failures = await runner.run(batch, concurrency: 8)
                ran += batch.count
                for failure in failures {
                    Issue.record("seed \(seed): \(failure)")
                }
                if !failures.isEmpty { break }
            }
        }
        print("random response matrix: seed \(seed), \(ran) cases")
    }
}

extension ResponseMatrix.Case {
    /// About how much of the server's memory the case holds while it runs: a templated body is rendered for each
    /// request (twice its size: the rendered text and its bytes), and HTTP/2 concurrent streams hold theirs at
    /// once; other bodies are shared by every response.
    var serverMemory: Int {
        let atOnce = transport == .http2 && exchange == .pipelined ? depth : 1
        let perRequest = (source == .template ? 2 * size : 0) + (1 << 20)
        return atOnce * perRequest
    }

    /// About how long the case takes (its bytes, and its reader's waiting), to start the longest first.
    var cost: Double {
        let bytes = Double(size * requestCount)
        switch reader {
        case .fast: return bytes / 200_000_000
        case .slow: return bytes / 1_000_000
        case .pausing: return bytes / 200_000_000 + 2
        }
    }
}
