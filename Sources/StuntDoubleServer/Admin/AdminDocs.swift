import Foundation
import StuntDouble

/// The admin API's own description, in OpenAPI 3.0 (`GET /__admin/docs/swagger`, where WireMock serves its
/// own, and `/__admin/docs/openapi`): every route of ``AdminRoute/all``, with what it does, what it takes and
/// what it answers. Made from the route table, where each route says what it does, so that it cannot leave an
/// endpoint out nor describe one that is not there.
enum AdminDocs {
    /// What a route's request body is.
    enum Body { case none, json, bytes }
    /// What a route answers with.
    /// What a route answers: JSON, bytes, or the admin root's HTML for browsers and JSON for others.
    enum Answer { case json, bytes, pageOrJSON }

    static func description() -> AdminResponse {
        var paths: [String: [(String, JSONNode)]] = [:]
        var order: [String] = []
        for route in AdminRoute.all {
            let path =
                "/__admin" + (route.path.isEmpty ? "/" : "/" + route.path.replacingOccurrences(of: "*}", with: "}"))
            if paths[path] == nil { order.append(path) }
            var operation: [(String, JSONNode)] = [("summary", .string(route.summary))]
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
            switch route.takes {
            case .none: break
            case .json: operation.append(("requestBody", body("application/json", schema: "object")))
            case .bytes: operation.append(("requestBody", body("application/octet-stream", schema: "string")))
            }
            let answerTypes =
                switch route.answers {
                case .json: ["application/json"]
                case .bytes: ["application/octet-stream"]
                case .pageOrJSON: ["text/html", "application/json"]
                }
            let content = JSONNode.object(answerTypes.map { ($0, .object([])) })
            operation.append(
                (
                    "responses",
                    .object([
                        ("200", .object([("description", .string("Done")), ("content", content)])),
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
