/// A stub as a stubber registered it: an immutable snapshot of its definition, its index key and its
/// precedence.
final class RegisteredStub: Sendable {
    let stub: HTTPStubRequest
    let definition: StubDefinition
    let version: UInt64
    let sequence: UInt64
    let routing: RoutingKey
    /// The matcher that gave an exact-URL key: a request found under that key already satisfies it (the key
    /// holds every part the matcher compares), so lookups skip it.
    let exactMatcherIndex: Int?
    /// A stub whose only matcher is a URI template keeps it here, in its own memory: matching then reads one
    /// object less (it counts when thousands of stubs make every object a cache miss).
    let soleTemplate: HTTPStubURITemplateMatcher?
    /// Whether the stub may decline a request its matchers accept (a limit, a required scenario state).
    let isConditional: Bool
    /// Whether answering changes the stubber's state (see `StubDefinition.isStateful`).
    let isStateful: Bool
    /// The responses by method, in a list: a stub answers one to three methods, and comparing a method's
    /// name with each costs less than hashing it.
    private let methodSources: [(method: HTTPMethod, source: ResponseSource)]

    init(stub: HTTPStubRequest, definition: StubDefinition, version: UInt64, sequence: UInt64) {
        self.stub = stub
        self.definition = definition
        self.version = version
        self.sequence = sequence
        let routing = definition.routing
        self.routing = routing
        if case .exact = routing {
            exactMatcherIndex = definition.engine.firstIndex { $0.routing == routing }
        } else {
            exactMatcherIndex = nil
        }
        soleTemplate = definition.engine.count == 1 ? definition.engine[0] as? HTTPStubURITemplateMatcher : nil
        isConditional = definition.isConditional
        isStateful = definition.isStateful
        methodSources = definition.responses.map { ($0.key, $0.value) }
    }

    /// The response source for a method: its own, or the one for every method (`StubDefinition.source(for:)`).
    func source(for method: HTTPMethod) -> ResponseSource? {
        for entry in methodSources where entry.method == method {
            return entry.source
        }
        return definition.everyMethod
    }

    /// Whether this stub wins over another: higher priority first, then the most recently added.
    func precedes(_ other: RegisteredStub) -> Bool {
        if definition.priority != other.definition.priority {
            return definition.priority > other.definition.priority
        }
        return sequence > other.sequence
    }

    /// Whether the stub answers the request.
    /// - Parameters:
    ///   - request: The request.
    ///   - foundByExactKey: The request was found under the stub's exact-URL key.
    ///   - available: What decides whether conditional stubs may answer, when the registry has any.
    /// - Returns: The URI template variables the stub extracted, `nil` when it does not match, or why matching
    ///   was stopped (see `RegexBudget`).
    func evaluate(
        _ request: HTTPIncomingRequest, foundByExactKey: Bool = false, available: StubAvailability? = nil
    ) -> Result<[String: URITemplate.Value], StoppedMatch>? {
        guard source(for: request.method) != nil else { return nil }
        if isConditional, let available, !available.allows(self) { return nil }
        if let soleTemplate {
            return soleTemplate.extract(request.route).map { .success($0) }
        }
        var variables: [String: URITemplate.Value] = [:]
        let skipped = foundByExactKey ? exactMatcherIndex : nil
        for (index, matcher) in definition.engine.enumerated() where index != skipped {
            if !matcher.evaluate(request, source: stub, variables: &variables) {
                if let reason = StoppedMatching.take() { return .failure(StoppedMatch(entry: self, reason: reason)) }
                return nil
            }
        }
        // A matcher that answered `true` because a pattern inside it was stopped (`doesNotMatch`).
        if let reason = StoppedMatching.take() { return .failure(StoppedMatch(entry: self, reason: reason)) }
        return .success(variables)
    }
}

/// A stub whose matching was stopped because it exceeded the work one request may cost (see `RegexBudget`).
struct StoppedMatch: Error {
    let entry: RegisteredStub
    package let reason: String
}

/// What the registry found for a request.
enum RegistryMatch {
    /// The winning stub and the URI template variables it extracted.
    case matched(RegisteredStub, [String: URITemplate.Value])
    /// Matching a stub was stopped before a winner was known: no stub may answer.
    case stopped(StoppedMatch)

