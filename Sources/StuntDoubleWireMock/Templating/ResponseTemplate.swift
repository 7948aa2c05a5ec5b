import Foundation
import StuntDouble

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
    /// - Parameters:
    ///   - text: The template.
    ///   - escapesHTML: Whether `{{value}}` is escaped for HTML (`&` as `&amp;`, `"` as `&quot;`), as WireMock 2
    ///     did. WireMock 3 writes values as they are, and so does StuntDouble unless asked; `{{{value}}}` is
    ///     never escaped.
    /// - Throws: ``ResponseTemplate/SyntaxError`` naming what is wrong and where.
    public init(_ text: String, escapesHTML: Bool = false) throws(SyntaxError) {
        self.text = text
        // As WireMock (2.35 and 3): only the text from the first `{{` to the last `}}` is Handlebars; what comes
        // before and after is written as it is (a `\` before the first `{{` stays, `~` does not strip it), and a
        // text without both is no template at all.
        let utf8 = text.utf8
        guard let first = Self.find("{{", in: utf8, from: utf8.startIndex),
            let last = Self.findLast("}}", in: utf8), first < last
        else {
            isPlain = true
            nodes = [.text(text)]
            return
        }
        isPlain = false
        let end = utf8.index(last, offsetBy: 2)
        var parser = TemplateParser(
            String(text[first..<end]), escapesHTML: escapesHTML, isHelper: { TemplateHelpers.table[$0] != nil },
            refusal: { TemplateHelpers.unsupported[$0] })
        do {
            let middle = try parser.parse()
            nodes = [.text(String(text[..<first]))] + middle + [.text(String(text[end...]))]
        } catch {
            throw SyntaxError(
                message: error.message, offset: error.offset + utf8.distance(from: utf8.startIndex, to: first),
                text: text)
        }
    }

    private static func find(_ needle: String, in utf8: String.UTF8View, from start: String.Index) -> String.Index? {
        let pattern = Array(needle.utf8)
        var index = start
        while index < utf8.endIndex {
            if utf8[index] == pattern[0], utf8[index...].starts(with: pattern) { return index }
            index = utf8.index(after: index)
        }
        return nil
    }

    private static func findLast(_ needle: String, in utf8: String.UTF8View) -> String.Index? {
        let pattern = Array(needle.utf8)
        var index = utf8.endIndex
        while index > utf8.startIndex {
            index = utf8.index(before: index)
            if utf8[index] == pattern[0], utf8[index...].starts(with: pattern) { return index }
        }
        return nil
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
        let values = parameters.sorted { $0.key < $1.key }.map { (key: $0.key, value: TemplateValue.string($0.value)) }
        switch renderResult(for: request, parameters: values, environment: environment) {
        case .success(let text): return text
        case .failure(let error): return "[ERROR: \(error.message)]"
        }
    }

    /// Renders the template for a request, or says why it cannot be (a helper that WireMock's would fail the
    /// response with: division by zero, a date offset it cannot read, values it cannot compare).
    func renderResult(
        for request: HTTPIncomingRequest, parameters: [(key: String, value: TemplateValue)],
        environment: TemplateEnvironment
    ) -> Result<String, RenderError> {
        if isPlain { return .success(text) }
        var root: [(key: String, value: TemplateValue)] = [("request", .lazy(RequestModel(request)))]
        root.append(("parameters", .object(parameters)))
        return renderResult(root: root, environment: environment)
    }

    /// Renders the template with its own top-level names (a webhook's `originalRequest` and `parameters`); a
    /// failure is written as `[ERROR: ...]`.
    func render(root: [(key: String, value: TemplateValue)], environment: TemplateEnvironment) -> String {
        switch renderResult(root: root, environment: environment) {
        case .success(let text): return text
        case .failure(let error): return "[ERROR: \(error.message)]"
        }
    }

    func renderResult(root: [(key: String, value: TemplateValue)], environment: TemplateEnvironment) -> Result<
        String, RenderError
    > {
        if isPlain { return .success(text) }
        var renderer = TemplateRenderer(root: .object(root), environment: environment)
        renderer.render(nodes)
        if let failure = renderer.failure { return .failure(RenderError(message: failure)) }
        return .success(renderer.output)
    }

    /// Why a template could not be rendered for a request.
    struct RenderError: Error {
        let message: String
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

/// A setting of ``TemplateEnvironment`` that cannot be used.
public struct TemplateEnvironmentError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, and how to fix it.
    public let message: String
    /// The message.
    public var description: String { message }
}

