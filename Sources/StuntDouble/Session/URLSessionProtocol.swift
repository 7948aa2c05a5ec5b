import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a data task's completion handler receives: the data, the response and the error, any of them `nil`.
public typealias DataTaskCompletionHandler = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

/// The part of `URLSession` that completion-handler code uses, so that tests can inject a session that never
/// reaches the network.
///
/// ```swift
/// final class APIService {
///     var urlSession: URLSessionProtocol
///
///     init(urlSession: URLSessionProtocol = URLSession.shared) {
///         self.urlSession = urlSession
///     }
/// }
///
/// let service = APIService(urlSession: stubber.stubSession())   // in tests
/// ```
///
/// `URLSession` and ``HTTPStubSession`` conform. The completion handler is `@Sendable`, as `URLSession`'s
/// own is: it runs on another thread.
public protocol URLSessionProtocol {
    /// Creates a task that sends a request and calls a completion handler with the result; the task starts
    /// when you call its `resume()`.
    /// - Parameters:
    ///   - request: The request.
    ///   - completionHandler: Called once with the data, the response and the error.
    /// - Returns: The task.
    func dataTask(with request: URLRequest, completionHandler: @escaping DataTaskCompletionHandler)
        -> URLSessionDataTaskProtocol
}

/// A task that a ``URLSessionProtocol`` creates: it starts when resumed.
///
/// `URLSessionDataTask` and ``HTTPStubSessionDataTask`` conform.
public protocol URLSessionDataTaskProtocol {
    /// Starts (or continues) the task.
    func resume()
    /// Cancels the task: its completion handler receives `URLError(.cancelled)` unless it already ran.
    ///
    /// Types that only implement `resume()`, such as hand-written mocks, get an implementation that does
    /// nothing.
    func cancel()
}

extension URLSessionDataTaskProtocol {
    /// Does nothing: the conforming type cannot be cancelled.
    public func cancel() {}
}

extension URLSessionProtocol {
    /// Creates a task that gets a URL and calls a completion handler with the result.
    /// - Parameters:
    ///   - url: The URL.
    ///   - completionHandler: Called once with the data, the response and the error.
    /// - Returns: The task.
    public func dataTask(with url: URL, completionHandler: @escaping DataTaskCompletionHandler)
        -> URLSessionDataTaskProtocol
    {
        dataTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }
}

extension URLSessionDataTask: URLSessionDataTaskProtocol {}

extension URLSession: URLSessionProtocol {
    // Disfavoured: `URLSession` already has this method returning `URLSessionDataTask`, and two overloads
    // that differ only in their return type would make every `session.dataTask(with:) { ... }` in code that
    // imports StuntDouble ambiguous. This one serves the protocol; direct calls keep URLSession's own.
    /// Creates a data task, as `URLSession`'s own `dataTask(with:completionHandler:)` does, typed for
    /// ``URLSessionProtocol``.
    /// - Parameters:
    ///   - request: The request.
    ///   - completionHandler: Called once with the data, the response and the error.
    /// - Returns: The task.
    @_disfavoredOverload
    public func dataTask(with request: URLRequest, completionHandler: @escaping DataTaskCompletionHandler)
        -> URLSessionDataTaskProtocol
    {
        let task: URLSessionDataTask = dataTask(with: request, completionHandler: completionHandler)
        return task
    }
}
