import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an ``APIProvider`` request received: status, body, and the request and response behind them.
public final class Response: Sendable, Equatable, CustomStringConvertible {
    /// The status code.
    public let statusCode: Int
    /// The body.
    public let data: Data
    /// The request that was sent, when known.
    public let request: URLRequest?
    /// The HTTP response, when there is one.
    public let response: HTTPURLResponse?

    /// Creates a response.
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - data: The body.
    ///   - request: The request that was sent.
    ///   - response: The HTTP response.
    public init(statusCode: Int, data: Data, request: URLRequest? = nil, response: HTTPURLResponse? = nil) {
        self.statusCode = statusCode
        self.data = data
        self.request = request
        self.response = response
    }

    /// A description such as `Status Code: 200, Data Length: 42`.
    public var description: String {
        "Status Code: \(statusCode), Data Length: \(data.count)"
    }

    /// Compares status code, data and response.
    /// - Parameters:
    ///   - lhs: A response.
    ///   - rhs: Another response.
    /// - Returns: Whether they are equal.
    public static func == (lhs: Response, rhs: Response) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.data == rhs.data && lhs.response == rhs.response
    }

    // MARK: - Filtering

    /// The response if its status code is one code.
    /// - Parameter statusCode: The accepted code.
    /// - Returns: The response.
    /// - Throws: ``APIError`` with code ``APIError/Code/statusCode`` otherwise.
    public func filter(statusCode: Int) throws(APIError) -> Response {
        try filter(statusCodes: statusCode...statusCode)
    }

    /// The response if its status code is in a range.
    /// - Parameter statusCodes: The accepted codes.
    /// - Returns: The response.
    /// - Throws: ``APIError`` with code ``APIError/Code/statusCode`` otherwise.
    public func filter<Codes: RangeExpression>(statusCodes: Codes) throws(APIError) -> Response
    where Codes.Bound == Int {
        guard statusCodes.contains(statusCode) else {
            throw APIError(
                .statusCode,
                "The status code \(statusCode) of \(request?.url?.absoluteString ?? "the response") is not one the "
                    + "request accepts (\(statusCodes)).",
                response: self)
        }
        return self
    }

    /// The response if its status code is 200...299.
    /// - Returns: The response.
    /// - Throws: ``APIError`` with code ``APIError/Code/statusCode`` otherwise.
    public func filterSuccessfulStatusCodes() throws(APIError) -> Response {
        try filter(statusCodes: 200...299)
    }

    /// The response if its status code is 200...399.
    /// - Returns: The response.
    /// - Throws: ``APIError`` with code ``APIError/Code/statusCode`` otherwise.
    public func filterSuccessfulStatusAndRedirectCodes() throws(APIError) -> Response {
        try filter(statusCodes: 200...399)
    }

    // MARK: - Mapping

    /// The body decoded as a type, optionally from the value at a key path (`"data.user"`, `"items.0"`).
    /// - Parameters:
    ///   - type: The type.
    ///   - keyPath: Dot-separated object keys (or array indices) to the value to decode, or `nil` for the whole
    ///     body.
    ///   - decoder: The decoder.
    /// - Returns: The decoded value.
    /// - Throws: ``APIError`` with code ``APIError/Code/decoding`` naming the type and the problem.
    public func map<Value: Decodable>(
        _ type: Value.Type, atKeyPath keyPath: String? = nil, using decoder: JSONDecoder = JSONDecoder()
    )
        throws(APIError) -> Value
    {
        var data = self.data
        if let keyPath, !keyPath.isEmpty {
            let object: Any
            do {
                object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            } catch {
                throw APIError(
                    .decoding, "The body is not JSON, so \"\(keyPath)\" cannot be read: \(error).", response: self,
                    underlying: error)
            }
            var current: Any? = object
            for key in keyPath.split(separator: ".") {
                if let array = current as? [Any], let index = Int(key) {
                    current = array.indices.contains(index) ? array[index] : nil
                } else {
                    current = (current as? [String: Any])?[String(key)]
                }
            }
            guard let value = current, !(value is NSNull) else {
                throw APIError(.decoding, "The body has no value at the key path \"\(keyPath)\".", response: self)
            }
            do {
                data = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
            } catch {
                throw APIError(
                    .decoding, "The value at \"\(keyPath)\" cannot be re-encoded: \(error).", response: self,
                    underlying: error)
            }
        }
        do {
            return try decoder.decode(Value.self, from: data)
        } catch {
            throw APIError(
                .decoding,
                "The body did not decode as \(Value.self)\(keyPath.map { " at \"\($0)\"" } ?? ""): \(error).",
                response: self, underlying: error)
        }
    }

    /// The body as a JSON object (`[String: Any]`, `[Any]`, a string, a number ...).
    /// - Parameter failsOnEmptyData: Whether an empty body is an error (`true`) or `NSNull`.
    /// - Returns: The JSON value.
    /// - Throws: ``APIError`` with code ``APIError/Code/jsonMapping`` when the body is not JSON.
    public func mapJSON(failsOnEmptyData: Bool = true) throws(APIError) -> Any {
        if data.isEmpty, !failsOnEmptyData { return NSNull() }
        do {
            return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw APIError(.jsonMapping, "The body is not JSON: \(error).", response: self, underlying: error)
        }
    }

    /// The body as a UTF-8 string, or the string at a key path of a JSON body.
    /// - Parameter keyPath: Dot-separated object keys to a string value, or `nil` for the whole body.
    /// - Returns: The string.
    /// - Throws: ``APIError`` with code ``APIError/Code/stringMapping``.
    public func mapString(atKeyPath keyPath: String? = nil) throws(APIError) -> String {
        if let keyPath {
            do {
                return try map(String.self, atKeyPath: keyPath)
            } catch {
                throw APIError(
                    .stringMapping, "The body has no string at \"\(keyPath)\": \(error.message)", response: self)
            }
        }
        guard let string = String(data: data, encoding: .utf8) else {
            throw APIError(.stringMapping, "The body is not UTF-8 text (\(data.count) bytes).", response: self)
        }
        return string
    }
}