    init?(_ entry: RegisteredStub, _ evaluation: Result<[String: URITemplate.Value], StoppedMatch>?) {
        switch evaluation {
        case .success(let variables): self = .matched(entry, variables)
        case .failure(let stopped): self = .stopped(stopped)
        case nil: return nil
        }
    }

    /// The winning stub, if one matched.
    var entry: RegisteredStub? {
        if case .matched(let entry, _) = self { entry } else { nil }
    }
}

/// A stubber's stubs, indexed so that finding the stub for a request costs the same with 1 or 10,000 stubs
/// keyed by exact URL, host and path, path, host or URI template literal prefix. Stubs without such a key
/// (regular expressions, closures, bodies only) are scanned in precedence order.
struct StubRegistry: Sendable {
    private(set) var byID: [UInt64: RegisteredStub] = [:]
    private(set) var exact: [String: Bucket] = [:]
    private(set) var hostPath: [String: Bucket] = [:]
    private(set) var paths: [String: Bucket] = [:]
    private(set) var hosts: [String: Bucket] = [:]
    private(set) var hostTemplates: [String: TemplateTrie] = [:]
    private(set) var anyHostTemplates = TemplateTrie()
    /// Anchored regular expressions by the complete segments of their literal prefix.
    private(set) var urlPrefixes = TemplateTrie()
    private(set) var scan = Bucket()
    private var nextSequence: UInt64 = 0
    private(set) var problemCount = 0
    /// How many stubs are conditional: while there are none, matching needs no usage snapshot.
    private(set) var conditionalCount = 0

    var count: Int { byID.count }

    /// Adds a stub as the most recent, or replaces its earlier registration (keeping its place when
    /// `keepingPlace` is set, as for an update of a stub already added).
    mutating func register(
        _ stub: HTTPStubRequest, definition: StubDefinition, version: UInt64, keepingPlace: Bool = false
    ) {
        let previous = remove(stub.id)
        let sequence: UInt64
        if keepingPlace, let previous {
            sequence = previous.sequence
        } else {
            nextSequence += 1
            sequence = nextSequence
        }
        let entry = RegisteredStub(stub: stub, definition: definition, version: version, sequence: sequence)
        byID[stub.id] = entry
        if !definition.problems.isEmpty {
            problemCount += 1
        }
        if entry.isConditional {
            conditionalCount += 1
        }
        switch entry.routing {
        case .none: scan.insert(entry)
        case .exact(let key): exact[key, default: Bucket()].insert(entry)
        case .hostPath(let key): hostPath[key, default: Bucket()].insert(entry)
        case .path(let key): paths[key, default: Bucket()].insert(entry)
        case .host(let key): hosts[key, default: Bucket()].insert(entry)
        case .template(let host?, let segments):
            hostTemplates[host, default: TemplateTrie()].insert(entry, at: segments[...])
        case .template(nil, let segments):
            anyHostTemplates.insert(entry, at: segments[...])
        case .urlPrefix(let segments):
            urlPrefixes.insert(entry, at: segments[...])
        }
    }

    @discardableResult
    mutating func remove(_ id: UInt64) -> RegisteredStub? {
        guard let entry = byID.removeValue(forKey: id) else { return nil }
        if !entry.definition.problems.isEmpty {
            problemCount -= 1
        }
        if entry.isConditional {
            conditionalCount -= 1
        }
        func drop(_ key: String, from buckets: inout [String: Bucket]) {
            buckets[key]?.remove(id)
            if buckets[key]?.isEmpty == true {
                buckets[key] = nil
            }
        }
        switch entry.routing {
        case .none: scan.remove(id)
        case .exact(let key): drop(key, from: &exact)
        case .hostPath(let key): drop(key, from: &hostPath)
        case .path(let key): drop(key, from: &paths)
        case .host(let key): drop(key, from: &hosts)
        case .template(let host?, let segments):
            hostTemplates[host]?.remove(id, at: segments[...])
            if hostTemplates[host]?.isEmpty == true {
                hostTemplates[host] = nil
            }
        case .template(nil, let segments):
            anyHostTemplates.remove(id, at: segments[...])
        case .urlPrefix(let segments):
            urlPrefixes.remove(id, at: segments[...])
        }
        return entry
    }

