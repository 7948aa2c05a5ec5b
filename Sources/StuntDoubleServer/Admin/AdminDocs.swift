import Foundation
import StuntDouble

/// The admin API's own description, in OpenAPI 3.0 (`GET /__admin/docs/swagger`, where WireMock serves its
/// own, and `/__admin/docs/openapi`): every route of ``AdminRoute/all``, with what it does, what it takes and
/// what it answers. Made from the route table, so that it cannot leave an endpoint out.
enum AdminDocs {
    /// What a route takes and answers.
    struct Entry {
        let summary: String
        var body = Body.none
        var answer = Answer.json

        enum Body { case none, json, bytes }
        enum Answer { case json, html, bytes }
    }

    /// Each route's entry, by `METHOD path` as the table writes them.
    static let entries: [String: Entry] = [
        "GET ": Entry(summary: "The traffic page: stubs, requests, near misses and webhooks, live", answer: .html),
        "GET health": Entry(summary: "The server's health, uptime and counts"),
        "POST reset": Entry(
            summary: "Mappings back to the files, journal cleared, scenarios to Started, settings cleared"),
        "POST shutdown": Entry(summary: "Stops the server"),
        "GET settings": Entry(summary: "The global settings (fixedDelay)"),
        "POST settings": Entry(summary: "Changes the global settings: {\"fixedDelay\": milliseconds}", body: .json),
        "PUT settings": Entry(summary: "Changes the global settings: {\"fixedDelay\": milliseconds}", body: .json),
        "GET stuntdouble/stubs": Entry(summary: "The stubs added from Swift (StuntDouble's own)"),
        "GET stuntdouble/webhooks": Entry(
            summary: "The latest webhook calls and what became of each (StuntDouble's own)"),
        "GET docs/swagger": Entry(summary: "This description"),
        "GET docs/openapi": Entry(summary: "This description"),
        "GET mappings": Entry(summary: "Every mapping, newest first (limit, offset)"),
        "POST mappings": Entry(summary: "Adds a mapping", body: .json),
        "DELETE mappings": Entry(summary: "Removes every mapping"),
        "POST mappings/reset": Entry(summary: "Mappings back to the files the server was started on"),
        "POST mappings/save": Entry(summary: "Writes mappings made through the API to the root's mappings/"),
        "POST mappings/import": Entry(
            summary: "Adds mappings: {\"mappings\": [...], \"importOptions\": {...}}", body: .json),
        "POST mappings/find-by-metadata": Entry(summary: "The mappings whose metadata a pattern matches", body: .json),
        "POST mappings/remove-by-metadata": Entry(
            summary: "Removes the mappings whose metadata a pattern matches", body: .json),
        "GET mappings/{id}": Entry(summary: "One mapping"),
        "PUT mappings/{id}": Entry(summary: "Replaces a mapping", body: .json),
        "DELETE mappings/{id}": Entry(summary: "Removes a mapping"),
        "GET requests": Entry(summary: "The journal, newest first (limit, since)"),
        "DELETE requests": Entry(summary: "Clears the journal"),
        "POST requests/reset": Entry(summary: "Clears the journal"),
        "POST requests/count": Entry(summary: "How many requests a request pattern matches", body: .json),
        "POST requests/find": Entry(summary: "The requests a request pattern matches", body: .json),
        "POST requests/remove": Entry(summary: "Forgets the requests a request pattern matches", body: .json),
        "POST requests/remove-by-metadata": Entry(
            summary: "Forgets the requests answered by mappings whose metadata a pattern matches", body: .json),
        "GET requests/unmatched": Entry(summary: "The requests no stub matched"),
        "GET requests/unmatched/near-misses": Entry(summary: "Each unmatched request with its closest stub"),
        "GET requests/{id}": Entry(summary: "One request"),
        "DELETE requests/{id}": Entry(summary: "Forgets one request"),
        "POST near-misses/request": Entry(summary: "The stubs closest to a request", body: .json),
        "POST near-misses/request-pattern": Entry(summary: "The logged requests closest to a pattern", body: .json),
        "POST recordings/start": Entry(summary: "Starts recording: proxies to targetBaseUrl", body: .json),
        "POST recordings/stop": Entry(summary: "Stops recording: stubs of what was proxied since the start"),
        "GET recordings/status": Entry(summary: "NeverStarted, Recording or Stopped"),
        "POST recordings/snapshot": Entry(summary: "Stubs of the proxied requests in the journal", body: .json),
        "GET files": Entry(summary: "The body files under __files/"),
        "GET files/{name*}": Entry(summary: "A body file's bytes", answer: .bytes),
        "PUT files/{name*}": Entry(summary: "Writes a body file", body: .bytes),
        "DELETE files/{name*}": Entry(summary: "Deletes a body file"),
        "GET scenarios": Entry(summary: "Every scenario, its state and its mappings"),
        "POST scenarios/reset": Entry(summary: "Every scenario back to Started"),
        "PUT scenarios/{name}/state": Entry(summary: "Sets a scenario's state: {\"state\": \"...\"}", body: .json),
    ]

