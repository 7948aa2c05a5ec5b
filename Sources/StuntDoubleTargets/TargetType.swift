import Foundation

@_exported import struct StuntDouble.HTTPMethod

/// An API endpoint described as a type: where it is, how to call it, and what it answers in tests.
///
/// ```swift
/// enum GitHub: TargetType {
///     case userRepositories(String)
///
///     var baseURL: URL { URL(string: "https://api.github.com")! }
///     var path: String {
///         switch self {
///         case .userRepositories(let name): "/users/\(name)/repos"
///         }
///     }
///     var sampleData: Data { Data(#"[{"name": "Repo Name"}]"#.utf8) }
/// }
/// ```
///
/// `method` (GET), `task` (no parameters), `headers` (none), `sampleData` (empty) and `validationType` (none)
/// have defaults.
public protocol TargetType: Sendable {
    /// The base URL, such as `https://api.github.com`.
    var baseURL: URL { get }
    /// The path appended to the base URL, such as `/users/mark/repos`.
    var path: String { get }
    /// The HTTP method; `GET` by default.
    var method: HTTPMethod { get }
    /// What the request carries: parameters, a body, files; nothing by default.
    var task: RequestTask { get }
    /// Header fields; none by default.
    var headers: [String: String]? { get }
    /// A sample of what the endpoint answers, for stubbed requests; empty by default.
    var sampleData: Data { get }
    /// Which status codes count as success (others fail with ``APIError/Code/statusCode``); none by default.
    var validationType: ValidationType { get }
}

extension TargetType {
    /// `GET`.
    public var method: HTTPMethod { .get }
    /// No parameters and no body.
    public var task: RequestTask { .requestPlain }
    /// No header fields.
    public var headers: [String: String]? { nil }
    /// No sample data.
    public var sampleData: Data { Data() }
    /// No validation: every status code is a response.
    public var validationType: ValidationType { .none }
}

extension URL {
    /// The URL of a target: its base URL with its path appended. A query in the path (`/search?q=x`) is kept
    /// as a query, after any query of the base URL.
    /// - Parameter target: The target.
    public init<Target: TargetType>(target: Target) {
        var path = Substring(target.path)
        var query: Substring?
        if let mark = path.firstIndex(of: "?") {
            query = path[path.index(after: mark)...]
            path = path[..<mark]
        }
        let base = path.isEmpty ? target.baseURL : target.baseURL.appendingPathComponent(String(path))
        guard let query, !query.isEmpty, var components = URLComponents(url: base, resolvingAgainstBaseURL: false)
        else {
            self = base
            return
        }
        let existing = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 + "&" } ?? ""
        components.percentEncodedQuery = existing + query
        self = components.url ?? base
    }
}

/// Which status codes a response may have; other codes fail with ``APIError/Code/statusCode``.
public enum ValidationType: Hashable, Sendable {
    /// Any status code.
    case none
    /// 200 to 299.
    case successCodes
    /// 200 to 399.
    case successAndRedirectCodes
    /// These codes.
    case customCodes([Int])

    /// The accepted codes, or `nil` for any.
    var statusCodes: [Int]? {
        switch self {
        case .none: nil
        case .successCodes: Array(200..<300)
        case .successAndRedirectCodes: Array(200..<400)
        case .customCodes(let codes): codes
        }
    }
}

/// Whether a target's request is stubbed, and how.
public enum StubBehavior: Hashable, Sendable {
    /// A real request.
    case never
    /// The endpoint's sample response, at once.
    case immediate
    /// The endpoint's sample response, after a delay in seconds.
    case delayed(seconds: TimeInterval)
}