    /// Every stub, highest precedence first.
    var inPrecedenceOrder: [RegisteredStub] {
        byID.values.sorted { $0.precedes($1) }
    }

    /// The winning stub for a request and the variables it extracted, or `nil`.
    /// - Parameters:
    ///   - request: The request.
    ///   - available: Whether conditional stubs may answer; required when ``conditionalCount`` is not 0.
    /// - Returns: The stub and its template variables, or `nil` when no stub matches.
    func firstMatch(_ request: HTTPIncomingRequest, available: StubAvailability? = nil) -> RegistryMatch? {
        withUnsafePointer(to: self) { Self.firstMatch(in: $0, request, available: available) }
    }

    /// `firstMatch`, reading the registry through a pointer: each index is read where it lies, with no copy of
    /// the whole registry (what `RegistryBox` needs to match on many threads at once).
    static func firstMatch(
        in registry: UnsafePointer<StubRegistry>, _ request: HTTPIncomingRequest, available: StubAvailability?
    ) -> RegistryMatch? {
        // A stop recorded by matching elsewhere on this thread (a report, an ignore rule) is not this one's.
        _ = StoppedMatching.take()
        let route = request.route
        // The usual case: only exact-URL stubs exist, and one bucket applies; skip gathering buckets.
        if registry.pointee.hostPath.isEmpty, registry.pointee.paths.isEmpty, registry.pointee.hosts.isEmpty,
            registry.pointee.hostTemplates.isEmpty, registry.pointee.anyHostTemplates.isEmpty,
            registry.pointee.urlPrefixes.isEmpty, registry.pointee.scan.isEmpty
        {
            guard let bucket = registry.pointee.exact[route.exactKey] else { return nil }
            for entry in bucket.entries.reversed() {
                if let match = RegistryMatch(
                    entry, entry.evaluate(request, foundByExactKey: true, available: available))
                {
                    return match
                }
            }
            return nil
        }
        // The other usual case: only path stubs exist (WireMock's `urlPath` mappings), and one bucket applies.
        if registry.pointee.exact.isEmpty, registry.pointee.hostPath.isEmpty, registry.pointee.hosts.isEmpty,
            registry.pointee.hostTemplates.isEmpty, registry.pointee.anyHostTemplates.isEmpty,
            registry.pointee.urlPrefixes.isEmpty, registry.pointee.scan.isEmpty
        {
            guard let bucket = registry.pointee.paths[route.pathKey] else {
                return nil
            }
            for entry in bucket.entries.reversed() {
                if let match = RegistryMatch(
                    entry, entry.evaluate(request, foundByExactKey: false, available: available))
                {
                    return match
                }
            }
            return nil
        }
        // Empty indexes are skipped, so that no key is hashed for nothing.
        var buckets: [Bucket] = []
        // The exact-URL bucket, when there is one, is the first.
        let exactBucket = registry.pointee.exact.isEmpty ? nil : registry.pointee.exact[route.exactKey]
        if let exactBucket { buckets.append(exactBucket) }
        if !registry.pointee.hostPath.isEmpty, let bucket = registry.pointee.hostPath[route.hostPathKey] {
            buckets.append(bucket)
        }
        if !registry.pointee.paths.isEmpty,
            let bucket = registry.pointee.paths[route.pathKey]
        {
            buckets.append(bucket)
        }
        if !registry.pointee.hosts.isEmpty, let bucket = registry.pointee.hosts[route.host] { buckets.append(bucket) }
        if !registry.pointee.hostTemplates.isEmpty {
            registry.pointee.hostTemplates[route.host]?.collect(path: route.pathSlice, into: &buckets)
        }
        if !registry.pointee.anyHostTemplates.isEmpty {
            registry.pointee.anyHostTemplates.collect(path: route.pathSlice, into: &buckets)
        }
        if !registry.pointee.urlPrefixes.isEmpty {
            registry.pointee.urlPrefixes.collect(segmentsOf: Substring(request.matchableURLString), into: &buckets)
        }
        if !registry.pointee.scan.isEmpty { buckets.append(registry.pointee.scan) }
        if buckets.count == 1 {
            let foundByExactKey = exactBucket != nil
            for entry in buckets[0].entries.reversed() {
                let evaluation = entry.evaluate(request, foundByExactKey: foundByExactKey, available: available)
                if let match = RegistryMatch(entry, evaluation) {
                    return match
                }
            }
            return nil
        }
        // Merge the buckets by precedence, evaluating the best remaining candidate each time.
        var cursors = buckets.map { $0.entries.count - 1 }
        while true {
            var best: Int?
            for index in buckets.indices where cursors[index] >= 0 {
                let candidate = buckets[index].entries[cursors[index]]
                if let current = best, !candidate.precedes(buckets[current].entries[cursors[current]]) { continue }
                best = index
            }
            guard let chosen = best else { return nil }
            let entry = buckets[chosen].entries[cursors[chosen]]
            cursors[chosen] -= 1
            let foundByExactKey = chosen == 0 && exactBucket != nil
            if let match = RegistryMatch(
                entry, entry.evaluate(request, foundByExactKey: foundByExactKey, available: available))
            {
                return match
            }
        }
    }

