/// The index bucket of a stub, from its most selective matcher.
package enum RoutingKey: Hashable, Sendable {
    /// No key: the stub is scanned for every request.
    case none
    /// Matches requests on one host (any path).
    case host(String)
    /// Matches requests whose path (any host) has this value, trailing slash removed.
    case path(String)
    /// A URI template whose literal prefix names a host (or any host, `nil`) and complete path segments.
    case template(host: String?, segments: [String])
    /// A regular expression anchored with `^` whose literal prefix holds these complete `/`-separated
    /// segments of the URL as written (`https:`, ``, `api.test`, ...).
    case urlPrefix(segments: [String])
    /// Matches requests on one host and path, trailing slash removed (`RequestRoute.hostPathKey`).
    case hostPath(String)
    /// Matches one exact URL (`RequestRoute.exactKey`).
    case exact(String)

    /// Higher is more selective.
    var selectivity: Int {
        switch self {
        case .none: 0
        case .host: 1
        case .path: 2
        case .template(let host, let segments): 2 + (host == nil ? 0 : 1) + min(segments.count, 10)
        case .urlPrefix(let segments): 1 + min(segments.count, 12)
        case .hostPath: 20
        case .exact: 30
        }
    }
}
