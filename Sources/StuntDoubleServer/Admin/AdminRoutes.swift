import Foundation
import StuntDoubleWireMock

/// One admin endpoint: a method, a path under `/__admin` whose `{name}` segments take any value, and the task
/// that answers it. The table is ``AdminRoute/all``; ``AdminAPI`` finds the route and runs it.
struct AdminRoute: Sendable {
    /// A request on its way to a route: the request, and the values of the path's `{name}` segments in order.
    struct Call: Sendable {
        let request: AdminRequest
        let parameters: [String]
        var body: Data { request.body }
    }

    let method: String
    /// The path under `/__admin` as written in the table (`mappings/{id}`).
    let path: String
    /// The path's segments; `nil` stands for a `{name}` segment.
    let segments: [String?]
    /// Whether the last segment is `{name*}`: the rest of the path, one segment or more, as one value.
    let takesRest: Bool
    let answer: @Sendable (AdminAPI, Call) async -> AdminResponse

    init(_ method: String, _ path: String, _ answer: @escaping @Sendable (AdminAPI, Call) async -> AdminResponse) {
        self.method = method
        self.path = path
        segments = path.split(separator: "/").map { $0.hasPrefix("{") ? nil : String($0) }
        takesRest = path.hasSuffix("*}")
        self.answer = answer
    }

    /// The values of the `{name}` segments when `parts` is this route's path, or `nil`.
    func parameters(of parts: [Substring]) -> [String]? {
        if takesRest, parts.count > segments.count {
            guard var values = parameters(of: Array(parts.prefix(segments.count))) else { return nil }
            values[values.count - 1] += "/" + parts.dropFirst(segments.count).joined(separator: "/")
            return values
        }
        guard parts.count == segments.count else { return nil }
        var values: [String] = []
        for (segment, part) in zip(segments, parts) {
            if let segment {
                guard segment == part else { return nil }
            } else {
                values.append(String(part))
            }
        }
        return values
    }

