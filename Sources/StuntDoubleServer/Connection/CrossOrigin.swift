import NIOCore
import NIOHTTP1
import StuntDouble

/// Answering browsers on other origins (CORS, `HTTPStubServer.Configuration.answersCrossOriginRequests`): the
/// server's own answer to a preflight, and the headers every other answer to a cross-origin request carries.
enum CrossOrigin {
    /// The methods a preflight to a path no document has is allowed (WireMock's stub CORS).
    static let methods = ["OPTIONS", "GET", "POST", "PUT", "PATCH", "DELETE"]
    /// How long a browser may keep a preflight's answer: a minute, so that an edited document is soon seen.
    static let maxAge = "60"
    /// Response headers a browser shows a page without being told (the CORS-safelisted ones), in lower case.
    static let safelisted: Set<String> = [
        "cache-control", "content-language", "content-length", "content-type", "expires", "last-modified", "pragma",
    ]

    /// Whether a request is a preflight: `OPTIONS` with `Access-Control-Request-Method`.
    static func requestedMethod(_ head: HTTPRequestHead) -> String? {
        guard head.method == .OPTIONS else { return nil }
        return head.headers.first(name: "access-control-request-method")
    }

    /// A response's headers with those a cross-origin answer needs, unless it has its own
    /// `Access-Control-Allow-Origin` (a stub's or an upstream's, kept as they are).
    static func adding(origin: String, to headers: NIOHTTP1.HTTPHeaders) -> NIOHTTP1.HTTPHeaders {
        guard !headers.contains(name: "access-control-allow-origin") else { return headers }
        var headers = headers
        var exposed: [String] = []
        for field in headers where !safelisted.contains(field.name.lowercased()) {
            if !exposed.contains(where: { $0.caseInsensitiveCompare(field.name) == .orderedSame }) {
                exposed.append(field.name)
            }
        }
        headers.add(name: "Access-Control-Allow-Origin", value: HeaderText.value(origin))
        headers.add(name: "Access-Control-Allow-Credentials", value: "true")
        if !exposed.isEmpty {
            headers.add(name: "Access-Control-Expose-Headers", value: exposed.joined(separator: ", "))
        }
        headers.add(name: "Vary", value: "Origin")
        return headers
    }
}

extension StubRequestHandler {
    /// Answers a preflight itself (it reaches no stub and no journal, as WireMock's CORS filter answers it): the
    /// methods a loaded document has at the path, or WireMock's list; the headers asked for, with those the
    /// document reads there.
    func answerPreflight(
        _ head: HTTPRequestHead, request: HTTPIncomingRequest, origin: String, method asked: String, id: Int,
        context: ChannelHandlerContext
    ) -> ConnectionStateMachine.Action {
        let rules = core.stubber.stubs.lazy.compactMap { $0.crossOriginRules?.crossOrigin(for: request) }.first
        let methods = rules?.methods ?? CrossOrigin.methods
        var allowedHeaders: [String] = []
        let asked = asked.trimmingCharacters(in: .whitespaces)
        let askedHeaders = (head.headers.first(name: "access-control-request-headers") ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for name in askedHeaders + (rules?.headers ?? [])
        where !allowedHeaders.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
            allowedHeaders.append(name)
        }
        var headers: [(String, String)] = [
            ("Access-Control-Allow-Origin", origin), ("Access-Control-Allow-Credentials", "true"),
            ("Access-Control-Allow-Methods", methods.joined(separator: ", ")),
        ]
        if !allowedHeaders.isEmpty {
            headers.append(("Access-Control-Allow-Headers", allowedHeaders.joined(separator: ", ")))
        }
        if head.headers.first(name: "access-control-request-private-network")?.lowercased() == "true" {
            // Chrome's Private Network Access: a page on a public origin calling this loopback server.
            headers.append(("Access-Control-Allow-Private-Network", "true"))
        }
        headers += [
            ("Access-Control-Max-Age", CrossOrigin.maxAge),
            ("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"),
        ]
        let target = core.loggedTarget(head.uri)
        if methods.contains(asked.uppercased()) || methods.contains(asked) {
            core.logger.info("OPTIONS \(target) → 204 CORS preflight: \(asked) from \(origin) allowed")
        } else {
            // Allowed methods that leave out the one asked for: the browser refuses the request and says why.
            let line =
                "OPTIONS \(target) → 204 CORS preflight: \(asked) from \(origin) refused: the OpenAPI document has "
                + "\(methods.joined(separator: ", ")) at this path"
            core.logger.warning("\(line)")
        }
        let now = context.eventLoop.now
        let answer = ResponseStateMachine.empty(
            status: .noContent, headers: headers, id: id, for: HeadRequirements(head),
            record: ResponseRecord(entry: nil, request: head, received: now, outcome: .text("CORS preflight")),
            receivedAt: now)
        return machine.answer(answer, now: now)
    }
}
