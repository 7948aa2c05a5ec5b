import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The error of an ``APIProvider`` request: what went wrong, and what to do.
///
/// Compare by ``code``; ``response`` and ``underlyingError`` hold what there is to inspect.
public struct APIError: Error, Sendable, CustomStringConvertible {
    /// The kind of problem.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case underlying, statusCode, decoding, encoding, requestMapping, stringMapping, jsonMapping
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The code's name.
        public var description: String { base.rawValue }

        /// The transport failed (no connection, a timeout, a cancellation ...): see ``APIError/underlyingError``.
        public static let underlying = Code(.underlying)
        /// The status code is not one the target's validation accepts.
        public static let statusCode = Code(.statusCode)
        /// The response's data did not decode as the requested type.
        public static let decoding = Code(.decoding)
        /// A request parameter or body did not encode.
        public static let encoding = Code(.encoding)
        /// The endpoint could not become a `URLRequest` (an invalid URL, an unreadable file ...).
        public static let requestMapping = Code(.requestMapping)
        /// The response's data is not a string in the expected encoding.
        public static let stringMapping = Code(.stringMapping)
        /// The response's data is not JSON.
        public static let jsonMapping = Code(.jsonMapping)
    }

    /// The kind of problem.
    public let code: Code
    /// What went wrong and what to do, for a person to read.
    public let message: String
    /// The response, when there is one.
    public let response: Response?
    /// The error that caused this one, such as a `URLError`.
    public let underlyingError: (any Error)?

    /// Creates an error, for plugins that turn a result into a failure and for test doubles.
    /// - Parameters:
    ///   - code: The kind of problem.
    ///   - message: What went wrong and what to do.
    ///   - response: The response, when there is one.
    ///   - underlying: The error that caused this one.
    public init(_ code: Code, _ message: String, response: Response? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.response = response
        self.underlyingError = underlying
    }

    /// The message.
    public var description: String { message }

    /// Whether the request was cancelled.
    public var isCancellation: Bool {
        (underlyingError as? URLError)?.code == .cancelled || underlyingError is CancellationError
    }

    static func transport(_ error: any Error, request: URLRequest?) -> APIError {
        if let error = error as? APIError { return error }
        let url = request?.url?.absoluteString ?? "the endpoint"
        return APIError(.underlying, "The request to \(url) failed: \(error)", underlying: error)
    }
}

extension APIError: LocalizedError {
    /// The message, so that `localizedDescription` is readable too.
    public var errorDescription: String? { message }
}
