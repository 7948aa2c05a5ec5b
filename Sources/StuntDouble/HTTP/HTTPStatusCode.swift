/// An HTTP response status code, such as `200` or `404`.
///
/// Status codes form an open set: any integer literal is a status code (`let code: HTTPStatusCode = 299`).
/// StuntDouble accepts codes from 100 to 599 in responses and reports any other code as an invalid response.
public struct HTTPStatusCode: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The numeric code.
    public let rawValue: Int

    /// Creates a status code from its number.
    /// - Parameter rawValue: The numeric code.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Creates a status code from an integer literal.
    /// - Parameter value: The numeric code.
    public init(integerLiteral value: Int) {
        self.rawValue = value
    }

    /// The code and its reason phrase, such as `404 Not Found`.
    public var description: String {
        let phrase = reasonPhrase
        return phrase.isEmpty ? "\(rawValue)" : "\(rawValue) \(phrase)"
    }

    /// The standard reason phrase for the code (RFC 9110), or an empty string for an unregistered code.
    public var reasonPhrase: String {
        Self.reasonPhrases[rawValue] ?? ""
    }

    /// Whether the code is in the 2xx range.
    public var isSuccess: Bool { (200..<300).contains(rawValue) }

    /// Whether the code is a redirection that carries a `Location` (301, 302, 303, 307 or 308).
    public var isRedirect: Bool { [301, 302, 303, 307, 308].contains(rawValue) }

    /// Orders codes by their number.
    /// - Parameters:
    ///   - lhs: A status code.
    ///   - rhs: Another status code.
    /// - Returns: Whether `lhs` has the smaller number.
    public static func < (lhs: HTTPStatusCode, rhs: HTTPStatusCode) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// 100 Continue.
    public static let `continue`: HTTPStatusCode = 100
    /// 101 Switching Protocols.
    public static let switchingProtocols: HTTPStatusCode = 101
    /// 200 OK.
    public static let ok: HTTPStatusCode = 200
    /// 201 Created.
    public static let created: HTTPStatusCode = 201
    /// 202 Accepted.
    public static let accepted: HTTPStatusCode = 202
    /// 203 Non-Authoritative Information.
    public static let nonAuthoritativeInformation: HTTPStatusCode = 203
    /// 204 No Content.
    public static let noContent: HTTPStatusCode = 204
    /// 205 Reset Content.
    public static let resetContent: HTTPStatusCode = 205
    /// 206 Partial Content.
    public static let partialContent: HTTPStatusCode = 206
    /// 300 Multiple Choices.
    public static let multipleChoices: HTTPStatusCode = 300
    /// 301 Moved Permanently.
    public static let movedPermanently: HTTPStatusCode = 301
    /// 302 Found.
    public static let found: HTTPStatusCode = 302
    /// 303 See Other.
    public static let seeOther: HTTPStatusCode = 303
    /// 304 Not Modified.
    public static let notModified: HTTPStatusCode = 304
    /// 307 Temporary Redirect.
    public static let temporaryRedirect: HTTPStatusCode = 307
    /// 308 Permanent Redirect.
    public static let permanentRedirect: HTTPStatusCode = 308
    /// 400 Bad Request.
    public static let badRequest: HTTPStatusCode = 400
    /// 401 Unauthorized.
    public static let unauthorized: HTTPStatusCode = 401
    /// 402 Payment Required.
    public static let paymentRequired: HTTPStatusCode = 402
    /// 403 Forbidden.
    public static let forbidden: HTTPStatusCode = 403
    /// 404 Not Found.
    public static let notFound: HTTPStatusCode = 404
    /// 405 Method Not Allowed.
    public static let methodNotAllowed: HTTPStatusCode = 405
    /// 406 Not Acceptable.
    public static let notAcceptable: HTTPStatusCode = 406
    /// 408 Request Timeout.
    public static let requestTimeout: HTTPStatusCode = 408
    /// 409 Conflict.
    public static let conflict: HTTPStatusCode = 409
    /// 410 Gone.
    public static let gone: HTTPStatusCode = 410
    /// 411 Length Required.
    public static let lengthRequired: HTTPStatusCode = 411
    /// 412 Precondition Failed.
    public static let preconditionFailed: HTTPStatusCode = 412
    /// 413 Content Too Large.
    public static let contentTooLarge: HTTPStatusCode = 413
    /// 415 Unsupported Media Type.
    public static let unsupportedMediaType: HTTPStatusCode = 415
    /// 416 Range Not Satisfiable.
    public static let rangeNotSatisfiable: HTTPStatusCode = 416
    /// 418 I'm a teapot.
    public static let imATeapot: HTTPStatusCode = 418
    /// 422 Unprocessable Content.
    public static let unprocessableContent: HTTPStatusCode = 422
    /// 425 Too Early.
    public static let tooEarly: HTTPStatusCode = 425
    /// 428 Precondition Required.
    public static let preconditionRequired: HTTPStatusCode = 428
    /// 429 Too Many Requests.
    public static let tooManyRequests: HTTPStatusCode = 429
    /// 431 Request Header Fields Too Large.
    public static let requestHeaderFieldsTooLarge: HTTPStatusCode = 431
    /// 500 Internal Server Error.
    public static let internalServerError: HTTPStatusCode = 500
    /// 501 Not Implemented.
    public static let notImplemented: HTTPStatusCode = 501
    /// 502 Bad Gateway.
    public static let badGateway: HTTPStatusCode = 502
    /// 503 Service Unavailable.
    public static let serviceUnavailable: HTTPStatusCode = 503
    /// 504 Gateway Timeout.
    public static let gatewayTimeout: HTTPStatusCode = 504

    private static let reasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
        205: "Reset Content", 206: "Partial Content",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
        408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
        413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type",
        416: "Range Not Satisfiable", 417: "Expectation Failed", 418: "I'm a teapot", 421: "Misdirected Request",
        422: "Unprocessable Content", 425: "Too Early", 426: "Upgrade Required", 428: "Precondition Required",
        429: "Too Many Requests", 431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported",
    ]
}
