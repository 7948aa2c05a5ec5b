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
    /// Whether it came over HTTPS.
    var isSecure = false
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
///
/// This file holds what every endpoint shares (the token, the dispatch); the table of endpoints is
/// `AdminRoutes.swift`, and each resource's tasks are in `AdminAPI+<Resource>.swift`.
final class AdminAPI: Sendable {
    let store: MappingStore
    let core: ServerCore
    let started = ContinuousClock.now
    /// Whether the log said once that counts and finds may miss requests.
    let warnedOfIncompleteJournal = NIOLockedValueBox(false)

    init(store: MappingStore, core: ServerCore) {
        self.store = store
        self.core = core
    }

    var stubber: HTTPStubber { store.stubber }

    /// Whether a request may use the admin API: with a token or WireMock's basic credentials configured, it must
    /// carry one of them.
    func isAuthorized(_ request: AdminRequest) -> Bool {
        let configuration = core.configuration
        if configuration.adminToken == nil, configuration.adminBasicCredentials == nil { return true }
        if let authorization = request.headers[.authorization] {
            if let token = configuration.adminToken, Self.sameInConstantTime(authorization, "Bearer \(token)") {
                return true
            }
            if let credentials = configuration.adminBasicCredentials,
                Self.sameInConstantTime(authorization, "Basic " + Data(credentials.utf8).base64EncodedString())
            {
                return true
            }
        }
        guard let token = configuration.adminToken else { return false }
        // The traffic page itself (not the API) may name the token in its address, as a browser cannot send
        // headers when it follows a link; the page then sends it as a header.
        return request.method == "GET" && (request.path == "" || request.path == "/") && Self.asksForPage(request)
            && request.query["token"].map { Self.sameInConstantTime($0, token) } == true
    }

    /// Whether a request for the admin API's root is a browser's, for the traffic page (it accepts HTML), rather
    /// than a client's of WireMock's API, whose root lists the mappings.
    static func asksForPage(_ request: AdminRequest) -> Bool {
        request.headers[.accept]?.contains("text/html") == true
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

    /// Answers a request: 401 without the token, then the route ``AdminRoute/all`` has for it (404 or 405
    /// when none fits).
    func handle(_ request: AdminRequest) async -> AdminResponse {
        if core.configuration.adminRequiresHTTPS, !request.isSecure {
            // WireMock's answer, before credentials are looked at.
            return .error(
                403,
                "HTTPS is required for accessing the admin API: call it at the HTTPS address (--https-port), as "
                    + "--admin-api-require-https asks.")
        }
        guard isAuthorized(request) else {
            let configuration = core.configuration
            var ways: [String] = []
            if configuration.adminToken != nil {
                ways.append(
                    "the header 'Authorization: Bearer <token>' (the token given with --admin-token or "
                        + "HTTPStubServer.Configuration.adminToken)")
            }
            if configuration.adminBasicCredentials != nil {
                ways.append(
                    "basic credentials (the username:password given with --admin-api-basic-auth or "
                        + "HTTPStubServer.Configuration.adminBasicCredentials)")
            }
            var response = AdminResponse.error(401, "The admin API needs " + ways.joined(separator: ", or ") + ".")
            if configuration.adminToken != nil {
                response.headers.append(("WWW-Authenticate", #"Bearer realm="stuntdouble admin""#))
            }
            if configuration.adminBasicCredentials != nil {
                response.headers.append(("WWW-Authenticate", #"Basic realm="stuntdouble admin""#))
            }
            return response
        }
        switch AdminRoute.find(method: request.method, path: request.path) {
        case .success(let (route, parameters)):
            return await route.answer(self, AdminRoute.Call(request: request, parameters: parameters))
        case .failure(let failure):
            return failure.response
        }
    }
}

/// The version the admin API's health endpoint reports.
enum StuntDoubleServerVersion {
    static let text = "0.1.0"
}

extension HTTPStubServer {
    /// StuntDouble's version, as the admin API's health endpoint and `stuntdouble --version` report it.
    public static var version: String { StuntDoubleServerVersion.text }
}
