import Foundation
import StuntDouble

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

extension HTTPStubEventStream {
    /// The stream as a mapping's `serverSentEvents`, as both recorders write it: each event's fields (its data
    /// through `data`, which redacts it), and its delay after the one before in whole milliseconds.
    package func stubFileNode(data: (String) -> String = { $0 }) -> JSONNode {
        let events = events.map { event -> JSONNode in
            var members: [(String, JSONNode)] = []
            if let text = event.data { members.append(("data", .string(data(text)))) }
            if let type = event.event { members.append(("event", .string(type))) }
            if let id = event.id { members.append(("id", .string(id))) }
            if let retry = event.retry { members.append(("retry", .number(retry))) }
            if let comment = event.comment { members.append(("comment", .string(comment))) }
            let milliseconds = Int((event.delay * 1000).rounded())
            if milliseconds > 0 { members.append(("delayMilliseconds", .number(milliseconds))) }
            return .object(members.sorted { $0.0 < $1.0 })
        }
        return .object([("events", .array(events))])
    }
}