    static func description() -> AdminResponse {
        var paths: [String: [(String, JSONNode)]] = [:]
        var order: [String] = []
        for route in AdminRoute.all {
            let entry = entries["\(route.method) \(route.path)"] ?? Entry(summary: "")
            let path =
                "/__admin" + (route.path.isEmpty ? "/" : "/" + route.path.replacingOccurrences(of: "*}", with: "}"))
            if paths[path] == nil { order.append(path) }
            var operation: [(String, JSONNode)] = [("summary", .string(entry.summary))]
            let names = route.path.split(separator: "/").filter { $0.hasPrefix("{") }.map {
                String($0.dropFirst().dropLast().replacingOccurrences(of: "*", with: ""))
            }
            if !names.isEmpty {
                operation.append(
                    (
                        "parameters",
                        .array(
                            names.map { name in
                                .object([
                                    ("name", .string(name)), ("in", .string("path")), ("required", .bool(true)),
                                    ("schema", .object([("type", .string("string"))])),
                                ])
                            })
                    ))
            }
            switch entry.body {
            case .none: break
            case .json: operation.append(("requestBody", body("application/json", schema: "object")))
            case .bytes: operation.append(("requestBody", body("application/octet-stream", schema: "string")))
            }
            let answerType =
                switch entry.answer {
                case .json: "application/json"
                case .html: "text/html"
                case .bytes: "application/octet-stream"
                }
            operation.append(
                (
                    "responses",
                    .object([
                        ("200", .object([("description", .string("Done")), ("content", media(answerType))])),
                        (
                            "default",
                            .object([
                                ("description", .string("An error, as WireMock writes one: {\"errors\": [...]}")),
                                ("content", media("application/json")),
                            ])
                        ),
                    ])
                ))
            paths[path, default: []].append((route.method.lowercased(), .object(operation)))
        }
        let document = JSONNode.object([
            ("openapi", .string("3.0.3")),
            (
                "info",
                .object([
                    ("title", .string("StuntDouble admin API")), ("version", .string("1")),
                    (
                        "description",
                        .string(
                            "WireMock 2.35.1's admin API as StuntDouble's server serves it, and StuntDouble's own "
                                + "/__admin/stuntdouble/... endpoints.")
                    ),
                ])
            ),
            ("paths", .object(order.map { ($0, .object(paths[$0] ?? [])) })),
        ])
        return .json(document)
    }

    private static func body(_ type: String, schema: String) -> JSONNode {
        .object([("required", .bool(false)), ("content", media(type, schema: schema))])
    }

    private static func media(_ type: String, schema: String? = nil) -> JSONNode {
        var members: [(String, JSONNode)] = []
        if let schema { members.append(("schema", .object([("type", .string(schema))]))) }
        return .object([(type, .object(members))])
    }
}
