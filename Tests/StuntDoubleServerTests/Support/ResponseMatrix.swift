import Foundation

/// The response matrix of issue 25: bodies of every size, from every source, through every exchange, transport and
/// reader, each checked by length and SHA-256 digest.
enum ResponseMatrix {
    /// Where a body comes from.
    enum Source: String, CaseIterable, Sendable {
        /// A mapping's `body`.
        case inline
        /// A mapping's `jsonBody` (a JSON string, or a number for a single byte; nothing JSON is 0 bytes long).
        case json
        /// A file of `__files/`, named by `bodyFileName`.
        case file
        /// A templated `body` (`response-template`), whose first two bytes a helper renders.
        case template
        /// An upstream's, through a mapping's `proxyBaseUrl`.
        case proxied
    }

    /// How the request is made.
    enum Exchange: String, CaseIterable, Sendable {
        /// HTTP/1.0, which closes after its response.
        case http10
        /// Three requests one after another on one connection (three streams of one HTTP/2 connection).
        case keepAlive
        /// Three requests sent at once (three concurrent streams in HTTP/2).
        case pipelined
        /// A mapping with `chunkedDribbleDelay`: the body in chunks over time.
        case dribble
        /// `HEAD`: the head alone, with the body's length.
        case head
    }

    enum Transport: String, CaseIterable, Sendable {
        case plain, https, http2
    }

    enum Reader: String, CaseIterable, Sendable {
        /// Reads as fast as bytes come.
        case fast
        /// About 1 MB/s.
        case slow
        /// Reads half the first body, takes nothing for 2 s, then reads the rest fast.
        case pausing
    }

    /// The sizes the issue names.
    static let sizes = [
        0, 1, (64 << 10) - 1, 64 << 10, (64 << 10) + 1, (128 << 10) + 1, 1 << 20, 16 << 20, 64 << 20,
    ]

    struct Case: Sendable, CustomStringConvertible {
        let size: Int
        let source: Source
        let exchange: Exchange
        let transport: Transport
        let reader: Reader
        /// How many requests keep-alive and pipelined cases make.
        var depth = 3
        /// A pace of its own, instead of the reader's (the randomized run's).
        var customPace: ReadPace?

        var description: String {
            let depthNote = exchange == .keepAlive || exchange == .pipelined ? " x\(depth)" : ""
            return "\(size) B, \(source.rawValue), \(exchange.rawValue)\(depthNote), \(transport.rawValue), "
                + (customPace.map { "reader \($0)" } ?? "\(reader.rawValue) reader")
        }

        /// Why the case cannot be made, if it cannot: a `jsonBody` has no 0-byte form, and HTTP/2 has no HTTP/1.0
        /// nor pipelining of its own (its concurrent streams stand for the latter).
        var isPossible: Bool {
            !(source == .json && size == 0) && !(transport == .http2 && exchange == .http10)
        }

        /// The request path.
        var path: String {
            exchange == .dribble ? "/dribble/\(source.rawValue)/\(size)" : "/\(source.rawValue)/\(size)"
        }

        /// How many requests the case makes.
        var requestCount: Int {
            switch exchange {
            case .keepAlive, .pipelined: depth
            default: 1
            }
        }

        /// The client's pace.
        var pace: ReadPace {
            if let customPace { return customPace }
            switch reader {
            case .fast: return .fast
            case .slow: return .slow(bytesPerSecond: ResponseMatrix.slowPace)
            case .pausing: return .pausing(afterBytes: max(1, size / 2), pause: .seconds(2))
            }
        }
    }

    /// The slow reader's bytes per second: `STUNTDOUBLE_MATRIX_SLOW_PACE`, or about 1 MB/s.
    static var slowPace: Int {
        ProcessInfo.processInfo.environment["STUNTDOUBLE_MATRIX_SLOW_PACE"].flatMap { Int($0) } ?? 1_000_000
    }

    /// Whether a case is one `STUNTDOUBLE_MATRIX_ONLY` asks for: every comma-separated part of it appears in the
    /// case's description (`67108864 B,proxied,slow` for the slow readers of proxied 64 MiB bodies); every case
    /// when it is not set.
    static func isChosen(_ item: Case) -> Bool {
        guard let only = ProcessInfo.processInfo.environment["STUNTDOUBLE_MATRIX_ONLY"], !only.isEmpty else {
            return true
        }
        return only.split(separator: ",").allSatisfy { item.description.contains($0) }
    }

    /// The cases of a run: every combination for bodies up to 1 MiB; for larger ones, every combination with the
    /// fast reader, and for the slow and pausing readers, every pair of source, exchange and transport at least once
    /// (25 cases a reader and size instead of 70: a slow reader takes a minute for each 64 MiB body), unless
    /// `complete`.
    static func cases(sizes: [Int], complete: Bool) -> [Case] {
        let all = cases(sizes: sizes)
        guard !complete else { return all }
        var chosen = all.filter { $0.size <= 1 << 20 || $0.reader == .fast }
        for size in sizes where size > 1 << 20 {
            for reader in [Reader.slow, .pausing] {
                for (i, source) in Source.allCases.enumerated() {
                    for (j, exchange) in Exchange.allCases.enumerated() {
                        // Transport i + j (mod 3): each source and each exchange meets every transport.
                        var transport = Transport.allCases[(i + j) % 3]
                        if transport == .http2, exchange == .http10 { transport = .https }
                        let made = Case(
                            size: size, source: source, exchange: exchange, transport: transport, reader: reader)
                        if made.isPossible { chosen.append(made) }
                    }
                }
            }
        }
        return chosen
    }

