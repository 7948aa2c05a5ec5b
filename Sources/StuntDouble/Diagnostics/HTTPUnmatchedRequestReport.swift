/// Why no stub matched a request: the request, and the closest stubs with each matcher's verdict.
///
/// This is the error an unmatched request fails with in opt-out mode (the default), and what
/// ``HTTPStubber/decision(for:)-(HTTPIncomingRequest)`` returns for it. Its description reads:
///
/// ```text
/// No stub matched GET https://api.example.com/users/42
///   headers: Accept: application/json
///   body: (empty)
///
/// Closest stubs (2 of 7):
///   1. stub "user by id" (AppTests/UserTests.swift:18): 1 of 2 checks failed
///      ✓ method GET has a response
///      ✗ header Authorization is present
///        expected: present
///        actual:   (no Authorization header)
///   ...
/// ```
public struct HTTPUnmatchedRequestReport: Sendable, CustomStringConvertible {
    /// A stub that came close, and the verdict of each of its checks.
    public struct Candidate: Sendable, CustomStringConvertible {
        /// The stub.
        public let stub: HTTPStubRequest
        /// The checks: the method first, then each matcher in order.
        public let checks: [MatcherCheck]
        /// How close the request came, from 0 to 1.
        let closeness: Double

        init(stub: HTTPStubRequest, checks: [MatcherCheck]) {
            self.stub = stub
            self.checks = checks
            closeness = checks.isEmpty ? 1 : checks.map(\.closeness).reduce(0, +) / Double(checks.count)
        }

        /// The checks that failed.
        public var failedChecks: [MatcherCheck] {
            checks.filter { !$0.passed }
        }

        /// The stub and its checks, one per line.
        public var description: String {
            var text = ""
            write(to: &text, indent: "")
            return text
        }

        /// Appends the description to `text`, with `indent` after each of its line breaks: a report nests it
        /// without copying it again.
        func write(to text: inout String, indent: String) {
            let failed = failedChecks.count
            text += "\(stub): \(failed) of \(checks.count) check\(checks.count == 1 ? "" : "s") failed"
            let checkIndent = indent + "   "
            for check in checks {
                text += "\n"
                text += checkIndent
                text += check.description.indentingLines(with: checkIndent)
            }
        }
    }

    /// A stub whose matching was stopped because it exceeded the work one request may cost (a regular
    /// expression that backtracks catastrophically on this request). Whether it matches is unknown, so no stub
    /// of lower precedence answered in its place.
    public struct StoppedMatcher: Sendable, CustomStringConvertible {
        /// The stub.
        public let stub: HTTPStubRequest
        /// What was stopped, and why.
        public let reason: String

        /// What happened and what to do.
        public var description: String {
            "matching \(stub) was stopped: \(reason). Fix the stub's pattern (anchor it, or drop the nested "
                + "repetition); until then the requests that reach it fail."
        }
    }

    /// The request.
    public private(set) var request: HTTPIncomingRequest
    /// The closest stubs, closest first (at most five).
    public let candidates: [Candidate]
    /// How many stubs the stubber holds.
    public let stubCount: Int
    /// How many stubs were compared with the request to find the closest: all of them up to
    /// ``maximumComparedStubs``; beyond, those the stubber's index finds nearest (same URL, path or pattern
    /// prefix, nearest paths), so that a report costs the same with 10 stubs or 10,000.
    public let comparedStubCount: Int
    /// Problems of stubs and ignore rules that can never match (an invalid template, a URL that is not a
    /// URL ...).
    public let problems: [HTTPStubberError]
    /// The stub whose matching was stopped, when that is why the request failed.
    public let stoppedMatchers: [StoppedMatcher]
    /// What the closest stubs' matchers read in the request beyond its method, URL, headers and body, as
    /// `label: text` (a GraphQL request's operation: `graphql: query Hero, variables {"id":"1"}`).
    public let requestSummaries: [String]

    /// The most stubs compared with a request in full for one report.
    public static let maximumComparedStubs = 40

