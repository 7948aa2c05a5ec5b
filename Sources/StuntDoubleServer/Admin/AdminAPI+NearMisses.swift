import Foundation
import StuntDouble
import StuntDoubleWireMock

/// `/__admin/near-misses`: the stubs a logged request came closest to, and the logged requests that came
/// closest to a request pattern, with WireMock's distance (0 is a match).
extension AdminAPI {
    /// `POST /__admin/near-misses/request`: the stubs a logged request came closest to.
    func nearMisses(forLoggedRequest body: Data) -> AdminResponse {
        guard let node = JSONNode.parse(lenient: body), let incoming = Self.incoming(from: node) else {
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
    }

    /// `POST /__admin/near-misses/request-pattern`: the journal's requests that came closest to a pattern.
    func nearMisses(forPattern body: Data) -> AdminResponse {
        let (pattern, diagnostics) = StubRequestPattern.read(body, name: "the request body")
        guard pattern != nil, let node = JSONNode.parse(lenient: body) else {
            return .json(AdminJSON.errors(diagnostics), status: 422)
        }
        // The pattern as the one stub of a stubber of its own, which then ranks each logged request.
        let probe = HTTPStubber(journalCapacity: 0)
        let mapping = JSONNode.object([("request", node), ("response", .object([]))])
        _ = try? probe.load(
            StubFiles(
                json: Data(mapping.rendered().utf8), name: "pattern", filesDirectory: nil,
                extensions: store.extensions))
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
    }

    /// How close a candidate came, as the share of its checks that passed.
    func closeness(of candidate: HTTPUnmatchedRequestReport.Candidate) -> Double {
        let checks = candidate.checks
        guard !checks.isEmpty else { return 1 }
        return Double(checks.count { $0.passed }) / Double(checks.count)
    }

    /// A near miss in WireMock's shape: the request, the mapping, and the distance (0 is a match).
    func nearMiss(_ request: JSONNode, stub: HTTPStubRequest, closeness: Double) -> JSONNode {
        .object([
            ("request", request),
            ("stubMapping", store.entry(for: stub)?.json ?? AdminJSON.codeStubJSON(stub)),
            ("matchResult", .object([("distance", .number(text: String(format: "%.4f", 1 - closeness)))])),
        ])
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
}
