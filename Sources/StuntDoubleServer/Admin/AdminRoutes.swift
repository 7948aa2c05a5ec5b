import Foundation
import StuntDoubleWireMock

/// One admin endpoint: a method, a path under `/__admin` whose `{name}` segments take any value, what it does
/// (for the API's own description, `AdminDocs`), and the task that answers it. The table is ``AdminRoute/all``; ``AdminAPI`` finds the route and runs it.
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
    /// What the route does, for the admin API's description (`GET /__admin/docs/openapi`).
    let summary: String
    /// What the request's body is.
    let takes: AdminDocs.Body
    /// What the answer is when the route succeeds.
    let answers: AdminDocs.Answer
    let answer: @Sendable (AdminAPI, Call) async -> AdminResponse

    init(
        _ method: String, _ path: String, _ summary: String, takes: AdminDocs.Body = .none,
        answers: AdminDocs.Answer = .json, _ answer: @escaping @Sendable (AdminAPI, Call) async -> AdminResponse
    ) {
        self.method = method
        self.path = path
        self.summary = summary
        self.takes = takes
        self.answers = answers
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
    /// `/stuntdouble/stubs` and `/stuntdouble/webhooks`. One entry each, with what it does; the tasks live in the file
    /// of their resource.
    static let all: [AdminRoute] = [
        // The server: AdminAPI+Server.swift.
        AdminRoute(
            "GET", "",
            "The traffic page for browsers (Accept: text/html): stubs, requests, near misses and webhooks, live; "
                + "every mapping otherwise, as WireMock answers",
            answers: .pageOrJSON
        ) { api, call in
            AdminAPI.asksForPage(call.request)
                ? TrafficPage.response(token: call.request.query["token"]) : api.listMappings(call.request)
        },
        AdminRoute("GET", "health", "The server's health, uptime and counts") { api, _ in api.health() },
        AdminRoute("GET", "version", "StuntDouble's version (text/plain when accepted)") { api, call in
            api.version(call.request)
        },
        AdminRoute(
            "GET", "certs/wiremock-ca.crt", "Browser proxying's certificate authority (PEM), for clients to trust"
        ) {
            api, _ in api.authorityCertificate()
        },
        AdminRoute(
            "POST", "reset", "Mappings back to the files, journal cleared, scenarios to Started, settings cleared"
        ) { api, _ in api.resetAll() },
        AdminRoute("POST", "shutdown", "Stops the server") { api, _ in api.shutdown() },
        AdminRoute("GET", "settings", "The global settings (fixedDelay, extended)") { api, _ in api.settings() },
        AdminRoute("POST", "settings", "Changes the global settings: {\"fixedDelay\": milliseconds}", takes: .json) {
            api, call in api.updateSettings(call.body)
        },
        AdminRoute("PUT", "settings", "Changes the global settings: {\"fixedDelay\": milliseconds}", takes: .json) {
            api, call in api.updateSettings(call.body)
        },
        AdminRoute(
            "PATCH", "settings/extended", "Sets members of the extended settings: {\"extended\": {...}}", takes: .json
        ) { api, call in api.patchExtendedSettings(call.body) },
        AdminRoute("GET", "stuntdouble/stubs", "The stubs added from Swift (StuntDouble's own)") { api, _ in
            api.swiftStubs()
        },
        AdminRoute(
            "GET", "stuntdouble/webhooks", "The latest webhook calls and what became of each (StuntDouble's own)"
        ) { api, _ in api.webhooks() },
        AdminRoute("GET", "stuntdouble/openapi/webhooks", "The webhooks the loaded OpenAPI documents declare") {
            api, _ in api.namedWebhooks()
        },
        AdminRoute(
            "POST", "stuntdouble/openapi/webhooks/{name}",
            "Fires a document's webhook now: {\"url\": \"http://...\", \"body\": {...}}; answers what became of it",
            takes: .json
        ) { api, call in await api.fireWebhook(call.parameters[0], call.body) },
        AdminRoute("GET", "docs/swagger", "This description") { _, _ in AdminDocs.description() },
        AdminRoute("GET", "docs/openapi", "This description") { _, _ in AdminDocs.description() },
        // Mappings: AdminAPI+Mappings.swift.
        AdminRoute("GET", "mappings", "Every mapping, newest first (limit, offset)") { api, call in
            api.listMappings(call.request)
        },
        AdminRoute("POST", "mappings", "Adds a mapping", takes: .json) { api, call in api.createMapping(call.body) },
        AdminRoute("DELETE", "mappings", "Removes every mapping") { api, _ in api.removeAllMappings() },
        AdminRoute("POST", "mappings/reset", "Mappings back to the files the server was started on") { api, _ in
            api.resetMappings()
        },
        AdminRoute("POST", "mappings/save", "Writes mappings made through the API to the root's mappings/") { api, _ in
            api.saveMappings()
        },
        AdminRoute(
            "POST", "mappings/import", "Adds mappings: {\"mappings\": [...], \"importOptions\": {...}}", takes: .json
        ) { api, call in api.importMappings(call.body) },
        AdminRoute("POST", "mappings/find-by-metadata", "The mappings whose metadata a pattern matches", takes: .json) {
            api, call in api.mappings(byMetadata: call.body)
        },
        AdminRoute(
            "POST", "mappings/remove-by-metadata", "Removes the mappings whose metadata a pattern matches", takes: .json
        ) { api, call in
            api.mappings(byMetadata: call.body, removing: true)
        },
        AdminRoute(
            "POST", "mappings/remove", "Removes the mapping with the body's id, else those with the body's request",
            takes: .json
        ) { api, call in api.removeMatchingMappings(call.body) },
        AdminRoute("POST", "mappings/edit", "Replaces the mapping with the body's id (204)", takes: .json) {
            api, call in api.editMapping(call.body)
        },
        AdminRoute("GET", "mappings/unmatched", "The mappings no request in the journal matched") { api, _ in
            api.unmatchedMappings()
        },
        AdminRoute("DELETE", "mappings/unmatched", "Removes the mappings no request in the journal matched") {
            api, _ in api.removeUnmatchedMappings()
        },
        AdminRoute("GET", "mappings/{id}", "One mapping") { api, call in api.mapping(call.parameters[0]) },
        AdminRoute("PUT", "mappings/{id}", "Replaces a mapping", takes: .json) { api, call in
            api.replaceMapping(call.parameters[0], with: call.body)
        },
        AdminRoute("DELETE", "mappings/{id}", "Removes a mapping") { api, call in api.removeMapping(call.parameters[0])
        },
        // Message stub mappings (WebSocket stubs): AdminAPI+MessageMappings.swift.
        AdminRoute("GET", "message-mappings", "Every message mapping, in the order tried (limit, offset)") {
            api, call in api.listMessageMappings(call.request)
        },
        AdminRoute("POST", "message-mappings", "Adds a message mapping", takes: .json) { api, call in
            api.createMessageMapping(call.body)
        },
        AdminRoute("DELETE", "message-mappings", "Removes every message mapping") { api, _ in
            api.removeAllMessageMappings()
        },
        AdminRoute(
            "POST", "message-mappings/find-by-metadata", "The message mappings whose metadata a pattern matches",
            takes: .json
        ) { api, call in api.messageMappings(byMetadata: call.body) },
        AdminRoute(
            "POST", "message-mappings/remove-by-metadata",
            "Removes the message mappings whose metadata a pattern matches", takes: .json
        ) { api, call in api.messageMappings(byMetadata: call.body, removing: true) },
        AdminRoute("GET", "message-mappings/{id}", "One message mapping") { api, call in
            api.messageMapping(call.parameters[0])
        },
        AdminRoute("PUT", "message-mappings/{id}", "Replaces a message mapping", takes: .json) { api, call in
            api.replaceMessageMapping(call.parameters[0], with: call.body)
        },
        AdminRoute("DELETE", "message-mappings/{id}", "Removes a message mapping") { api, call in
            api.removeMessageMapping(call.parameters[0])
        },
        // WebSocket channels: AdminAPI+Channels.swift.
        AdminRoute("GET", "channels", "The open WebSocket channels") { api, _ in api.listChannels() },
        AdminRoute(
            "POST", "channels/send", "Sends a message to the channels whose opening request a pattern matches",
            takes: .json
        ) { api, call in api.sendToChannels(call.body) },
        AdminRoute("GET", "channels/{id}", "One open channel") { api, call in api.channel(call.parameters[0]) },
        AdminRoute("DELETE", "channels/{id}", "Closes a channel (1000, \"Closed by server\")") { api, call in
            api.closeChannel(call.parameters[0])
        },
        // The message journal: AdminAPI+Messages.swift.
        AdminRoute("GET", "messages", "The message journal, newest first") { api, _ in api.listMessages() },
        AdminRoute("DELETE", "messages", "Clears the message journal") { api, _ in api.clearMessages() },
        AdminRoute("POST", "messages/count", "How many messages a message pattern matches", takes: .json) {
            api, call in api.countMessages(call.body)
        },
        AdminRoute("POST", "messages/find", "The messages a message pattern matches, oldest first", takes: .json) {
            api, call in api.findMessages(call.body)
        },
        AdminRoute("POST", "messages/remove", "Removes the messages a message pattern matches", takes: .json) {
            api, call in api.removeMessages(call.body)
        },
        AdminRoute(
            "POST", "messages/remove-by-metadata", "Removes the messages of stubs whose metadata a pattern matches",
            takes: .json
        ) { api, call in api.removeMessages(byMetadata: call.body) },
        AdminRoute(
            "POST", "messages/wait", "The first message a pattern matches, waiting up to timeoutMillis", takes: .json
        ) { api, call in await api.waitForMessage(call.body) },
        AdminRoute(
            "POST", "messages/wait-for-count", "Waits up to timeoutMillis for count messages a pattern matches",
            takes: .json
        ) { api, call in await api.waitForMessageCount(call.body) },
        AdminRoute("GET", "messages/{id}", "One message event, or null") { api, call in api.message(call.parameters[0])
        },
        AdminRoute("DELETE", "messages/{id}", "Removes one message event") { api, call in
            api.removeMessage(call.parameters[0])
        },
        // The journal: AdminAPI+Requests.swift.
        AdminRoute("GET", "requests", "The journal, newest first (limit, since)") { api, call in
            api.listRequests(call.request)
        },
        AdminRoute("DELETE", "requests", "Clears the journal") { api, _ in api.clearRequests() },
        AdminRoute("POST", "requests/reset", "Clears the journal") { api, _ in api.clearRequests() },
        AdminRoute("POST", "requests/count", "How many requests a request pattern matches", takes: .json) { api, call in
            api.searchRequests(call.body, .count)
        },
        AdminRoute("POST", "requests/find", "The requests a request pattern matches", takes: .json) { api, call in
            api.searchRequests(call.body, .find)
        },
        AdminRoute("POST", "requests/remove", "Forgets the requests a request pattern matches", takes: .json) {
            api, call in api.searchRequests(call.body, .remove)
        },
        AdminRoute(
            "POST", "requests/remove-by-metadata",
            "Forgets the requests answered by mappings whose metadata a pattern matches", takes: .json
        ) { api, call in api.removeRequests(byMetadata: call.body) },
        AdminRoute("GET", "requests/unmatched", "The requests no stub matched") { api, _ in api.unmatchedRequests() },
        AdminRoute("GET", "requests/unmatched/near-misses", "Each unmatched request with its closest stub") { api, _ in
            api.unmatchedNearMisses()
        },
        AdminRoute("GET", "requests/{id}", "One request") { api, call in api.loggedRequest(call.parameters[0]) },
        AdminRoute("DELETE", "requests/{id}", "Forgets one request") { api, call in
            api.removeRequest(call.parameters[0])
        },
        // Near misses: AdminAPI+NearMisses.swift.
        AdminRoute("POST", "near-misses/request", "The stubs closest to a request", takes: .json) { api, call in
            api.nearMisses(forLoggedRequest: call.body)
        },
        AdminRoute("POST", "near-misses/request-pattern", "The logged requests closest to a pattern", takes: .json) {
            api, call in api.nearMisses(forPattern: call.body)
        },
        // The recorder: AdminAPI+Recordings.swift.
        AdminRoute("POST", "recordings/start", "Starts recording: proxies to targetBaseUrl", takes: .json) {
            api, call in api.startRecording(call.body)
        },
        AdminRoute("POST", "recordings/stop", "Stops recording: stubs of what was proxied since the start") { api, _ in
            api.stopRecording()
        },
        AdminRoute("GET", "recordings/status", "NeverStarted, Recording or Stopped") { api, _ in api.recordingStatus()
        },
        AdminRoute("POST", "recordings/snapshot", "Stubs of the proxied requests in the journal", takes: .json) {
            api, call in api.snapshot(call.body)
        },
        // Body files: AdminAPI+Files.swift.
        AdminRoute("GET", "files", "The body files under __files/") { api, _ in api.listFiles() },
        AdminRoute("GET", "files/{name*}", "A body file's bytes", answers: .bytes) { api, call in
            api.file(call.parameters[0])
        },
        AdminRoute("PUT", "files/{name*}", "Writes a body file", takes: .bytes) { api, call in
            api.writeFile(call.parameters[0], call.body)
        },
        AdminRoute("DELETE", "files/{name*}", "Deletes a body file") { api, call in api.deleteFile(call.parameters[0])
        },
        // Scenarios: AdminAPI+Scenarios.swift.
        AdminRoute("GET", "scenarios", "Every scenario, its state and its mappings") { api, _ in api.listScenarios() },
        AdminRoute("POST", "scenarios/reset", "Every scenario back to Started") { api, _ in api.resetScenarios() },
        AdminRoute("PUT", "scenarios/{name}/state", "Sets a scenario's state: {\"state\": \"...\"}", takes: .json) {
            api, call in
            api.setScenarioState(call.parameters[0], call.body)
        },
    ]
}

/// An answer that ends a request before any route runs (no route, a wrong method, no token).
struct AdminFailure: Error {
    let response: AdminResponse
    init(_ response: AdminResponse) { self.response = response }
}
