import Foundation
import TestSupport
import Testing

@testable import StuntDouble
@testable import StuntDoubleWireMock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Webhooks in stub files (`postServeActions`, `serveEventListeners`): how they are read, where their mistakes
/// are reported, and what a call renders to. Sending them is the stub server's (StuntDoubleServer's tests).
@Suite struct StubFileWebhookTests {
    /// The mappings of one file, read as a stub server reads them (webhooks are sent).
    func specs(_ json: String) -> (specs: [MappingSpec], problems: [String]) {
        let files = StubFiles(json: Data(json.utf8), name: "m.json", filesDirectory: nil, sendsWebhooks: true)
        let problems = files.diagnostics.map {
            "\($0.line):\($0.column): \($0.severity.rawValue): \($0.field.map { "\($0): " } ?? "")\($0.message)"
        }
        return (files.specs, problems)
    }

    func request(_ url: String, method: String = "POST", headers: [String: String] = [:], body: String? = nil) throws
        -> HTTPIncomingRequest
    {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.map { Data($0.utf8) }
        return try HTTPIncomingRequest(request)
    }

    @Test func everyFormWireMockWritesIsRead() {
        let read = specs(
            #"""
            {"mappings": [
              {"request": {"url": "/a"}, "postServeActions": [{"name": "webhook", "parameters": {"url": "http://h/1"}}]},
              {"request": {"url": "/b"}, "postServeActions": {"webhook": {"url": "http://h/2"}}},
              {"request": {"url": "/c"}, "serveEventListeners": [
                {"name": "webhook", "parameters": {"url": "http://h/3"}},
                {"name": "webhook", "requestPhases": ["AFTER_COMPLETE"], "parameters": {"url": "http://h/4"}}]}
            ]}
            """#)
        #expect(read.problems.isEmpty, "\(read.problems)")
        #expect(read.specs.map(\.webhooks.count) == [1, 1, 2])
        #expect(read.specs[2].webhooks.map(\.origin) == ["m.json:5:39", "m.json:6:76"])
    }

    @Test func aListenerOutsideTheAfterCompletePhaseNeverFiresAndSaysSo() {
        let read = specs(
            #"{"request": {"url": "/a"}, "serveEventListeners": [{"name": "webhook", "requestPhases": ["BEFORE_MATCH"], "parameters": {"url": "http://h/"}}]}"#
        )
        #expect(read.specs.first?.webhooks.isEmpty == true)
        #expect(read.problems.count == 1)
        #expect(read.problems.first?.contains("serveEventListeners[0].requestPhases: the webhook never fires") == true)
    }

    @Test(arguments: [
        (#"{"url": 5}"#, "1:91: error: postServeActions[0].parameters.url: url must be a string"),
        (#"{"method": "POST"}"#, "1:83: error: postServeActions[0].parameters: a webhook needs a url"),
        (
            #"{"url": "ftp://h/x"}"#,
            #"1:91: error: postServeActions[0].parameters.url: "ftp://h/x" is not an http or https URL"#
        ),
        (
            #"{"url": "http://h/", "method": "PO ST"}"#,
            #"postServeActions[0].parameters.method: "PO ST" is not an HTTP method"#
        ),
        (#"{"url": "http://h/", "body": {"a": 1}}"#, "postServeActions[0].parameters.body: a webhook's body is text"),
        (
            #"{"url": "http://h/", "method": "POST", "base64Body": "%%"}"#,
            "postServeActions[0].parameters.base64Body: not Base64 text"
        ),
        (
            #"{"url": "http://h/", "delay": {"type": "fixed"}}"#,
            "postServeActions[0].parameters.delay: a fixed delay needs milliseconds"
        ),
        (
            #"{"url": "http://h/", "delay": {"type": "soon"}}"#,
            #""soon" is not a delay distribution; use fixed, uniform or lognormal"#
        ),
        (
            #"{"url": "http://h/{{#if x}}"}"#,
            "postServeActions[0].parameters.url: the webhook template cannot be compiled: {{#if}} is never closed"
        ),
    ])
    func mistakesAreErrorsAtTheirPlace(parameters: String, expected: String) {
        let read = specs(
            #"{"request": {"url": "/a"}, "postServeActions": [{"name": "webhook", "parameters": "# + parameters + "}]}")
        #expect(read.problems.contains { $0.contains(expected) }, "\(read.problems)")
        #expect(read.specs.isEmpty, "a mapping with an error is not served")
    }

    @Test(arguments: [
        (
            #"{"url": "http://h/", "method": "post", "body": "x"}"#,
            #"method: "post" is sent as written, and without a body"#
        ),
        (#"{"url": "http://h/", "body": "x"}"#, "body: never sent: WireMock sends a webhook's body only with POST"),
        (
            #"{"url": "http://h/", "method": "PUT", "body": "x", "base64Body": "eA=="}"#,
            "base64Body: ignored: body is given, and wins"
        ),
        (
            #"{"url": "http://h/", "heders": {"A": "b"}}"#,
            "heders: not a webhook field, so only a parameter for templates; did you mean headers?"
        ),
    ])
    func whatProbablyIsAMistakeIsAWarning(parameters: String, expected: String) {
        let read = specs(
            #"{"request": {"url": "/a"}, "postServeActions": [{"name": "webhook", "parameters": "# + parameters + "}]}")
        #expect(
            read.problems.contains { $0.contains("warning: postServeActions[0].parameters." + expected) },
            "\(read.problems)")
        #expect(read.specs.first?.webhooks.count == 1, "served, as WireMock serves it")
    }

    @Test func anotherExtensionIsAFeatureStuntDoubleLacks() {
        let read = specs(
            #"{"request": {"url": "/a"}, "postServeActions": [{"name": "slack-notifier", "parameters": {}}]}"#)
        #expect(read.specs.isEmpty)
        #expect(read.problems.first?.contains(#""slack-notifier" is an extension StuntDouble does not have"#) == true)
    }

    @Test func inProcessAWebhookIsAFeatureLackedThereAndAnswers500WhenAskedTo() throws {
        let mapping =
            #"{"request": {"url": "/a"}, "response": {"body": "ok"}, "postServeActions": [{"name": "webhook", "parameters": {"url": "http://h/"}}]}"#
        let root = try StubRoot(mapping: mapping)
        #expect(
            root.problems == [
                "1:76: error: postServeActions: webhooks are sent by the stub server only (stuntdouble serve, "
                    + "HTTPStubServer.loadStubFiles), not in process"
            ])
        let stubber = HTTPStubber()
        try stubber.load(StubFiles(root: root.url, unsupportedFeatures: .answerWithError))
        let plan = try #require(stubber.plan("GET", "http://h/a"))
        #expect(plan.response?.statusCode == .internalServerError, "never an answer without its webhook, silently")
        #expect(String(decoding: plan.body, as: UTF8.self).contains("webhooks are sent by the stub server only"))
    }

    @Test func aCallIsRenderedFromTheOriginalRequestAndTheParameters() throws {
        let read = specs(
            #"""
            {"request": {"url": "/orders"}, "postServeActions": [{"name": "webhook", "parameters": {
              "method": "POST", "url": "http://hooks.test/orders/{{jsonPath originalRequest.body '$.id'}}",
              "headers": {"X-Trace": "{{originalRequest.headers.X-Trace}}", "X-Both": ["a", "{{parameters.team}}"]},
              "body": "{\"order\": \"{{jsonPath originalRequest.body '$.id'}}\", \"by\": \"{{{parameters.team}}}\"}",
              "delay": {"type": "fixed", "milliseconds": 250}, "team": "<billing>"}},
              {"name": "webhook", "parameters": {"url": "http://hooks.test/get", "base64Body": "aGk="}}]}
            """#)
        #expect(
            read.problems == [
                "6:84: warning: postServeActions[1].parameters.base64Body: never sent: WireMock sends a webhook's body only with POST, PUT and PATCH, and this one is GET"
            ])
        let webhooks = try #require(read.specs.first?.webhooks)
        let request = try request(
            "http://localhost/orders", headers: ["X-Trace": "t-9"], body: #"{"id": "A7"}"#)
        let call = webhooks[0].render(for: request)
        #expect(call.method == "POST")
        #expect(call.urlText == "http://hooks.test/orders/A7")
        #expect(
            call.headers.map { "\($0.name): \($0.value)" } == ["X-Trace: t-9", "X-Both: a", "X-Both: <billing>"],
            "values as they are, as WireMock 3 writes them")
        #expect(call.body.map { String(decoding: $0, as: UTF8.self) } == #"{"order": "A7", "by": "<billing>"}"#)
        #expect(call.delay == .milliseconds(250))
        #expect(call.problem == nil)
        let get = webhooks[1].render(for: request)
        #expect(get.method == "GET" && get.body == nil, "GET is the default method, and sends no body")
    }

    @Test func aHugeRandomDelayIsAYearAtMostNeverATrap() throws {
        let read = specs(
            #"{"request": {"url": "/a"}, "postServeActions": [{"name": "webhook", "parameters": {"url": "http://h/", "delay": {"type": "lognormal", "median": 31536000000, "sigma": 10}}}]}"#
        )
        let webhook = try #require(read.specs.first?.webhooks.first)
        let request = try request("http://localhost/a")
        for _ in 0..<200 {
            let delay = webhook.render(for: request).delay
            #expect(delay >= .zero && delay <= .seconds(HTTPResponsePlan.maximumSeconds))
        }
    }

    @Test func aCallWhoseURLRendersToNoURLSaysWhy() throws {
        let read = specs(
            #"{"request": {"url": "/a"}, "postServeActions": [{"name": "webhook", "parameters": {"url": "{{originalRequest.query.target}}"}}]}"#
        )
        let call = try #require(read.specs.first?.webhooks.first).render(for: try request("http://localhost/a"))
        #expect(call.problem == #"its url is "", not an http or https URL"#)
    }
}
