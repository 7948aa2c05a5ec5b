import Foundation
import NIOConcurrencyHelpers
import StuntDouble

/// A request to the admin API, as the connection read it.
struct AdminRequest: Sendable {
    let method: String
    /// The path after `/__admin` (`/mappings/8c5d...`), without the query.
    let path: String
    let query: [String: String]
    let headers: StuntDouble.HTTPHeaders
    let body: Data
}

/// What the admin API answers.
struct AdminResponse: Sendable {
    var status: Int
    var contentType = "application/json"
    var body: Data
    var headers: [(String, String)] = []

    static func json(_ node: JSONNode, status: Int = 200) -> AdminResponse {
        AdminResponse(status: status, body: Data((node.rendered(pretty: true) + "\n").utf8))
    }

    static func error(_ status: Int, _ title: String) -> AdminResponse {
        json(AdminJSON.error(title), status: status)
    }
}

/// WireMock's admin API under `/__admin/`: mappings, the request journal, near misses, scenarios, settings,
/// reset, health, and the traffic page. Its JSON shapes are WireMock's, so that WireMock's clients (its
/// Python client, its Java `WireMock` class) drive StuntDouble's server unchanged.
final class AdminAPI: Sendable {
    let store: MappingStore
    let core: ServerCore
    private let started = ContinuousClock.now
    private let startDate = Date()
    /// Whether the log said once that counts and finds may miss requests.
    private let warnedOfIncompleteJournal = NIOLockedValueBox(false)

    init(store: MappingStore, core: ServerCore) {
        self.store = store
        self.core = core
    }

    var stubber: HTTPStubber { store.stubber }

    /// Whether a request may use the admin API: with a token configured, it must carry it.
    func isAuthorized(_ request: AdminRequest) -> Bool {
        guard let token = core.configuration.adminToken else { return true }
        if let authorization = request.headers[.authorization],
            Self.sameInConstantTime(authorization, "Bearer \(token)")
        {
            return true
        }
        // The traffic page itself (not the API) may name the token in its address, as a browser cannot send
        // headers when it follows a link; the page then sends it as a header.
        return request.method == "GET" && (request.path == "" || request.path == "/")
            && request.query["token"].map { Self.sameInConstantTime($0, token) } == true
    }

    /// Whether two strings are equal, in a time that depends on their lengths only, not on where they first
    /// differ (so that timing the answers cannot guess a token byte by byte).
    static func sameInConstantTime(_ given: String, _ expected: String) -> Bool {
        let given = Array(given.utf8)
        let expected = Array(expected.utf8)
        var difference = UInt8(truncatingIfNeeded: given.count ^ expected.count)
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0 && given.count == expected.count
    }

