import Foundation

/// WireMock's static files: a `GET` that no stub answers gets the file at its path under the root's `__files/`
/// (`GET /docs/a.json` → `__files/docs/a.json`), or a folder's index file, with `200`, as WireMock serves them.
/// Never a file outside `__files/` (by `..` or a symbolic link).
enum StaticFiles {
    /// The files a folder answers with, in WireMock's order.
    static let indexFiles = ["index.json", "index.html", "index.xml", "index.txt"]

    /// The file for a request path (percent-encoded, as sent), with its content type, or `nil`.
    static func file(at path: String, in filesDirectory: URL) -> (body: Data, contentType: String)? {
        guard let decoded = path.removingPercentEncoding, !decoded.contains("\0") else { return nil }
        let base = filesDirectory.resolvingSymlinksInPath().standardizedFileURL
        let basePath = base.path.hasSuffix("/") ? base.path : base.path + "/"
        let relative = decoded.drop { $0 == "/" }
        var target = base.appendingPathComponent(String(relative)).resolvingSymlinksInPath().standardizedFileURL
        guard target.path.hasPrefix(basePath) || target.path == base.path else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target.path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue {
            guard
                let index = indexFiles.lazy.map({ target.appendingPathComponent($0) }).first(where: {
                    var isFolder: ObjCBool = false
                    return FileManager.default.fileExists(atPath: $0.path, isDirectory: &isFolder)
                        && !isFolder.boolValue
                })
            else { return nil }
            target = index.resolvingSymlinksInPath().standardizedFileURL
            guard target.path.hasPrefix(basePath) else { return nil }
        }
        guard let body = FileManager.default.contents(atPath: target.path) else { return nil }
        return (body, contentType(of: target.pathExtension))
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
