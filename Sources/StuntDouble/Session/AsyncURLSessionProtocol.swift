import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `async` part of `URLSession` (data and uploads), so that tests can inject a session that never reaches
/// the network.
///
/// ```swift
/// struct UserClient: Sendable {
///     var session: any AsyncURLSessionProtocol = URLSession.shared
///
///     func user(id: Int) async throws -> User {
///         let (data, _) = try await session.data(from: URL(string: "https://api.example.com/users/\(id)")!)
///         return try JSONDecoder().decode(User.self, from: data)
///     }
/// }
///
/// let client = UserClient(session: stubber.stubSession())   // in tests
/// ```
///
/// `URLSession` conforms with its own methods; ``HTTPStubSession`` answers from a stubber without
/// URLSession. The requirements have URLSession's signatures (a task delegate included); the extension adds
/// the forms without a delegate.
public protocol AsyncURLSessionProtocol: Sendable {
    /// Sends a request and returns the body and the response.
    /// - Parameters:
    ///   - request: The request.
    ///   - delegate: A task delegate, or `nil`.
    /// - Returns: The body and the response.
    /// - Throws: The request's error, such as a `URLError`.
    func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (Data, URLResponse)

    /// Gets a URL and returns the body and the response.
    /// - Parameters:
    ///   - url: The URL.
    ///   - delegate: A task delegate, or `nil`.
    /// - Returns: The body and the response.
    /// - Throws: The request's error, such as a `URLError`.
    func data(from url: URL, delegate: (any URLSessionTaskDelegate)?) async throws -> (Data, URLResponse)

    /// Uploads data with a request and returns the body and the response.
    /// - Parameters:
    ///   - request: The request (its own body is ignored).
    ///   - bodyData: The body to upload.
    ///   - delegate: A task delegate, or `nil`.
    /// - Returns: The body and the response.
    /// - Throws: The request's error, such as a `URLError`.
    func upload(for request: URLRequest, from bodyData: Data, delegate: (any URLSessionTaskDelegate)?) async throws
        -> (Data, URLResponse)

    /// Uploads a file with a request and returns the body and the response.
    /// - Parameters:
    ///   - request: The request (its own body is ignored).
    ///   - fileURL: The file to upload.
    ///   - delegate: A task delegate, or `nil`.
    /// - Returns: The body and the response.
    /// - Throws: The request's error, such as a `URLError`.
    func upload(for request: URLRequest, fromFile fileURL: URL, delegate: (any URLSessionTaskDelegate)?) async throws
        -> (Data, URLResponse)
}

extension AsyncURLSessionProtocol {
    /// Sends a request and returns the body and the response.
    /// - Parameter request: The request.
    /// - Returns: The body and the response.
    /// - Throws: The request's error, such as a `URLError`.
    public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await data(for: request, delegate: nil)
    }

    /// Gets a URL and returns the body and the response.
    /// - Parameter url: The URL.
    /// - Returns: The body and the response.
    /// - Throws: The request's error, such as a `URLError`.
    public func data(from url: URL) async throws -> (Data, URLResponse) {
        try await data(from: url, delegate: nil)
    }

    /// Uploads data with a request and returns the body and the response.
    /// - Parameters:
    ///   - request: The request (its own body is ignored).
    ///   - bodyData: The body to upload.
    /// - Returns: The body and the response.
    /// - Throws: The request's error, such as a `URLError`.
    public func upload(for request: URLRequest, from bodyData: Data) async throws -> (Data, URLResponse) {
        try await upload(for: request, from: bodyData, delegate: nil)
    }

    /// Uploads a file with a request and returns the body and the response.
    /// - Parameters:
    ///   - request: The request (its own body is ignored).
    ///   - fileURL: The file to upload.
    /// - Returns: The body and the response.
    /// - Throws: The request's error, such as a `URLError`.
    public func upload(for request: URLRequest, fromFile fileURL: URL) async throws -> (Data, URLResponse) {
        try await upload(for: request, fromFile: fileURL, delegate: nil)
    }
}

extension URLSession: AsyncURLSessionProtocol {}
