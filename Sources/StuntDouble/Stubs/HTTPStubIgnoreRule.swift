/// A rule that lets matching requests through to the network, unstubbed.
///
/// Rules accept every matcher stubs do. A rule means "never stub this": a request it matches goes to the
/// network even when a stub matches it too, in both ``HTTPStubber/UnhandledMode``s, as if the stubber were
/// disabled. The journal names the rule that let each such request through.
///
/// ```swift
/// HTTPStubber.shared.add(ignoreURL: "http://www.apple.com", options: [.ignorePath, .ignoreQueryParameters])
/// HTTPStubber.shared.add(ignoreRule: try HTTPStubIgnoreRule().match(urlRegex: "^https://telemetry\\."))
/// ```
public final class HTTPStubIgnoreRule: HTTPMatcherGroup, @unchecked Sendable, CustomStringConvertible {
    /// Creates a rule with no matchers (it matches every request until you add some).
    override public init() {}

    /// The rule's matchers.
    public var description: String {
        let matchers = self.matchers
        guard !matchers.isEmpty else { return "ignore rule (every request)" }
        return "ignore rule: " + matchers.map { "\($0)" }.joined(separator: " and ")
    }

    func matches(_ request: HTTPIncomingRequest) -> Bool {
        list.matches(request, source: self)
    }
}
