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

    /// Encodes parameters: optionals are unwrapped and `nil` values left out, whatever the encoding; JSON
    /// parameters always make a body (`{}` when there are none).
    private func encode(
        _ parameters: [String: any Sendable], with encoding: ParameterEncoding, into request: inout URLRequest
    ) throws(APIError) {
        if encoding == .json {
            let object = FormEncoding.compacted(parameters as [String: Any]) ?? [String: Any]()
            guard JSONSerialization.isValidJSONObject(object) else {
                throw APIError(
                    .encoding,
                    "The parameters \(parameters) cannot be encoded as JSON: use strings, numbers, booleans, arrays "
                        + "and dictionaries of them.")
            }
            do {
                request.httpBody = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            } catch {
                throw APIError(.encoding, "The parameters did not encode as JSON: \(error).", underlying: error)
            }
            setIfAbsent("application/json", for: "Content-Type", in: &request)
            return
        }
        guard !parameters.isEmpty else { return }
        let inQuery: Bool
        switch encoding {
        case .queryString: inQuery = true
        case .httpBody, .json: inQuery = false
        case .methodDependent: inQuery = [.get, .head, .delete].contains(method)
        }
        let query = FormEncoding.query(parameters)
        guard inQuery else {
            request.httpBody = Data(query.utf8)
            setIfAbsent("application/x-www-form-urlencoded; charset=utf-8", for: "Content-Type", in: &request)
            return
        }
        guard !query.isEmpty else { return }
        guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw APIError(.encoding, "The parameters cannot be added to the URL \(request.url?.absoluteString ?? "").")
        }
        let existing = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 + "&" } ?? ""
        components.percentEncodedQuery = existing + query
        guard let withQuery = components.url else {
            throw APIError(.encoding, "The parameters \(query) do not make a valid URL with \(url.absoluteString).")
        }
        request.url = withQuery
    }

    private func encodeMultipart(_ parts: [MultipartFormBodyPart], into request: inout URLRequest) throws(APIError) {
        let boundary = "stuntdouble.boundary.\(UUID().uuidString)"
        var body = Data()
        for part in parts {
            let data: Data
            var fileName = part.fileName
            var mimeType = part.mimeType
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
                // A file part without a name takes its file's name and a type from its extension, as servers
                // expect of an upload.
                fileName = fileName ?? file.lastPathComponent
                mimeType = mimeType ?? FormEncoding.mimeType(forExtension: file.pathExtension)
            }
            var disposition = "Content-Disposition: form-data; name=\"\(FormEncoding.quoted(part.name))\""
            if let fileName {
                disposition += "; filename=\"\(FormEncoding.quoted(fileName))\""
            }
            body.append(Data("--\(boundary)\r\n\(disposition)\r\n".utf8))
            if let mimeType {
                body.append(Data("Content-Type: \(FormEncoding.headerValue(mimeType))\r\n".utf8))
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
/// `key[sub]=`, booleans as `true`/`false`, optionals unwrapped and `nil` values left out.
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

    /// The value inside an optional, or `nil` for `.none`; any other value as it is.
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }

    /// Parameters as JSON-serializable values: optionals unwrapped and `nil` values left out, as in queries.
    static func compacted(_ value: Any) -> Any? {
        guard let value = unwrapped(value) else { return nil }
        switch value {
        case let dictionary as [String: Any]:
            return dictionary.compactMapValues { compacted($0) }
        case let array as [Any]:
            return array.compactMap { compacted($0) }
        default:
            return value
        }
    }

    private static func pairs(_ key: String, _ rawValue: Any) -> [(String, String)] {
        guard let value = unwrapped(rawValue) else { return [] }
        switch value {
        case let dictionary as [String: Any]:
            return dictionary.sorted { $0.key < $1.key }.flatMap { pairs("\(key)[\($0.key)]", $0.value) }
        case let array as [Any]:
            return array.flatMap { pairs("\(key)[]", $0) }
        default:
            #if canImport(Darwin)
            // On Apple platforms a number from JSON is an NSNumber, which would also read as a Bool.
            if let number = value as? NSNumber, CFGetTypeID(number) != CFBooleanGetTypeID() {
                return [(key, number.stringValue)]
            }
            #endif
            if let bool = value as? Bool {
                return [(key, bool ? "true" : "false")]
            }
            return [(key, "\(value)")]
        }
    }

    /// A value for a quoted header parameter.
    static func quoted(_ string: String) -> String {
        headerValue(string).replacingOccurrences(of: "\"", with: "%22")
    }

    /// A header value with line breaks encoded, so that it cannot start another header.
    static func headerValue(_ string: String) -> String {
        string.replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    static func mimeType(forExtension pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "json": "application/json"
        case "txt", "text": "text/plain"
        case "html", "htm": "text/html"
        case "csv": "text/csv"
        case "xml": "application/xml"
        case "pdf": "application/pdf"
        case "zip": "application/zip"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "heic": "image/heic"
        case "svg": "image/svg+xml"
        case "mp3": "audio/mpeg"
        case "mp4": "video/mp4"
        case "mov": "video/quicktime"
        default: "application/octet-stream"
        }
    }
}