/// What a template's rendering depends on beyond the request: the time (`now`, `date`) and the random source
/// (`randomValue`, `randomInt`, `randomDecimal`, `pickRandom`). Give tests a fixed clock and a seed, and the same
/// requests render the same text on every run.
public final class TemplateEnvironment: Sendable {
    /// The clock `now` reads.
    let now: @Sendable () -> Date
    /// The random source, or `nil` for the system's.
    private let seeded: Locked<SeededGenerator>?
    /// The environment variables `systemValue` may read: names any of these match, whole and in any case.
    private let permittedSystemKeys: [NSRegularExpressionBox]

    /// The system clock and random source.
    public static let system = TemplateEnvironment()

    /// Creates an environment.
    /// - Parameters:
    ///   - now: The clock `now` and `date` read; the system clock by default.
    ///   - seed: A seed that makes the random helpers repeatable (one sequence per environment), or `nil` for
    ///     the system's random source.
    public convenience init(now: @escaping @Sendable () -> Date = { Date() }, seed: UInt64? = nil) {
        self.init(now: now, seed: seed, compiledKeys: Self.defaultPermittedSystemKeys)
    }

    /// Creates an environment whose `systemValue` helper may read the environment variables named by
    /// `permittedSystemKeys` (WireMock's `--permitted-system-keys`).
    /// - Parameters:
    ///   - now: The clock `now` and `date` read; the system clock by default.
    ///   - seed: A seed that makes the random helpers repeatable, or `nil` for the system's random source.
    ///   - permittedSystemKeys: Regular expressions, each matched against a whole name in any case, as WireMock
    ///     matches them; empty keeps WireMock's default, `wiremock.*`.
    /// - Throws: ``TemplateEnvironmentError`` naming a pattern that is not a regular expression.
    public convenience init(
        now: @escaping @Sendable () -> Date = { Date() }, seed: UInt64? = nil, permittedSystemKeys: [String]
    ) throws(TemplateEnvironmentError) {
        let keys = try permittedSystemKeys.map { pattern throws(TemplateEnvironmentError) in
            guard let expression = Self.wholeName(pattern) else {
                throw TemplateEnvironmentError(
                    message: "The permitted system key \"\(pattern)\" is not a regular expression; write one "
                        + "such as wiremock.* or APP_.*")
            }
            return expression
        }
        self.init(now: now, seed: seed, compiledKeys: keys.isEmpty ? Self.defaultPermittedSystemKeys : keys)
    }

    private init(now: @escaping @Sendable () -> Date, seed: UInt64?, compiledKeys: [NSRegularExpressionBox]) {
        self.now = now
        seeded = seed.map { Locked(SeededGenerator(seed: $0)) }
        permittedSystemKeys = compiledKeys
    }

    /// WireMock's default: `wiremock.*`.
    private static let defaultPermittedSystemKeys = [wholeName("wiremock.*")].compactMap { $0 }

    private static func wholeName(_ pattern: String) -> NSRegularExpressionBox? {
        try? NSRegularExpressionBox(wholeMatch: pattern, options: [.caseInsensitive])
    }

    /// Whether `systemValue` may read the variable `key`.
    func permitsSystemKey(_ key: String) -> Bool {
        permittedSystemKeys.contains { $0.matchesWhole(key) }
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
