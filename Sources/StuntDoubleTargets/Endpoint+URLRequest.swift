import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Endpoint {
    /// The endpoint as a `URLRequest`: URL, method, headers, and the task's parameters and body.
    /// - Returns: The request.
    /// - Throws: ``APIError`` with code ``APIError/Code/requestMapping`` for a URL that is not a URL or a file
    ///   that cannot be read, or ``APIError/Code/encoding`` for parameters or a body that do not encode.
    public func urlRequest() throws(APIError) -> URLRequest {
        guard let requestURL = URL(string: url), requestURL.scheme != nil else {
            throw APIError(
                .requestMapping,
                "The endpoint's URL \"\(url)\" is not a URL; give the target an absolute base URL such as "
                    + "https://api.example.com.")
        }
        var request = URLRequest(url: requestURL)
        request.httpMethod = method.rawValue
        for (name, value) in httpHeaderFields ?? [:] {
            request.setValue(value, forHTTPHeaderField: name)
        }
        switch task {
        case .requestPlain:
            break
        case .requestData(let data):
            request.httpBody = data
        case .requestJSONEncodable(let value):
            try encodeJSON(value, with: JSONEncoder(), into: &request)
        case .requestCustomJSONEncodable(let value, let encoder):
            try encodeJSON(value, with: encoder, into: &request)
        case .requestParameters(let parameters, let encoding):
            try encode(parameters, with: encoding, into: &request)
        case .requestCompositeData(let bodyData, let urlParameters):
            try encode(urlParameters, with: .queryString, into: &request)
            request.httpBody = bodyData
        case .requestCompositeParameters(let bodyParameters, let bodyEncoding, let urlParameters):
            guard bodyEncoding != .queryString else {
                throw APIError(
                    .encoding,
                    "requestCompositeParameters needs a body encoding for its body parameters (.httpBody or .json), "
                        + "not .queryString.")
            }
            try encode(urlParameters, with: .queryString, into: &request)
            try encode(
                bodyParameters, with: bodyEncoding == .methodDependent ? .httpBody : bodyEncoding, into: &request)
        case .uploadMultipart(let parts):
            try encodeMultipart(parts, into: &request)
        case .uploadCompositeMultipart(let parts, let urlParameters):
            try encode(urlParameters, with: .queryString, into: &request)
            try encodeMultipart(parts, into: &request)
        }
        return request
    }

    private func encodeJSON(_ value: any Encodable, with encoder: JSONEncoder, into request: inout URLRequest)
        throws(APIError)
    {
        do {
            request.httpBody = try encoder.encode(value)
        } catch {
            throw APIError(
                .encoding, "The request body of type \(type(of: value)) did not encode as JSON: \(error).",
                underlying: error)
        }
        setIfAbsent("application/json", for: "Content-Type", in: &request)
    }

    private func encode(
        _ parameters: [String: any Sendable], with encoding: ParameterEncoding, into request: inout URLRequest
    )
        throws(APIError)
    {
        guard !parameters.isEmpty else { return }
        let inQuery: Bool
        switch encoding {
        case .queryString: inQuery = true
        case .httpBody, .json: inQuery = false
        case .methodDependent: inQuery = [.get, .head, .delete].contains(method)
        }
        if encoding == .json {
            guard JSONSerialization.isValidJSONObject(parameters as [String: Any]) else {
                throw APIError(
                    .encoding,
                    "The parameters \(parameters) cannot be encoded as JSON: use strings, numbers, booleans, arrays "
                        + "and dictionaries of them.")
            }
            do {
                request.httpBody = try JSONSerialization.data(
                    withJSONObject: parameters as [String: Any], options: [.sortedKeys])
            } catch {
                throw APIError(.encoding, "The parameters did not encode as JSON: \(error).", underlying: error)
            }
            setIfAbsent("application/json", for: "Content-Type", in: &request)
            return
        }
        let query = FormEncoding.query(parameters)
        if inQuery {
            guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                return
            }
            let existing = components.percentEncodedQuery.map { $0 + "&" } ?? ""
            components.percentEncodedQuery = existing + query
            request.url = components.url ?? url
        } else {
            request.httpBody = Data(query.utf8)
            setIfAbsent("application/x-www-form-urlencoded; charset=utf-8", for: "Content-Type", in: &request)
        }
    }

    private func encodeMultipart(_ parts: [MultipartFormBodyPart], into request: inout URLRequest) throws(APIError) {
        let boundary = "stuntdouble.boundary.\(UUID().uuidString)"
        var body = Data()
        for part in parts {
            let data: Data
            switch part.provider {
            case .data(let bytes):
                data = bytes
            case .file(let file):
                do {
                    data = try Data(contentsOf: file)
                } catch {
                    throw APIError(
                        .requestMapping,
                        "The multipart file \(file.path) for \"\(part.name)\" cannot be read: \(error).",
                        underlying: error)
                }
            }
            var disposition = "Content-Disposition: form-data; name=\"\(FormEncoding.quoted(part.name))\""
            if let fileName = part.fileName {
                disposition += "; filename=\"\(FormEncoding.quoted(fileName))\""
            }
            body.append(Data("--\(boundary)\r\n\(disposition)\r\n".utf8))
            if let mimeType = part.mimeType {
                body.append(Data("Content-Type: \(mimeType)\r\n".utf8))
            }
            body.append(Data("\r\n".utf8))
            body.append(data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        request.httpBody = body
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
    }

    private func setIfAbsent(_ value: String, for name: String, in request: inout URLRequest) {
        if request.value(forHTTPHeaderField: name) == nil {
            request.setValue(value, forHTTPHeaderField: name)
        }
    }
}

/// `application/x-www-form-urlencoded` and query encoding: keys sorted, arrays as `key[]=`, dictionaries as
/// `key[sub]=`, booleans as `true`/`false`.
enum FormEncoding {
    private static let allowed: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._~")
        return set
    }()

    static func escape(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: allowed) ?? string
    }

    static func query(_ parameters: [String: any Sendable]) -> String {
        parameters.sorted { $0.key < $1.key }.flatMap { pairs($0.key, $0.value) }
            .map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    private static func pairs(_ key: String, _ value: Any) -> [(String, String)] {
        switch value {
        case let dictionary as [String: Any]:
            return dictionary.sorted { $0.key < $1.key }.flatMap { pairs("\(key)[\($0.key)]", $0.value) }
        case let array as [Any]:
            return array.flatMap { pairs("\(key)[]", $0) }
        case let bool as Bool:
            return [(key, bool ? "true" : "false")]
        case Optional<Any>.none:
            return []
        default:
            return [(key, "\(value)")]
        }
    }

    /// A value for a quoted header parameter.
    static func quoted(_ string: String) -> String {
        string.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "")
            .replacingOccurrences(
                of: "\n", with: "")
    }
}
