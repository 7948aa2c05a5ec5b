/// The stubs by the path they match (for those whose index key names one), sorted: the stubs whose paths
/// share the longest beginning with a request's path sit next to where that path would be.
struct PathIndex: Sendable {
    private let entries: [(path: String, entry: RegisteredStub)]

    init(_ stubs: some Sequence<RegisteredStub>) {
        entries = stubs.compactMap { entry in entry.routing.path.map { ($0, entry) } }.sorted { $0.path < $1.path }
    }

    /// Up to `count` stubs on each side of where `path` sorts.
    func nearest(to path: String, count: Int) -> ArraySlice<(path: String, entry: RegisteredStub)> {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].path < path { low = middle + 1 } else { high = middle }
        }
        return entries[max(0, low - count)..<min(entries.count, low + count)]
    }
}

extension RoutingKey {
    /// The path (or the beginning of a path) that a stub with this key matches, when the key names one.
    var path: String? {
        switch self {
        case .exact(let key):
            // scheme://authority/path?query
            guard let schemeEnd = key.range(of: "://") else { return nil }
            let rest = key[schemeEnd.upperBound...]
            guard let slash = rest.firstIndex(of: "/") else { return "/" }
            return String(rest[slash...].prefix { $0 != "?" })
        case .hostPath(let key):
            return key.firstIndex(of: "/").map { String(key[$0...]) } ?? "/"
        case .path(let path):
            return path
        case .template(_, let segments):
            return "/" + segments.joined(separator: "/")
        case .urlPrefix(let segments):
            // `https:`, ``, `api.test`, then the path's segments.
            return segments.count >= 3 ? "/" + segments.dropFirst(3).joined(separator: "/") : nil
        case .host, .none:
            return nil
        }
    }
}

extension StubRegistry {
    /// The stubs worth comparing with a request that no stub matched, for its report: those in the index
    /// buckets the request reaches (same URL, host and path, path, host, template or pattern prefix: a stub that
    /// differs in method, headers or body), those whose paths sort nearest the request's, and the stubs without
    /// a key of highest precedence; at most `limit` of them, in no particular order. So a report costs about
    /// the same with 10 stubs or 10,000, and an unmatched request about what a matched one does.
    func reportCandidates(for request: HTTPIncomingRequest, nearestPaths: PathIndex, limit: Int)
        -> [RegisteredStub]
    {
        if count <= limit { return Array(byID.values) }
        var chosen: [RegisteredStub] = []
        var seen = Set<UInt64>()
        func take(_ entry: RegisteredStub) {
            if chosen.count < limit, seen.insert(entry.stub.id).inserted { chosen.append(entry) }
        }
        let route = request.route
        var buckets: [Bucket] = []
        if let bucket = exact[route.exactKey] { buckets.append(bucket) }
        if let bucket = hostPath[route.hostPathKey] { buckets.append(bucket) }
        if let bucket = paths[route.pathKey] { buckets.append(bucket) }
        if let bucket = hosts[route.host] { buckets.append(bucket) }
        hostTemplates[route.host]?.collect(path: route.pathSlice, into: &buckets)
        anyHostTemplates.collect(path: route.pathSlice, into: &buckets)
        urlPrefixes.collect(segmentsOf: Substring(request.matchableURLString), into: &buckets)
        // A third of the places for each kind of candidate (what one kind leaves, the next may use).
        let share = max(1, limit / 3)
        for bucket in buckets {
            for entry in bucket.entries.reversed().prefix(share) { take(entry) }
        }
        for (_, entry) in nearestPaths.nearest(to: route.path, count: share / 2 + 1) { take(entry) }
        for entry in scan.entries.reversed().prefix(share) { take(entry) }
        return chosen
    }

    /// Every problem of every stub (stubs that can never match), for reports; nothing to look at while no stub
    /// has one.
    var problems: [HTTPStubberError] {
        problemCount == 0 ? [] : inPrecedenceOrder.flatMap { $0.definition.problems }
    }
}
