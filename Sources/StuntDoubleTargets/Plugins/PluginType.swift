import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Takes part in every request of a provider, stubbed or real: change the request, watch it go, watch and
/// change the result.
public protocol PluginType: Sendable {
    /// Changes the request before it is sent (add a header, sign it ...); returns it unchanged by default.
    /// - Parameters:
    ///   - request: The request.
    ///   - target: The target.
    /// - Returns: The request to send.
    func prepare(_ request: URLRequest, target: any TargetType) -> URLRequest
    /// Called just before the request is sent (or stubbed).
    /// - Parameters:
    ///   - request: The request.
    ///   - target: The target.
    func willSend(_ request: URLRequest, target: any TargetType)
    /// Called with the result, before ``process(_:target:)``.
    /// - Parameters:
    ///   - result: The result.
    ///   - target: The target.
    func didReceive(_ result: Result<Response, APIError>, target: any TargetType)
    /// Changes the result before the caller gets it; returns it unchanged by default.
    /// - Parameters:
    ///   - result: The result.
    ///   - target: The target.
    /// - Returns: The result for the caller.
    func process(_ result: Result<Response, APIError>, target: any TargetType) -> Result<Response, APIError>
}

extension PluginType {
    /// Returns the request unchanged.
    /// - Parameters:
    ///   - request: The request.
    ///   - target: The target.
    /// - Returns: The request.
    public func prepare(_ request: URLRequest, target: any TargetType) -> URLRequest { request }
    /// Does nothing.
    /// - Parameters:
    ///   - request: The request.
    ///   - target: The target.
    public func willSend(_ request: URLRequest, target: any TargetType) {}
    /// Does nothing.
    /// - Parameters:
    ///   - result: The result.
    ///   - target: The target.
    public func didReceive(_ result: Result<Response, APIError>, target: any TargetType) {}
    /// Returns the result unchanged.
    /// - Parameters:
    ///   - result: The result.
    ///   - target: The target.
    /// - Returns: The result.
    public func process(_ result: Result<Response, APIError>, target: any TargetType) -> Result<Response, APIError> {
        result
    }
}

/// Adds `Authorization: Bearer <token>` to every request, with a token from a closure (which returns `nil`
/// for targets that need none).
///
/// ```swift
/// let provider = APIProvider<GitHub>(plugins: [AccessTokenPlugin { _ in keychain.token }])
/// ```
public struct AccessTokenPlugin: PluginType {
    /// Returns the token for a target, or `nil` for none.
    public typealias TokenClosure = @Sendable (any TargetType) -> String?

    private let tokenClosure: TokenClosure

    /// Creates the plugin.
    /// - Parameter tokenClosure: Returns the token for a target, or `nil` for none.
    public init(tokenClosure: @escaping TokenClosure) {
        self.tokenClosure = tokenClosure
    }

    /// Adds the Authorization header when the closure gives a token.
    /// - Parameters:
    ///   - request: The request.
    ///   - target: The target.
    /// - Returns: The request, with the header.
    public func prepare(_ request: URLRequest, target: any TargetType) -> URLRequest {
        guard let token = tokenClosure(target) else { return request }
        var request = request
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }
}