    /// The winning stub found by evaluating every stub in precedence order, without the index: the
    /// reference the index must agree with.
    func firstMatchByScanning(_ request: HTTPIncomingRequest, available: StubAvailability? = nil) -> RegistryMatch? {
        _ = StoppedMatching.take()
        for entry in inPrecedenceOrder {
            if let match = RegistryMatch(entry, entry.evaluate(request, available: available)) { return match }
        }
        return nil
    }
}

/// A registry in a copy-on-write box. Readers take the box under the stubber's lock and read it after
/// releasing the lock; a writer (under the lock) changes the box in place only when no reader holds it, and
/// otherwise changes a copy. So a request's snapshot costs one retain, not one per index.
struct RegistryBox: Sendable {
    /// The registry behind a pointer, so that readers on many threads can match in place: reading a stored
    /// property to call a method on it copies the registry (a retain per index), and borrowing it with
    /// `withUnsafeMutablePointer(to:)` would be a modifying access, which concurrent readers may not make.
    /// Written only under the stubber's lock, while no reader holds the storage.
    private final class Storage: @unchecked Sendable {
        private let pointer: UnsafeMutablePointer<StubRegistry>

        init(_ registry: StubRegistry) {
            pointer = .allocate(capacity: 1)
            pointer.initialize(to: registry)
        }

        deinit {
            pointer.deinitialize(count: 1)
            pointer.deallocate()
        }

        var registry: StubRegistry {
            get { pointer.pointee }
            set { pointer.pointee = newValue }
        }

        /// The stubs by the path they match, built when an unmatched-request report first needs it.
        let pathIndex = Locked<PathIndex?>(nil)

        func change<Result>(_ change: (inout StubRegistry) -> Result) -> Result {
            pathIndex.withLock { $0 = nil }
            return change(&pointer.pointee)
        }

        func firstMatch(_ request: HTTPIncomingRequest, available: StubAvailability?) -> RegistryMatch? {
            StubRegistry.firstMatch(in: pointer, request, available: available)
        }
    }

    private var storage = Storage(StubRegistry())

    /// A copy of the registry (for reports and listings; the hot path uses the forwarding members).
    var registry: StubRegistry { storage.registry }

    /// `StubRegistry.firstMatch`, without copying the registry out of its box.
    func firstMatch(_ request: HTTPIncomingRequest, available: StubAvailability?) -> RegistryMatch? {
        storage.firstMatch(request, available: available)
    }

    var problemCount: Int { storage.registry.problemCount }
    var conditionalCount: Int { storage.registry.conditionalCount }
    var count: Int { storage.registry.count }

    /// The stubs worth comparing with a request that none matched (see `StubRegistry.reportCandidates`).
    func reportCandidates(for request: HTTPIncomingRequest, limit: Int) -> [RegisteredStub] {
        let index = storage.pathIndex.withLock { index in
            if let index { return index }
            let built = PathIndex(storage.registry.byID.values)
            index = built
            return built
        }
        return storage.registry.reportCandidates(for: request, nearestPaths: index, limit: limit)
    }

    /// Changes the registry, copying it first if a reader holds it. Call under the stubber's lock.
    mutating func update<Result>(_ change: (inout StubRegistry) -> Result) -> Result {
        if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(storage.registry)
        }
        return storage.change(change)
    }
}
