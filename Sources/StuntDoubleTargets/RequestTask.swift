import Foundation

/// What a request carries: nothing, a body, parameters, or files.
///
/// (Named `RequestTask` so that it never shadows Swift's `Task`.)
public enum RequestTask: Sendable {
    /// No body and no parameters.
    case requestPlain
    /// This body.
    case requestData(Data)
    /// A value encoded as JSON (`Content-Type: application/json`).
    case requestJSONEncodable(any Encodable & Sendable)
    /// A value encoded as JSON with a given encoder.
    case requestCustomJSONEncodable(any Encodable & Sendable, encoder: JSONEncoder)
    /// Parameters, encoded in the URL's query, as JSON or as a form.
    case requestParameters(parameters: [String: any Sendable], encoding: ParameterEncoding)
    /// A body, and parameters in the URL's query.
    case requestCompositeData(bodyData: Data, urlParameters: [String: any Sendable])
    /// Parameters in the body, and parameters in the URL's query.
    case requestCompositeParameters(
        bodyParameters: [String: any Sendable], bodyEncoding: ParameterEncoding, urlParameters: [String: any Sendable])
    /// A multipart/form-data body.
    case uploadMultipart([MultipartFormBodyPart])
    /// A multipart/form-data body, and parameters in the URL's query.
    case uploadCompositeMultipart([MultipartFormBodyPart], urlParameters: [String: any Sendable])
}

/// How parameters are encoded.
public enum ParameterEncoding: Hashable, Sendable {
    /// In the URL's query for GET, HEAD and DELETE, and as a form body otherwise.
    case methodDependent
    /// In the URL's query (`?a=1&b=2`).
    case queryString
    /// As a form body (`application/x-www-form-urlencoded`).
    case httpBody
    /// As a JSON body (`application/json`).
    case json
}

/// One part of a multipart/form-data body.
public struct MultipartFormBodyPart: Sendable {
    /// Where a part's bytes come from.
    public enum Provider: Sendable {
        /// These bytes.
        case data(Data)
        /// The contents of this file, read when the request is built.
        case file(URL)
    }

    /// The bytes.
    public var provider: Provider
    /// The form field's name.
    public var name: String
    /// The file name to send, or `nil` for a plain field.
    public var fileName: String?
    /// The part's content type, or `nil`.
    public var mimeType: String?

    /// Creates a part.
    /// - Parameters:
    ///   - provider: The bytes.
    ///   - name: The form field's name.
    ///   - fileName: The file name to send, or `nil` for a plain field.
    ///   - mimeType: The part's content type, or `nil`.
    public init(provider: Provider, name: String, fileName: String? = nil, mimeType: String? = nil) {
        self.provider = provider
        self.name = name
        self.fileName = fileName
        self.mimeType = mimeType
    }
}
