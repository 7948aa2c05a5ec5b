import Foundation
import StuntDouble
import StuntDoubleWireMock

/// WireMock's static files: a `GET` that no stub answers gets the file at its path under the root's `__files/`
/// (`GET /docs/a.json` → `__files/docs/a.json`), or a folder's index file, with `200`, as WireMock serves them.
/// Never a file outside `__files/` (by `..` or a symbolic link).
enum StaticFiles {
    /// The files a folder answers with, in WireMock's order.
    static let indexFiles = ["index.json", "index.html", "index.xml", "index.txt"]

    /// The file for a request path (percent-encoded, as sent), with its content type, or `nil`. Files are read
    /// as `bodyFileName` reads them: never one outside `__files/`.
    static func file(at path: String, in filesDirectory: URL) -> (body: Data, contentType: String)? {
        guard let decoded = path.removingPercentEncoding, !decoded.contains("\0") else { return nil }
        let relative = String(decoded.drop { $0 == "/" })
        let folder = relative.isEmpty || relative.hasSuffix("/") ? relative : relative + "/"
        for name in [relative] + indexFiles.map({ folder + $0 }) {
            if let body = StubFiles.bodyFile(named: name, in: filesDirectory) {
                return (body, contentType(of: (name as NSString).pathExtension))
            }
        }
        return nil
    }

    /// The content type of a file extension, as Jetty (WireMock's server) names the common ones.
    static func contentType(of fileExtension: String) -> String {
        switch fileExtension.lowercased() {
        case "json": "application/json"
        case "html", "htm": "text/html"
        case "xml": "application/xml"
        case "txt": "text/plain"
        case "css": "text/css"
        case "js": "application/javascript"
        case "csv": "text/csv"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "svg": "image/svg+xml"
        case "pdf": "application/pdf"
        default: "application/octet-stream"
        }
    }
}
