/// A media type for the `Content-Type` header, such as `application/json`.
///
/// Content types form an open set: any string literal is a content type (`let csv: HTTPContentType =
/// "text/csv; charset=utf-8"`).
public struct HTTPContentType: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The header value, such as `application/json`.
    public let rawValue: String

    /// Creates a content type from its header value.
    /// - Parameter rawValue: The header value, such as `"image/png"`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a content type from a string literal.
    /// - Parameter value: The header value.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The header value.
    public var description: String { rawValue }

    /// `application/json`.
    public static let json: HTTPContentType = "application/json"
    /// `application/json; charset=utf-8`.
    public static let jsonUTF8: HTTPContentType = "application/json; charset=utf-8"
    /// `application/xml`.
    public static let xml: HTTPContentType = "application/xml"
    /// `text/plain`.
    public static let text: HTTPContentType = "text/plain"
    /// `text/html`.
    public static let html: HTTPContentType = "text/html"
    /// `text/css`.
    public static let css: HTTPContentType = "text/css"
    /// `text/csv`.
    public static let csv: HTTPContentType = "text/csv"
    /// `text/javascript`.
    public static let javascript: HTTPContentType = "text/javascript"
    /// `application/x-www-form-urlencoded`.
    public static let formURLEncoded: HTTPContentType = "application/x-www-form-urlencoded"
    /// `multipart/form-data`.
    public static let multipartFormData: HTTPContentType = "multipart/form-data"
    /// `text/event-stream`: server-sent events (``HTTPStubEventStream``).
    public static let eventStream: HTTPContentType = "text/event-stream"
    /// `application/octet-stream`.
    public static let octetStream: HTTPContentType = "application/octet-stream"
    /// `application/pdf`.
    public static let pdf: HTTPContentType = "application/pdf"
    /// `application/zip`.
    public static let zip: HTTPContentType = "application/zip"
    /// `image/bmp`.
    public static let bmp: HTTPContentType = "image/bmp"
    /// `image/gif`.
    public static let gif: HTTPContentType = "image/gif"
    /// `image/jpeg`.
    public static let jpeg: HTTPContentType = "image/jpeg"
    /// `image/png`.
    public static let png: HTTPContentType = "image/png"
    /// `image/svg+xml`.
    public static let svg: HTTPContentType = "image/svg+xml"
    /// `image/webp`.
    public static let webp: HTTPContentType = "image/webp"
    /// `audio/mpeg`.
    public static let mp3: HTTPContentType = "audio/mpeg"
    /// `video/mp4`.
    public static let mp4: HTTPContentType = "video/mp4"
}

extension HTTPContentType {
    /// The content type of a file with this extension, or `nil` for one StuntDouble does not know.
    init?(fileExtension: String) {
        let known: [String: HTTPContentType] = [
            "json": .json, "xml": .xml, "txt": .text, "text": .text, "html": .html, "htm": .html, "css": .css,
            "csv": .csv, "js": .javascript, "pdf": .pdf, "zip": .zip, "bmp": .bmp, "gif": .gif, "jpg": .jpeg,
            "jpeg": .jpeg, "png": .png, "svg": .svg, "webp": .webp, "mp3": .mp3, "mp4": .mp4,
        ]
        guard let type = known[fileExtension.lowercased()] else { return nil }
        self = type
    }
}