    /// The route for a request, or the answer when none fits: 405 naming the methods the path allows, or 404.
    static func find(method: String, path: String) -> Result<(AdminRoute, [String]), AdminFailure> {
        let parts = path.split(separator: "/")
        var allowed: [String] = []
        // In table order: a literal segment listed before a `{name}` one wins (`/requests/unmatched`).
        for route in all {
            guard let values = route.parameters(of: parts) else { continue }
            if route.method == method { return .success((route, values)) }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        if allowed.isEmpty {
            return .failure(
                AdminFailure(
                    .error(404, "No admin endpoint \(method) /__admin\(path). See the StuntDoubleServer docs.")))
        }
        var response = AdminResponse.error(
            405, "\(method) is not allowed on /__admin\(path); use \(allowed.joined(separator: ", ")).")
        response.headers.append(("Allow", allowed.joined(separator: ", ")))
        return .failure(AdminFailure(response))
    }

    /// Every endpoint: WireMock 2.35.1's admin API as far as StuntDouble serves it, and its own
    /// `/stuntdouble/stubs` and `/stuntdouble/webhooks`. One line each; the tasks live in the file of their resource.
    static let all: [AdminRoute] = [
        // The server: AdminAPI+Server.swift.
        AdminRoute("GET", "") { _, call in TrafficPage.response(token: call.request.query["token"]) },
        AdminRoute("GET", "health") { api, _ in api.health() },
        AdminRoute("POST", "reset") { api, _ in api.resetAll() },
        AdminRoute("POST", "shutdown") { api, _ in api.shutdown() },
        AdminRoute("GET", "settings") { api, _ in api.settings() },
        AdminRoute("POST", "settings") { api, call in api.updateSettings(call.body) },
        AdminRoute("PUT", "settings") { api, call in api.updateSettings(call.body) },
        AdminRoute("GET", "stuntdouble/stubs") { api, _ in api.swiftStubs() },
        AdminRoute("GET", "stuntdouble/webhooks") { api, _ in api.webhooks() },
        AdminRoute("GET", "docs/swagger") { _, _ in AdminDocs.description() },
        AdminRoute("GET", "docs/openapi") { _, _ in AdminDocs.description() },
        // Mappings: AdminAPI+Mappings.swift.
        AdminRoute("GET", "mappings") { api, call in api.listMappings(call.request) },
        AdminRoute("POST", "mappings") { api, call in api.createMapping(call.body) },
        AdminRoute("DELETE", "mappings") { api, _ in api.removeAllMappings() },
        AdminRoute("POST", "mappings/reset") { api, _ in api.resetMappings() },
        AdminRoute("POST", "mappings/save") { api, _ in api.saveMappings() },
        AdminRoute("POST", "mappings/import") { api, call in api.importMappings(call.body) },
        AdminRoute("POST", "mappings/find-by-metadata") { api, call in api.mappings(byMetadata: call.body) },
        AdminRoute("POST", "mappings/remove-by-metadata") { api, call in
            api.mappings(byMetadata: call.body, removing: true)
        },
        AdminRoute("GET", "mappings/{id}") { api, call in api.mapping(call.parameters[0]) },
        AdminRoute("PUT", "mappings/{id}") { api, call in api.replaceMapping(call.parameters[0], with: call.body) },
        AdminRoute("DELETE", "mappings/{id}") { api, call in api.removeMapping(call.parameters[0]) },
        // The journal: AdminAPI+Requests.swift.
        AdminRoute("GET", "requests") { api, call in api.listRequests(call.request) },
        AdminRoute("DELETE", "requests") { api, _ in api.clearRequests() },
        AdminRoute("POST", "requests/reset") { api, _ in api.clearRequests() },
        AdminRoute("POST", "requests/count") { api, call in api.searchRequests(call.body, .count) },
        AdminRoute("POST", "requests/find") { api, call in api.searchRequests(call.body, .find) },
        AdminRoute("POST", "requests/remove") { api, call in api.searchRequests(call.body, .remove) },
        AdminRoute("POST", "requests/remove-by-metadata") { api, call in api.removeRequests(byMetadata: call.body) },
        AdminRoute("GET", "requests/unmatched") { api, _ in api.unmatchedRequests() },
        AdminRoute("GET", "requests/unmatched/near-misses") { api, _ in api.unmatchedNearMisses() },
        AdminRoute("GET", "requests/{id}") { api, call in api.loggedRequest(call.parameters[0]) },
        AdminRoute("DELETE", "requests/{id}") { api, call in api.removeRequest(call.parameters[0]) },
        // Near misses: AdminAPI+NearMisses.swift.
        AdminRoute("POST", "near-misses/request") { api, call in api.nearMisses(forLoggedRequest: call.body) },
        AdminRoute("POST", "near-misses/request-pattern") { api, call in api.nearMisses(forPattern: call.body) },
        // The recorder: AdminAPI+Recordings.swift.
        AdminRoute("POST", "recordings/start") { api, call in api.startRecording(call.body) },
        AdminRoute("POST", "recordings/stop") { api, _ in api.stopRecording() },
        AdminRoute("GET", "recordings/status") { api, _ in api.recordingStatus() },
        AdminRoute("POST", "recordings/snapshot") { api, call in api.snapshot(call.body) },
        // Body files: AdminAPI+Files.swift.
        AdminRoute("GET", "files") { api, _ in api.listFiles() },
        AdminRoute("GET", "files/{name*}") { api, call in api.file(call.parameters[0]) },
        AdminRoute("PUT", "files/{name*}") { api, call in api.writeFile(call.parameters[0], call.body) },
        AdminRoute("DELETE", "files/{name*}") { api, call in api.deleteFile(call.parameters[0]) },
        // Scenarios: AdminAPI+Scenarios.swift.
        AdminRoute("GET", "scenarios") { api, _ in api.listScenarios() },
        AdminRoute("POST", "scenarios/reset") { api, _ in api.resetScenarios() },
        AdminRoute("PUT", "scenarios/{name}/state") { api, call in
            api.setScenarioState(call.parameters[0], call.body)
        },
    ]
}

/// An answer that ends a request before any route runs (no route, a wrong method, no token).
struct AdminFailure: Error {
    let response: AdminResponse
    init(_ response: AdminResponse) { self.response = response }
}
