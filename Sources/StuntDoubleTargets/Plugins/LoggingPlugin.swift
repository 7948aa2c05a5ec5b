import Foundation
import Logging

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Logs every request and its result with swift-log: the request at `debug`, a response at `info` (or
/// `warning` for 4xx and 5xx), a failure at `error`. Metadata: `http.method`, `http.url`, `http.status_code`,
/// `http.response_size`, `error`.
public struct LoggingPlugin: PluginType {
    private let logger: Logger
    private let logsBodies: Bool

    /// Creates the plugin.
    /// - Parameters:
    ///   - logger: The logger.
    ///   - logsBodies: Whether to log request and response bodies (as UTF-8 text, when they are) at `trace`.
    public init(logger: Logger = Logger(label: "StuntDoubleTargets"), logsBodies: Bool = false) {
        self.logger = logger
        self.logsBodies = logsBodies
    }

    /// Logs the request.
    /// - Parameters:
    ///   - request: The request.
    ///   - target: The target.
    public func willSend(_ request: URLRequest, target: any TargetType) {
        let metadata: Logger.Metadata = [
            "http.method": "\(request.httpMethod ?? "GET")", "http.url": "\(request.url?.absoluteString ?? "")",
        ]
        logger.debug("sending \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")", metadata: metadata)
        if logsBodies, let body = request.httpBody {
            logger.trace(
                "request body: \(String(data: body, encoding: .utf8) ?? "\(body.count) bytes")", metadata: metadata)
        }
    }

    /// Logs the result.
    /// - Parameters:
    ///   - result: The result.
    ///   - target: The target.
    public func didReceive(_ result: Result<Response, APIError>, target: any TargetType) {
        switch result {
        case .success(let response):
            let url = response.request?.url?.absoluteString ?? URL(target: AnyTarget(target)).absoluteString
            let metadata: Logger.Metadata = [
                "http.url": "\(url)", "http.status_code": "\(response.statusCode)",
                "http.response_size": "\(response.data.count)",
            ]
            let message: Logger.Message = "received \(response.statusCode) from \(url)"
            if response.statusCode >= 400 {
                logger.warning(message, metadata: metadata)
            } else {
                logger.info(message, metadata: metadata)
            }
            if logsBodies {
                logger.trace(
                    "response body: \(String(data: response.data, encoding: .utf8) ?? "\(response.data.count) bytes")",
                    metadata: metadata)
            }
        case .failure(let error):
            logger.error(
                "request to \(URL(target: AnyTarget(target)).absoluteString) failed: \(error.message)",
                metadata: ["error": "\(error.code)", "http.url": "\(URL(target: AnyTarget(target)).absoluteString)"])
        }
    }
}

/// A target of any type, to use APIs that take a concrete ``TargetType``.
struct AnyTarget: TargetType {
    let base: any TargetType

    init(_ base: any TargetType) {
        self.base = base
    }

    var baseURL: URL { base.baseURL }
    var path: String { base.path }
}