    /// Every possible case for the given sizes.
    static func cases(sizes: [Int], readers: [Reader] = Reader.allCases) -> [Case] {
        var cases: [Case] = []
        for size in sizes {
            for source in Source.allCases {
                for exchange in Exchange.allCases {
                    for transport in Transport.allCases {
                        for reader in readers {
                            let made = Case(
                                size: size, source: source, exchange: exchange, transport: transport, reader: reader)
                            if made.isPossible { cases.append(made) }
                        }
                    }
                }
            }
        }
        return cases
    }

    // MARK: - Bodies

    /// The bytes a source's stub for `size` answers with.
    static func expectedBody(_ source: Source, size: Int) -> Data {
        switch source {
        case .inline, .file, .proxied:
            return patternBytes(size, seed: UInt64(size))
        case .json:
            if size == 1 { return Data("7".utf8) }
            return Data("\"".utf8) + patternBytes(size - 2, seed: UInt64(size)) + Data("\"".utf8)
        case .template:
            if size < 2 { return patternBytes(size, seed: UInt64(size)) }
            return Data("AB".utf8) + patternBytes(size - 2, seed: UInt64(size))
        }
    }

    /// The digest of `expectedBody`, worked out once per source and size.
    static func expectedDigest(_ source: Source, size: Int) -> String {
        digests.withLock { cache in
            if let known = cache["\(source.rawValue)/\(size)"] { return known }
            let digest = expectedBody(source, size: size).sha256
            cache["\(source.rawValue)/\(size)"] = digest
            return digest
        }
    }

    private static let digests = LockedBox([String: String]())

    // MARK: - Roots

    /// Writes the root of the server under test: for each size, a mapping per source and one per source with
    /// `chunkedDribbleDelay`, the files they name, and `GET /ping`. Proxied mappings forward to `upstreamPort`.
    static func writeRoot(at root: URL, sizes: [Int], upstreamPort: Int) throws {
        let mappings = root.appendingPathComponent("mappings")
        let files = root.appendingPathComponent("__files")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try write(
            #"{"request": {"method": "GET", "urlPath": "/ping"}, "response": {"body": "pong"}}"#,
            to: mappings.appendingPathComponent("ping.json"))
        for size in Set(sizes) {
            try patternBytes(size, seed: UInt64(size)).write(to: files.appendingPathComponent("body-\(size).bin"))
            for dribble in [false, true] {
                let prefix = dribble ? "/dribble" : ""
                let delay = dribble ? #", "chunkedDribbleDelay": {"numberOfChunks": 5, "totalDuration": 300}"# : ""
                let name = dribble ? "dribble-" : ""
                let pattern = String(decoding: patternBytes(size, seed: UInt64(size)), as: UTF8.self)
                try write(
                    mapping(path: "\(prefix)/inline/\(size)", response: #""body": "\#(pattern)""# + delay),
                    to: mappings.appendingPathComponent("\(name)inline-\(size).json"))
                if size > 0 {
                    let json =
                        size == 1
                        ? "7"
                        : "\"" + String(decoding: patternBytes(size - 2, seed: UInt64(size)), as: UTF8.self) + "\""
                    try write(
                        mapping(path: "\(prefix)/json/\(size)", response: #""jsonBody": \#(json)"# + delay),
                        to: mappings.appendingPathComponent("\(name)json-\(size).json"))
                }
                try write(
                    mapping(path: "\(prefix)/file/\(size)", response: #""bodyFileName": "body-\#(size).bin""# + delay),
                    to: mappings.appendingPathComponent("\(name)file-\(size).json"))
                let template =
                    size < 2
                    ? pattern
                    : "{{upper 'ab'}}" + String(decoding: patternBytes(size - 2, seed: UInt64(size)), as: UTF8.self)
                try write(
                    mapping(
                        path: "\(prefix)/template/\(size)",
                        response: #""body": "\#(template)", "transformers": ["response-template"]"# + delay),
                    to: mappings.appendingPathComponent("\(name)template-\(size).json"))
                try write(
                    mapping(
                        path: "\(prefix)/proxied/\(size)",
                        response: #""proxyBaseUrl": "http://127.0.0.1:\#(upstreamPort)""#),
                    to: mappings.appendingPathComponent("\(name)proxied-\(size).json"))
            }
        }
    }

    /// Writes the upstream's root: `/proxied/<size>` inline, and `/dribble/proxied/<size>` dribbled.
    static func writeUpstreamRoot(at root: URL, sizes: [Int]) throws {
        let mappings = root.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        for size in Set(sizes) {
            let pattern = String(decoding: patternBytes(size, seed: UInt64(size)), as: UTF8.self)
            try write(
                mapping(path: "/proxied/\(size)", response: #""body": "\#(pattern)""#),
                to: mappings.appendingPathComponent("proxied-\(size).json"))
            try write(
                mapping(
                    path: "/dribble/proxied/\(size)",
                    response:
                        #""body": "\#(pattern)", "chunkedDribbleDelay": {"numberOfChunks": 5, "totalDuration": 300}"#
                ), to: mappings.appendingPathComponent("dribble-proxied-\(size).json"))
        }
    }

    private static func mapping(path: String, response: String) -> String {
        #"{"request": {"method": "ANY", "urlPath": "\#(path)"}, "response": {"status": 200, \#(response)}}"#
    }

    private static func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }
}

/// A value behind a lock, for test helpers shared across tasks.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }
}
