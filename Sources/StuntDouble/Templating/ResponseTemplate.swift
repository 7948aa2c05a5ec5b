import Foundation

/// A response template (WireMock's response templating: Handlebars with WireMock's helpers), compiled once and
/// rendered for each request.
///
/// ```swift
/// let template = try ResponseTemplate(#"{"id": "{{request.pathSegments.[1]}}", "at": "{{now format='yyyy'}}"}"#)
/// let body = template.render(for: request)
/// ```
///
/// Rendering is deterministic when the ``TemplateEnvironment`` says so: a seed for `randomValue`, `randomInt`,
/// `pickRandom` and the like, and a clock for `now`.
public struct ResponseTemplate: Sendable {
    /// The template as written.
    public let text: String
    let nodes: [TemplateNode]
    /// Whether the text has no tag at all: rendering it is the text itself.
    let isPlain: Bool

    /// Compiles a template.
    /// - Parameter text: The template.
    /// - Throws: ``ResponseTemplate/SyntaxError`` naming what is wrong and where.
    public init(_ text: String) throws(SyntaxError) {
        self.text = text
        isPlain = !text.contains("{{")
        if isPlain {
            nodes = [.text(text)]
            return
        }
        var parser = TemplateParser(
            text, isHelper: { TemplateHelpers.table[$0] != nil }, refusal: { TemplateHelpers.unsupported[$0] })
        do {
            nodes = try parser.parse()
        } catch {
            throw SyntaxError(message: error.message, offset: error.offset, text: text)
        }
    }

    /// Renders the template for a request.
    /// - Parameters:
    ///   - request: The request the response answers.
    ///   - parameters: The mapping's `transformerParameters`, which the template reads as `parameters`.
    ///   - environment: The clock and the random source.
    /// - Returns: The text.
    public func render(
        for request: HTTPIncomingRequest, parameters: [String: String] = [:],
        environment: TemplateEnvironment = .system
    ) -> String {
        if isPlain { return text }
        var root: [(key: String, value: TemplateValue)] = [("request", .lazy(RequestModel(request)))]
        if !parameters.isEmpty {
            root.append(
                ("parameters", .object(parameters.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        return render(root: root, environment: environment)
    }

    /// Renders the template with its own top-level names (a webhook's `originalRequest` and `parameters`).
    func render(root: [(key: String, value: TemplateValue)], environment: TemplateEnvironment) -> String {
        if isPlain { return text }
        var renderer = TemplateRenderer(root: .object(root), environment: environment)
        renderer.render(nodes)
        return renderer.output
    }

    /// A template that cannot be compiled.
    public struct SyntaxError: Error, Sendable, CustomStringConvertible {
        /// What is wrong.
        public let message: String
        /// Where, as a byte offset in the template's UTF-8 text.
        public let offset: Int
        /// Where, as a line and column (both from 1) in the template.
        public let line: Int
        /// The column, from 1, in UTF-8 bytes.
        public let column: Int

        init(message: String, offset: Int, text: String) {
            self.message = message
            self.offset = offset
            var line = 1
            var column = 1
            for byte in text.utf8.prefix(offset) {
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            }
            self.line = line
            self.column = column
        }

        /// `line:column: message`.
        public var description: String { "\(line):\(column): \(message)" }
    }
}

/// What a template's rendering depends on beyond the request: the time (`now`, `date`) and the random source
/// (`randomValue`, `randomInt`, `randomDecimal`, `pickRandom`). Give tests a fixed clock and a seed, and the same
/// requests render the same text on every run.
public final class TemplateEnvironment: Sendable {
    /// The clock `now` reads.
    let now: @Sendable () -> Date
    /// The random source, or `nil` for the system's.
    private let seeded: Locked<SeededGenerator>?

    /// The system clock and random source.
    public static let system = TemplateEnvironment()

    /// Creates an environment.
    /// - Parameters:
    ///   - now: The clock `now` and `date` read; the system clock by default.
    ///   - seed: A seed that makes the random helpers repeatable (one sequence per environment), or `nil` for
    ///     the system's random source.
    public init(now: @escaping @Sendable () -> Date = { Date() }, seed: UInt64? = nil) {
        self.now = now
        seeded = seed.map { Locked(SeededGenerator(seed: $0)) }
    }

    /// A random number in a range.
    func random(in range: ClosedRange<Int>) -> Int {
        guard let seeded else { return Int.random(in: range) }
        return seeded.withLock { Int.random(in: range, using: &$0) }
    }

    /// A random number in a range.
    func random(in range: ClosedRange<Double>) -> Double {
        guard let seeded else { return Double.random(in: range) }
        return seeded.withLock { Double.random(in: range, using: &$0) }
    }

    /// `count` random numbers below `upper`, drawn at once.
    func random(count: Int, below upper: Int) -> [Int] {
        guard let seeded else { return (0..<count).map { _ in Int.random(in: 0..<upper) } }
        return seeded.withLock { generator in (0..<count).map { _ in Int.random(in: 0..<upper, using: &generator) } }
    }

    /// 16 random bytes (a UUID's).
    func randomUUID() -> UUID {
        guard let seeded else { return UUID() }
        let bytes = seeded.withLock { generator in (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        return UUID(bytes: bytes, version: 4)
    }
}

/// SplitMix64: a small, fast generator whose sequence depends on its seed alone.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