    func handle(_ request: AdminRequest) async -> AdminResponse {
        guard isAuthorized(request) else {
            var response = AdminResponse.error(
                401,
                "The admin API needs the server's token: send the header 'Authorization: Bearer <token>' (the "
                    + "token given with --admin-token or HTTPStubServer.Configuration.adminToken).")
            response.headers.append(("WWW-Authenticate", #"Bearer realm="stuntdouble admin""#))
            return response
        }
        let parts = request.path.split(separator: "/").map(String.init)
        switch (request.method, parts) {
        case ("GET", []): return TrafficPage.response(token: request.query["token"])
        case ("GET", ["health"]): return health()
        case ("POST", ["reset"]): return resetAll()
        case ("POST", ["shutdown"]):
            Task { await self.core.shutdownRequested() }
            return .json(.object([]))
        case ("GET", ["settings"]): return .json(.object([("settings", settingsJSON())]))
        case ("POST", ["settings"]), ("PUT", ["settings"]): return updateSettings(request.body)
        case ("GET", ["stuntdouble", "stubs"]): return swiftStubs()
        default: break
        }
        if parts.first == "mappings" { return mappings(request, Array(parts.dropFirst())) }
        if parts.first == "requests" { return requests(request, Array(parts.dropFirst())) }
        if parts.first == "near-misses" { return nearMisses(request, Array(parts.dropFirst())) }
        if parts.first == "scenarios" { return scenarios(request, Array(parts.dropFirst())) }
        return .error(
            404, "No admin endpoint \(request.method) /__admin\(request.path). See the StuntDoubleServer docs.")
    }

    // MARK: - Mappings

    private func mappings(_ request: AdminRequest, _ parts: [String]) -> AdminResponse {
        switch (request.method, parts) {
        case ("GET", []):
            let all = store.entries
            let offset = request.query["offset"].flatMap(Int.init) ?? 0
            let limit = request.query["limit"].flatMap(Int.init) ?? all.count
            let page = all.dropFirst(max(0, offset)).prefix(max(0, limit))
            return .json(
                .object([("mappings", .array(page.map(\.json))), ("meta", .object([("total", .number(all.count))]))]))
        case ("POST", []):
            switch store.create(request.body) {
            case .success(let (entry, diagnostics)):
                var response = AdminResponse.json(entry.json, status: 201)
                for warning in diagnostics.filter({ $0.severity == .warning }).prefix(5) {
                    response.headers.append(("StuntDouble-Warning", warning.description))
                }
                return response
            case .failure(let failure): return Self.response(for: failure)
            }
        case ("DELETE", []):
            store.removeAll()
            return .json(.object([]))
        case ("POST", ["reset"]):
            do {
                try store.reset()
                return .json(.object([]))
            } catch {
                return .json(AdminJSON.errors(error.diagnostics), status: 422)
            }
        case ("POST", ["save"]):
            switch store.save() {
            case .success: return .json(.object([]))
            case .failure(let failure): return Self.response(for: failure)
            }
        case ("POST", ["import"]):
            return importMappings(request.body)
        case ("POST", ["find-by-metadata"]), ("POST", ["remove-by-metadata"]):
            let (pattern, diagnostics) = StubValuePattern.read(request.body, name: "the request body")
            guard let pattern else { return .json(AdminJSON.errors(diagnostics), status: 422) }
            let found = store.entries(whereMetadata: pattern)
            if parts[0] == "remove-by-metadata" {
                for entry in found { _ = store.remove(id: entry.id) }
                return .json(.object([]))
            }
            return .json(.object([("mappings", .array(found.map(\.json)))]))
        case (_, _) where parts.count == 1:
            let idText = parts[0]
            guard let id = UUID(uuidString: idText) else {
                return .error(404, "No mapping has the id \(idText) (a mapping id is a UUID).")
            }
            switch request.method {
            case "GET":
                return store.entry(id: id).map { .json($0.json) } ?? .error(404, "No mapping has the id \(idText).")
            case "PUT":
                switch store.replace(id: id, with: request.body) {
                case .success(let entry): return .json(entry.json)
                case .failure(let failure): return Self.response(for: failure)
                }
            case "DELETE":
                return store.remove(id: id) ? .json(.object([])) : .error(404, "No mapping has the id \(idText).")
            default:
                return .error(405, "\(request.method) is not allowed on a mapping; use GET, PUT or DELETE.")
            }
        default:
            return .error(404, "No admin endpoint \(request.method) /__admin/mappings/\(parts.joined(separator: "/")).")
        }
    }

    /// `POST /__admin/mappings/import`: `{"mappings": [...], "importOptions": {"duplicatePolicy": ...}}`.
    private func importMappings(_ body: Data) -> AdminResponse {
        guard let node = JSONNode.parse(lenient: body), let list = node["mappings"]?.items else {
            return .error(422, "Send {\"mappings\": [...]} to import mappings.")
        }
        let options = node["importOptions"]
        if options?["deleteAllNotInImport"].map({ if case .bool(true) = $0.kind { true } else { false } }) == true {
            store.removeAll()
        }
        let ignoreDuplicates = options?["duplicatePolicy"]?.string == "IGNORE"
        for item in list {
            if ignoreDuplicates, let id = (item["id"] ?? item["uuid"])?.string.flatMap(UUID.init(uuidString:)),
                store.entry(id: id) != nil
            {
                continue
            }
            if case .failure(let failure) = store.create(Data(item.rendered().utf8)) {
                return Self.response(for: failure)
            }
        }
        return .json(.object([]))
    }

    private static func response(for failure: MappingStore.Failure) -> AdminResponse {
        switch failure {
        case .invalid(let diagnostics): return .json(AdminJSON.errors(diagnostics), status: 422)
        case .notFound: return .error(404, "No mapping has that id.")
        case .noRoot:
            return .error(
                409, "The server has no root folder to save to: start it with --root DIR (or load stub files into it).")
        case .readOnlyRoot(let display):
            return .error(
                409,
                "The server serves \(display), which are not yours to change: nothing was saved. Start it with --root "
                    + "DIR (a folder of your own) to save mappings made through the admin API.")
        case .io(let message): return .error(500, "Saving the mappings failed: \(message)")
        }
    }

    // MARK: - Requests

    private func requests(_ request: AdminRequest, _ parts: [String]) -> AdminResponse {
        let journal = stubber.journal
        switch (request.method, parts) {
        case ("GET", []):
            var events = Array(journal.reversed())
            if let since = request.query["since"], let date = ISO8601DateFormatter().date(from: since) {
                events = events.filter { $0.receivedAt > date }
            }
            if let limit = request.query["limit"].flatMap(Int.init) {
                events = Array(events.prefix(max(0, limit)))
            }
            return .json(
                .object([
                    ("requests", .array(events.map(serveEvent))),
                    ("meta", .object([("total", .number(journal.count))])),
                    ("requestJournalDisabled", .bool(stubber.journalCapacity == 0)),
                ]))
        case ("DELETE", []), ("POST", ["reset"]):
            stubber.clearJournal()
            core.clients.withLockedValue { $0.removeAll() }
            return .json(.object([]))
        case ("POST", ["count"]), ("POST", ["find"]), ("POST", ["remove"]):
            guard stubber.journalCapacity > 0 else {
                return .error(
                    500,
                    "The request journal is off (--no-request-journal, or a journal capacity of 0), so no request "
                        + "can be counted or found. Start the server with a journal to verify requests.")
            }
            let (pattern, diagnostics) = StubRequestPattern.read(request.body, name: "the request body")
            guard let pattern else { return .json(AdminJSON.errors(diagnostics), status: 422) }
            let found = journal.filter { pattern.matches($0.request) }
            var response: AdminResponse
            switch parts[0] {
            case "count": response = .json(.object([("count", .number(found.count))]))
            case "find": response = .json(.object([("requests", .array(found.map(loggedRequest)))]))
            default:
                return .error(
                    501, "Removing single journal entries is not supported; DELETE /__admin/requests clears them all.")
            }
            response.headers += incompleteJournalNotes(journal)
            return response
        case ("GET", ["unmatched"]):
            return .json(.object([("requests", .array(stubber.unmatchedRequests.map(loggedRequest)))]))
        case ("GET", ["unmatched", "near-misses"]):
            let misses = stubber.unmatchedRequests.compactMap { entry -> JSONNode? in
                guard let report = entry.decision.report, let closest = report.candidates.first else { return nil }
                return nearMiss(loggedRequest(entry), stub: closest.stub, closeness: closeness(of: closest))
            }
            return .json(.object([("nearMisses", .array(misses))]))
        case ("GET", _) where parts.count == 1:
            let idText = parts[0]
            guard let number = AdminJSON.entryNumber(of: idText),
                let entry = journal.first(where: { $0.number == number })
            else {
                return .error(404, "No request in the journal has the id \(idText).")
            }
            return .json(
                .object([
                    ("request", loggedRequest(entry)),
                    ("responseDefinition", serveEvent(entry)["responseDefinition"] ?? .null),
                ]))
        default:
            return .error(404, "No admin endpoint \(request.method) /__admin/requests/\(parts.joined(separator: "/")).")
        }
    }

    /// Headers saying what a count or find may have missed: requests the journal dropped to stay within its
    /// capacity, and bodies it cut (which body patterns see the beginning of only). The first time, a log line
    /// says so too.
    private func incompleteJournalNotes(_ journal: [HTTPJournalEntry]) -> [(String, String)] {
        var notes: [(String, String)] = []
        let dropped = stubber.droppedJournalEntryCount
        if dropped > 0 {
            notes.append(("StuntDouble-Journal-Dropped", "\(dropped)"))
        }
        let cut = journal.count { $0.isRequestBodyTruncated }
        if cut > 0 {
            notes.append(("StuntDouble-Journal-Truncated-Bodies", "\(cut)"))
        }
        if !notes.isEmpty,
            warnedOfIncompleteJournal.withLockedValue({ warned in
                defer { warned = true }
                return !warned
            })
        {
            let line =
                "the request journal is incomplete: \(dropped) older requests were dropped to keep the newest "
                + "\(stubber.journalCapacity) (--max-request-journal-entries), and \(cut) bodies were cut to "
                + "\(stubber.journalBodyLimit ?? 0) bytes (--journal-body-limit): counts and finds may miss them. "
                + "Responses say so in StuntDouble-Journal-Dropped and StuntDouble-Journal-Truncated-Bodies."
            core.logger.warning("\(line)")
        }
        return notes
    }

    private func clientIP(of entry: HTTPJournalEntry) -> String {
        core.clients.withLockedValue { $0[entry.number] } ?? "127.0.0.1"
    }

    private func loggedRequest(_ entry: HTTPJournalEntry) -> JSONNode {
        AdminJSON.loggedRequest(entry.request, at: entry.receivedAt, clientIP: clientIP(of: entry))
    }

    private func serveEvent(_ entry: HTTPJournalEntry) -> JSONNode {
        AdminJSON.serveEvent(entry, store: store, clientIP: clientIP(of: entry))
    }

    private func closeness(of candidate: HTTPUnmatchedRequestReport.Candidate) -> Double {
        let checks = candidate.checks
        guard !checks.isEmpty else { return 1 }
        return Double(checks.count { $0.passed }) / Double(checks.count)
    }

    private func nearMiss(_ request: JSONNode, stub: HTTPStubRequest, closeness: Double) -> JSONNode {
        .object([
            ("request", request),
            ("stubMapping", store.entry(for: stub)?.json ?? AdminJSON.codeStubJSON(stub)),
            ("matchResult", .object([("distance", .number(text: String(format: "%.4f", 1 - closeness)))])),
        ])
    }

    // MARK: - Near misses

    private func nearMisses(_ request: AdminRequest, _ parts: [String]) -> AdminResponse {
        guard request.method == "POST" else { return .error(405, "Near misses are asked for with POST.") }
        switch parts {
        case ["request"]:
            // A logged request: the stubs it came closest to.
            guard let node = JSONNode.parse(lenient: request.body), let incoming = Self.incoming(from: node) else {
                return .error(422, "Send a logged request: {\"method\": \"GET\", \"url\": \"/path\", ...}.")
            }
            let report = stubber.nearMisses(for: incoming)
            let logged = AdminJSON.loggedRequest(incoming, at: Date(), clientIP: "127.0.0.1")
            return .json(
                .object([
                    (
                        "nearMisses",
                        .array(
                            report.candidates.prefix(3).map {
                                nearMiss(logged, stub: $0.stub, closeness: closeness(of: $0))
                            })
                    )
                ]))
        case ["request-pattern"]:
            // A request pattern: the journal's requests that came closest to it.
            let (pattern, diagnostics) = StubRequestPattern.read(request.body, name: "the request body")
            guard pattern != nil, let node = JSONNode.parse(lenient: request.body) else {
                return .json(AdminJSON.errors(diagnostics), status: 422)
            }
            // The pattern as the one stub of a stubber of its own, which then ranks each logged request.
            let probe = HTTPStubber(journalCapacity: 0)
            let mapping = JSONNode.object([("request", node), ("response", .object([]))])
            _ = try? probe.load(StubFiles(json: Data(mapping.rendered().utf8), name: "pattern", filesDirectory: nil))
            let misses = stubber.journal.reversed().compactMap { entry -> JSONNode? in
                guard let closest = probe.nearMisses(for: entry.request).candidates.first else { return nil }
                return .object([
                    ("request", loggedRequest(entry)), ("requestPattern", node),
                    (
                        "matchResult",
                        .object([("distance", .number(text: String(format: "%.4f", 1 - closeness(of: closest))))])
                    ),
                ])
            }
            return .json(.object([("nearMisses", .array(Array(misses.prefix(10))))]))
        default:
            return .error(404, "No admin endpoint POST /__admin/near-misses/\(parts.joined(separator: "/")).")
        }
    }

    /// A request from a logged request's JSON.
    private static func incoming(from node: JSONNode) -> HTTPIncomingRequest? {
        let target = node["absoluteUrl"]?.string ?? node["url"]?.string.map { "http://localhost" + $0 }
        guard let target, let url = URL(string: target) else { return nil }
        var headers = StuntDouble.HTTPHeaders()
        for member in node["headers"]?.members ?? [] {
            if let value = member.value.string {
                headers.add(name: .init(rawValue: member.key), value: value)
            } else {
                for item in member.value.items ?? [] {
                    if let value = item.string { headers.add(name: .init(rawValue: member.key), value: value) }
                }
            }
        }
        let body =
            node["bodyAsBase64"]?.string.flatMap { Data(base64Encoded: $0) }
            ?? node["body"]?.string.map { Data($0.utf8) }
        return try? HTTPIncomingRequest(
            method: HTTPMethod(rawValue: node["method"]?.string ?? "GET"), url: url, headers: headers, body: body)
    }

    // MARK: - Scenarios, settings, reset, health

    private func scenarios(_ request: AdminRequest, _ parts: [String]) -> AdminResponse {
        switch (request.method, parts) {
        case ("GET", []):
            return .json(
                .object([
                    (
                        "scenarios",
                        .array(
                            store.scenarios.map { scenario in
                                .object([
                                    ("id", .string(scenario.name)), ("name", .string(scenario.name)),
                                    ("state", .string(scenario.state)),
                                    ("possibleStates", .array(scenario.possibleStates.map(JSONNode.string))),
                                ])
                            })
                    )
                ]))
        case ("POST", ["reset"]):
            for scenario in stubber.namedScenarios.values {
                stubber.setState(scenario.initialState, of: scenario)
            }
            return .json(.object([]))
        case ("PUT", _) where parts.count == 2 && parts[1] == "state":
            let name = parts[0]
            guard let scenario = stubber.namedScenarios[name] else {
                return .error(404, "No scenario is named \(name).")
            }
            guard let node = JSONNode.parse(lenient: request.body), let state = node["state"]?.string else {
                return .error(422, "Send {\"state\": \"the state\"}.")
            }
            stubber.setState(state, of: scenario)
            return .json(.object([]))
        default:
            return .error(
                404, "No admin endpoint \(request.method) /__admin/scenarios/\(parts.joined(separator: "/")).")
        }
    }

    private func settingsJSON() -> JSONNode {
        let delay = core.globalDelay.withLockedValue { $0 }
        return .object([("fixedDelay", .number(Int((delay.secondsValue * 1000).rounded())))])
    }

    private func updateSettings(_ body: Data) -> AdminResponse {
        guard let node = JSONNode.parse(lenient: body) else {
            return .error(422, "Send {\"fixedDelay\": milliseconds}.")
        }
        let settings = node["settings"] ?? node
        if let delay = settings["fixedDelay"] {
            guard case .number(let number) = delay.kind, let milliseconds = Double(number.text), milliseconds >= 0,
                milliseconds <= 3_600_000
            else {
                return .error(422, "fixedDelay must be a number of milliseconds from 0 to 3,600,000.")
            }
            core.globalDelay.withLockedValue { $0 = .milliseconds(milliseconds) }
        }
        return .json(.object([("settings", settingsJSON())]))
    }

    private func resetAll() -> AdminResponse {
        do {
            try store.reset()
        } catch {
            return .json(AdminJSON.errors(error.diagnostics), status: 422)
        }
        stubber.clearJournal()
        stubber.resetState()
        core.clients.withLockedValue { $0.removeAll() }
        core.globalDelay.withLockedValue { $0 = .zero }
        return .json(.object([]))
    }

    /// StuntDouble's own endpoint (WireMock has none like it): the stubs added from Swift, which are no
    /// mappings and so not in `/mappings`, for the traffic page.
    private func swiftStubs() -> AdminResponse {
        let stubs = stubber.stubs.filter { store.entry(for: $0) == nil }
        return .json(
            .object([
                (
                    "stubs",
                    .array(
                        stubs.map { stub in
                            .object([
                                ("description", .string(stub.description)),
                                ("name", stub.name.map(JSONNode.string) ?? .null),
                                ("methods", .array(stub.stubbedMethods.map { .string($0.rawValue) })),
                                (
                                    "matchers",
                                    .array(
                                        stub.matchers.map {
                                            .string(
                                                (($0 as? any CustomStringConvertible)?.description) ?? "\(type(of: $0))"
                                            )
                                        })
                                ),
                                ("priority", .number(stub.priority)),
                            ])
                        })
                )
            ]))
    }

    private func health() -> AdminResponse {
        let uptime = ContinuousClock.now - started
        return .json(
            .object([
                ("status", .string("healthy")), ("message", .string("StuntDouble is ok")),
                ("version", .string(StuntDoubleServerVersion.text)),
                ("uptimeInSeconds", .number(Int(uptime.secondsValue))),
                ("timestamp", .string(AdminJSON.isoDate(Date()))),
                ("mappings", .number(store.entries.count)), ("requests", .number(stubber.receivedCount)),
            ]))
    }
}

/// The version the admin API's health endpoint reports.
enum StuntDoubleServerVersion {
    static let text = "0.1.0"
}
