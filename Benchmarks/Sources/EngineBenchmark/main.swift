// Matches per second of the stubbing engine, in process, with 1, 100 and 10,000 stubs of each kind.
//
//   swift run -c release --package-path Benchmarks EngineBenchmark [--quick]
//
//   swift run -c release --package-path Benchmarks EngineBenchmark --only exactURL 10000 5   (one case)
//
// Each measurement decides requests spread evenly over the stubs (`HTTPStubber.decision(for: URLRequest)`,
// which includes reading the request and building the response plan) for about 0.2 s; the stub counts take
// turns, seven rounds, and the median of each is printed. Target: 10,000 exact-URL or template stubs within 20% of 1 stub.

import Foundation
import StuntDouble

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

enum Kind: String, CaseIterable {
    case exactURL = "exact URL"
    case hostAndPath = "host + path"
    case template = "URI template"
    case regex = "regex"
    case closure = "closure"

    func stub(_ index: Int) throws -> HTTPStubRequest {
        let stub = HTTPStubRequest()
        switch self {
        case .exactURL:
            stub.match(URL: "https://api.example.com/resource\(index)/item")
        case .hostAndPath:
            stub.match(URL: "https://api.example.com/resource\(index)/item", options: .ignoreQueryParameters)
        case .template:
            stub.match(URI: "https://api.example.com/resource\(index)/{id}")
        case .regex:
            try stub.match(urlRegex: "^https://api\\.example\\.com/resource\(index)/[0-9]+$")
        case .closure:
            let url = "https://api.example.com/resource\(index)/item"
            stub.match({ request, _ in request.url.absoluteString == url })
        }
        return stub.stub(for: .get, json: #"{"id": \#(index)}"#)
    }

    func request(_ index: Int) -> URLRequest {
        switch self {
        case .exactURL, .closure: URLRequest(url: URL(string: "https://api.example.com/resource\(index)/item")!)
        case .hostAndPath: URLRequest(url: URL(string: "https://api.example.com/resource\(index)/item?page=3")!)
        case .template, .regex: URLRequest(url: URL(string: "https://api.example.com/resource\(index)/42")!)
        }
    }
}

/// A stubber holding `stubCount` stubs of a kind, and requests spread evenly over them.
struct Setup {
    let kind: Kind
    let stubCount: Int
    let stubber = HTTPStubber()
    let requests: [URLRequest]

    init(kind: Kind, stubCount: Int) throws {
        self.kind = kind
        self.stubCount = stubCount
        for index in 0..<stubCount {
            stubber.add(stub: try kind.stub(index))
        }
        // Scanning kinds with many stubs are slow: fewer requests per pass keep passes short.
        let distinct = stubCount > 1000 && (kind == .regex || kind == .closure) ? 64 : 1024
        requests = (0..<distinct).map { kind.request($0 * 7919 % stubCount) }
    }

    /// Decides requests for about `seconds`; returns decisions per second.
    func measure(seconds: Double) throws -> Double {
        let clock = ContinuousClock()
        var done = 0
        let start = clock.now
        var elapsed = Duration.zero
        while elapsed < .seconds(seconds) {
            for request in requests {
                guard case .stub(let plan) = try stubber.decision(for: request), !plan.body.isEmpty else {
                    fatalError("\(kind) with \(stubCount) stubs: \(request.url!) was not stubbed")
                }
                done += 1
            }
            elapsed = clock.now - start
        }
        let (wholeSeconds, attoseconds) = elapsed.components
        return Double(done) / (Double(wholeSeconds) + Double(attoseconds) / 1e18)
    }
}

/// Medians of `runs` rounds; each round measures every setup once, so that drift in the machine's speed
/// affects every stub count alike.
func measure(_ setups: [Setup], runs: Int, seconds: Double) throws -> [Double] {
    var rates = Array(repeating: [Double](), count: setups.count)
    for _ in 0..<runs {
        for (index, setup) in setups.enumerated() {
            rates[index].append(try setup.measure(seconds: seconds))
        }
    }
    return rates.map { $0.sorted()[$0.count / 2] }
}

let arguments = CommandLine.arguments
let quick = arguments.contains("--quick")
// `--only KIND COUNT SECONDS` measures one configuration, for profilers.
if let only = arguments.firstIndex(of: "--only"), arguments.count > only + 3,
    let kind = Kind.allCases.first(where: { "\($0)" == arguments[only + 1] }), let count = Int(arguments[only + 2]),
    let seconds = Double(arguments[only + 3])
{
    print(Int(try Setup(kind: kind, stubCount: count).measure(seconds: seconds)), "matches/s")
    exit(0)
}
let runs = quick ? 1 : 7
let seconds = quick ? 0.05 : 0.2
let counts = [1, 100, 10_000]

func format(_ value: Double) -> String {
    let number = NumberFormatter()
    number.numberStyle = .decimal
    number.maximumFractionDigits = 0
    return number.string(from: NSNumber(value: value.rounded())) ?? "\(Int(value))"
}

print("StuntDouble engine: matches per second, decision(for: URLRequest), median of \(runs) runs")
print(
    "kind".padding(toLength: 14, withPad: " ", startingAt: 0)
        + counts.map { "\(format(Double($0))) stub\($0 == 1 ? "" : "s")".leftPadded(16) }.joined()
        + "10,000 vs 1".leftPadded(14))
var missed: [String] = []
for kind in Kind.allCases {
    let rates = try measure(counts.map { try Setup(kind: kind, stubCount: $0) }, runs: runs, seconds: seconds)
    let ratio = rates[2] / rates[0]
    print(
        kind.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)
            + rates.map { format($0).leftPadded(16) }.joined()
            + String(format: "%.2f", ratio).leftPadded(14))
    if [.exactURL, .template, .hostAndPath].contains(kind), ratio < 0.8 {
        missed.append(kind.rawValue)
    }
}
for kind in [Kind.exactURL, .template] {
    let stubs = try (0..<10_000).map { try kind.stub($0) }
    let stubber = HTTPStubber()
    let clock = ContinuousClock()
    let elapsed = clock.measure {
        for stub in stubs {
            stubber.add(stub: stub)
        }
    }
    let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
    print("adding 10,000 \(kind.rawValue) stubs: \(String(format: "%.1f", milliseconds)) ms")
}
// A stubber per test: what making one costs (each has its own URLProtocol classes, instantiated generics).
do {
    let count = quick ? 100 : 2_000
    let clock = ContinuousClock()
    var stubbers: [HTTPStubber] = []
    stubbers.reserveCapacity(count)
    let elapsed = clock.measure {
        for _ in 0..<count {
            stubbers.append(HTTPStubber())
        }
    }
    let microseconds = (Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
    print("making \(format(Double(count))) stubbers: \(String(format: "%.0f", microseconds / Double(count))) µs each")
}
if quick {
    print("quick run (one short round): the numbers only show that the benchmark works")
} else if missed.isEmpty {
    print("target met: exact-URL, host + path and template stubs: 10,000 are within 20% of 1")
} else {
    print("target missed for: \(missed.joined(separator: ", "))")
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
