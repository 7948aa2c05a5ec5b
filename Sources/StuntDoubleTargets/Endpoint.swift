import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a stubbed request answers.
public enum EndpointSampleResponse: Sendable {
    /// A status code and a body.
    case networkResponse(Int, Data)
    /// A full response and a body.
    case response(HTTPURLResponse, Data)
    /// An error: a timeout, no connection ...
    case networkError(any Error)
}

/// A target as a request: URL, method, body and headers, and its sample response for stubs.
///
/// ```swift
/// let endpointClosure = { (target: GitHub) -> Endpoint in
///     Endpoint(url: URL(target: target).absoluteString,
///              sampleResponseClosure: { .networkResponse(401, Data()) },
///              method: target.method,
///              task: target.task,
///              httpHeaderFields: target.headers)
/// }
/// ```
public struct Endpoint: Sendable {
    /// What a stubbed request answers, evaluated for each stubbed request.
    public typealias SampleResponseClosure = @Sendable () -> EndpointSampleResponse

    /// The URL.
    public let url: String
    /// What a stubbed request answers.
    public let sampleResponseClosure: SampleResponseClosure
    /// The HTTP method.
    public let method: HTTPMethod
    /// What the request carries.
    public let task: RequestTask
    /// Header fields.
    public let httpHeaderFields: [String: String]?

    /// Creates an endpoint.
    /// - Parameters:
    ///   - url: The URL.
    ///   - sampleResponseClosure: What a stubbed request answers.
    ///   - method: The HTTP method.
    ///   - task: What the request carries.
    ///   - httpHeaderFields: Header fields.
    public init(
        url: String, sampleResponseClosure: @escaping SampleResponseClosure, method: HTTPMethod, task: RequestTask,
        httpHeaderFields: [String: String]?
    ) {
        self.url = url
        self.sampleResponseClosure = sampleResponseClosure
        self.method = method
        self.task = task
        self.httpHeaderFields = httpHeaderFields
    }

    /// The endpoint with more header fields (which replace fields of the same name).
    /// - Parameter newHTTPHeaderFields: The fields to add.
    /// - Returns: The new endpoint.
    public func adding(newHTTPHeaderFields: [String: String]) -> Endpoint {
        var fields = httpHeaderFields ?? [:]
        for (name, value) in newHTTPHeaderFields {
            if let existing = fields.keys.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
                fields[existing] = nil
            }
            fields[name] = value
        }
        return Endpoint(
            url: url, sampleResponseClosure: sampleResponseClosure, method: method, task: task, httpHeaderFields: fields
        )
    }

    /// The endpoint with another task.
    /// - Parameter task: The new task.
    /// - Returns: The new endpoint.
    public func replacing(task: RequestTask) -> Endpoint {
        Endpoint(
            url: url, sampleResponseClosure: sampleResponseClosure, method: method, task: task,
            httpHeaderFields: httpHeaderFields)
    }
}