    /// The report, for a person to read: the request, the closest stubs and what differed, what to do.
    public var description: String {
        var text = ""
        text.reserveCapacity(2048)
        text += "No stub matched \(request.method) \(request.url.absoluteString)"
        for stopped in stoppedMatchers {
            text += "\n  because " + stopped.description
        }
        if !request.headers.isEmpty {
            text += "\n  headers: " + request.headers.map { "\($0.name): \($0.value)" }.joined(separator: "; ")
        }
        text += "\n  body: " + BodyText.describe(request.body)
        for summary in requestSummaries {
            text += "\n  " + summary
        }
        if stubCount == 0 {
            text += "\n\nThe stubber holds no stubs."
        } else {
            let shown = candidates.prefix(3)
            text += "\n\nClosest stubs (\(shown.count) of \(stubCount)"
            if comparedStubCount < stubCount {
                text += "; the \(comparedStubCount) nearest by URL compared"
            }
            text += "):"
            for (index, candidate) in shown.enumerated() {
                text += "\n  \(index + 1). "
                candidate.write(to: &text, indent: "  ")
            }
        }
        if !problems.isEmpty {
            text += "\n\nStubs or ignore rules that can never match (fix them; until then requests fail rather than "
            text += "pass through unnoticed):"
            for problem in problems {
                text += "\n  - \(problem.message)"
            }
        }
        text += "\n\nTo fix it: correct the request or the closest stub, add a stub for this request, "
        text += "add an ignore rule to let it reach the network, or set unhandledMode = .optin."
        return text
    }

    /// Builds a report, ranking the stubs worth comparing by closeness (a quick pass, then a full one over
    /// the closest twenty).
    init(
        request: HTTPIncomingRequest, registry: RegistryBox, ignoreRules: [HTTPStubIgnoreRule],
        availability: StubAvailability? = nil, stopped: StoppedMatch? = nil
    ) {
        self.request = request
        stubCount = registry.count
        stoppedMatchers = stopped.map { [StoppedMatcher(stub: $0.entry.stub, reason: $0.reason)] } ?? []
        problems =
            (registry.problemCount == 0 ? [] : registry.registry.problems) + ignoreRules.flatMap(\.problems)
        var shortlist = registry.reportCandidates(for: request, limit: Self.maximumComparedStubs)
        comparedStubCount = shortlist.count
        // In precedence order, so that of equally close stubs the one that would win is shown first.
        shortlist.sort { $0.precedes($1) }
        if shortlist.count > 20 {
            let target = request.route.exactKey
            let quick = shortlist.map { entry in
                (entry, Self.quickCloseness(entry, request: request, target: target))
            }
            shortlist = quick.enumerated().sorted {
                $0.element.1 != $1.element.1 ? $0.element.1 > $1.element.1 : $0.offset < $1.offset
            }.prefix(20).map(\.element.0)
        }
        candidates = shortlist.map { entry in
            Candidate(
                stub: entry.stub,
                checks: entry.definition.checks(of: request, stub: entry.stub, availability: availability))
        }
        .enumerated()
        .sorted {
            $0.element.closeness != $1.element.closeness
                ? $0.element.closeness > $1.element.closeness : $0.offset < $1.offset
        }
        .prefix(5)
        .map(\.element)
        var summaries: [String] = []
        for entry in shortlist {
            for matcher in entry.definition.engine {
                if let summary = matcher.summary(of: request), !summaries.contains(summary) {
                    summaries.append(summary)
                }
            }
        }
        requestSummaries = summaries
        // Comparing may have run into the regular expressions' budget again: that is no later match's.
        _ = StoppedMatching.take()
    }

    /// The same report for another copy of its request (the journal's, with a truncated body).
    func replacingRequest(_ request: HTTPIncomingRequest) -> HTTPUnmatchedRequestReport {
        var copy = self
        copy.request = request
        return copy
    }

    private static func quickCloseness(_ entry: RegisteredStub, request: HTTPIncomingRequest, target: String) -> Double
    {
        let method = entry.definition.source(for: request.method) == nil ? 0.0 : 1.0
        let label: String
        switch entry.routing {
        case .exact(let key), .hostPath(let key), .path(let key), .host(let key): label = key
        case .template(let host, let segments): label = (host ?? "") + "/" + segments.joined(separator: "/")
        case .urlPrefix(let segments): label = segments.joined(separator: "/")
        case .none: label = entry.definition.matchers.first.map { "\($0)" } ?? ""
        }
        let shared = zip(label.utf8, target.utf8).prefix { $0 == $1 }.count
        return method * 0.3 + 0.7 * Double(shared) / Double(max(1, max(label.utf8.count, target.utf8.count)))
    }
}

extension StubDefinition {
    /// Every check of the stub on a request, for reports: the method first, then each matcher in order, then
    /// its conditions (a limit, a scenario state) when `availability` is given.
    func checks(of request: HTTPIncomingRequest, stub: HTTPStubRequest, availability: StubAvailability?)
        -> [MatcherCheck]
    {
        let method = MatcherCheck(
            matcher: "method \(request.method) has a response", passed: source(for: request.method) != nil,
            expected: methodNames, actual: request.method.rawValue, note: nil, closeness: 0)
        let state = availability?.checks(for: self, stub: stub) ?? []
        return [method] + engine.map { $0.explain(request, source: stub) } + state
    }
}
