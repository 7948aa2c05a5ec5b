import Foundation

/// What both recorders decide alike: `HTTPRecording` in process and the stub server's admin recorder
/// (`/__admin/recordings`), which write mappings in their own styles but keep bodies and group repeated requests
/// the same way.
package enum RecordedBody {
    /// Whether a body of a content type is text, as WireMock's recorder decides (a body of another type is kept
    /// in Base64 or in a file). `contentType` is lower-cased.
    package static func isText(contentType: String) -> Bool {
        contentType.hasPrefix("text/") || contentType.contains("json") || contentType.contains("xml")
            || contentType.contains("javascript") || contentType.contains("x-www-form-urlencoded")
            || contentType.contains("html")
    }

    /// The extension of a body file for a content type (lower-cased): `json`, `xml` and `html` for any type of
    /// those families, then common media types, else `txt` for text and `bin` for bytes.
    package static func fileExtension(for contentType: String, isText: Bool) -> String {
        if contentType.contains("json") { return "json" }
        if contentType.contains("xml") { return "xml" }
        if contentType.contains("html") { return "html" }
        let table = [
            "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp",
            "application/pdf": "pdf", "application/zip": "zip", "application/gzip": "gz", "text/css": "css",
            "text/javascript": "js", "application/javascript": "js", "text/csv": "csv",
        ]
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return table[type] ?? (isText ? "txt" : "bin")
    }

    /// The positions of requests that repeat, by their keys (a request pattern rendered with sorted keys): a group
    /// for each key that appears more than once, its positions in the order recorded, the groups in the order of
    /// their first appearance. Both recorders make a scenario of each group, whose state moves on at each answer.
    package static func repeats(of keys: [String]) -> [[Int]] {
        var positions: [String: [Int]] = [:]
        var order: [String] = []
        for (index, key) in keys.enumerated() {
            if positions[key] == nil { order.append(key) }
            positions[key, default: []].append(index)
        }
        return order.compactMap { key in positions[key].flatMap { $0.count > 1 ? $0 : nil } }
    }
}
